package datasets

import (
	"strings"
)

// Problem is one doc of a benchmark split.
type Problem struct {
	// ID is the decimal doc id (the same number as Index); it names the problem in
	// results and seeds its RNG stream, so it must not depend on batch or order.
	ID string
	// Index is the doc id: the row index across the dataset's files in sorted order.
	Index int
	// Question and Answer are the raw column values. Few-shot exemplars read from a
	// {"question","target"} file have no Answer.
	Question string
	Answer   string
	// Target is the final answer: the text after the last "####" of Answer,
	// trimmed (lm-eval's answer.split('####')[-1].strip()), or the exemplar's
	// target. Empty when TargetValid is false.
	Target string
	// TargetValid is false when Answer has no "####" line (or nothing after it).
	// Such a problem can be prompted but never scores as correct; the number is
	// not guessed from the worked solution.
	TargetValid bool
	// Doc is the whole row, every column, as task templates see it.
	Doc Doc
	// Columns is Doc's key order, nested structs' included: the file's (see
	// Fields), then any key the file does not name, sorted.
	Columns Fields
	// Source and Row say where the problem came from (file path, 0-based row
	// within that file), for error messages and provenance.
	Source string
	Row    int
}

// FinalAnswer returns the text after the last "####" in a GSM8K answer,
// trimmed, and whether there was a non-empty one.
func FinalAnswer(answer string) (string, bool) {
	i := strings.LastIndex(answer, "####")
	if i < 0 {
		return "", false
	}
	t := strings.TrimSpace(answer[i+len("####"):])
	return t, t != ""
}

// setGSM8K sets Question, Answer and Target from the doc's "question" and
// "answer", which the loader checked are strings.
func (p *Problem) setGSM8K() {
	p.Question, _ = p.Doc["question"].(string)
	p.Answer, _ = p.Doc["answer"].(string)
	p.Target, p.TargetValid = FinalAnswer(p.Answer)
}

// InvalidTargets returns the indexes (positions in ps) of problems without a
// usable target.
func InvalidTargets(ps []Problem) []int {
	var out []int
	for i, p := range ps {
		if !p.TargetValid {
			out = append(out, i)
		}
	}
	return out
}
