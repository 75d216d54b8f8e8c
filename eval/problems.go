package eval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
)

// ProblemEntry is one line of problems.jsonl.
type ProblemEntry struct {
	Index        int    `json:"index"`
	ID           string `json:"id"`
	Question     string `json:"question"`
	Answer       string `json:"answer,omitempty"`
	Prompt       string `json:"prompt"`
	PromptHash   string `json:"prompt_hash"`
	PromptTokens int    `json:"prompt_tokens"`
	Truncated    bool   `json:"left_truncated,omitempty"`
	Target       string `json:"target"`
	// Targets are a multiple-target task's references.
	Targets []string `json:"targets,omitempty"`
	// Doc is the dataset row, for filters that read it (multi_choice_regex).
	Doc map[string]any `json:"doc,omitempty"`
	// DocColumns is Doc's key order (the dataset's column order, nested
	// structs' as {"name": [fields]}).
	DocColumns datasets.Fields `json:"doc_columns,omitempty"`
	// Scoring is the doc's loglikelihood requests (scored output types).
	Scoring *loglik.Doc `json:"loglik,omitempty"`
}

// MarshalJSON writes the doc last, in its column order with its numbers'
// kinds (datasets.EncodeDoc), so samples and lm-eval's doc_hash see the row
// as the dataset has it. A doc's NaN and ±Infinity are written as Python's
// json.dumps writes them, which encoding/json refuses from a Marshaler, so
// problems.jsonl is written and read through these two methods directly.
func (e ProblemEntry) MarshalJSON() ([]byte, error) {
	type plain ProblemEntry
	doc := e.Doc
	e.Doc = nil
	b, err := json.Marshal(plain(e))
	if err != nil || doc == nil {
		return b, err
	}
	docText, err := datasets.EncodeDoc(doc, e.DocColumns)
	if err != nil {
		return nil, fmt.Errorf("problem %s: doc: %w", e.ID, err)
	}
	return withDoc(b, docText), nil
}

// withDoc is the JSON object obj, which has members, with "doc": doc as its
// last member.
func withDoc(obj, doc []byte) []byte {
	out := append(bytes.TrimSuffix(obj, []byte("}")), `,"doc":`...)
	return append(append(out, doc...), '}')
}

// UnmarshalJSON reads MarshalJSON's line back, the doc with int64 and
// float64 numbers (NaN and ±Infinity included).
func (e *ProblemEntry) UnmarshalJSON(b []byte) error {
	type plain ProblemEntry
	in := struct {
		*plain
		Doc json.RawMessage `json:"doc,omitempty"`
	}{plain: (*plain)(e)}
	if err := json.Unmarshal(pyjson.Standard(b), &in); err != nil {
		return err
	}
	e.Doc = nil
	if len(in.Doc) > 0 && string(in.Doc) != "null" {
		// The whole line again: Standard lost the doc's non-finite values.
		line, err := datasets.DecodeDoc(b)
		if err != nil {
			return fmt.Errorf("doc: %w", err)
		}
		if e.Doc, _ = line["doc"].(datasets.Doc); e.Doc == nil {
			return fmt.Errorf("doc: want a JSON object")
		}
	}
	return nil
}

func promptHash(prompt string) string {
	h := sha256.Sum256([]byte(prompt))
	return hex.EncodeToString(h[:8])
}

// prepareProblems tokenizes the prompts of the problems the shard owns, cutting a
// prompt on the left (as lm-eval does) when it leaves no room for maxNew tokens.
func prepareProblems(problems []Problem, shard Shard, tok Tokenizer, maxSeqLen, maxNew int) ([]*preparedProblem, int, error) {
	var out []*preparedProblem
	cut := 0
	room := maxSeqLen - maxNew
	for i, p := range problems {
		if !shard.Owns(i) {
			continue
		}
		ids, err := tok.Encode(p.Prompt)
		if err != nil {
			return nil, 0, fmt.Errorf("problem %s: tokenize prompt: %w", p.ID, err)
		}
		if len(ids) == 0 {
			return nil, 0, fmt.Errorf("problem %s: prompt has no tokens", p.ID)
		}
		pp := &preparedProblem{Problem: p, Index: i, IDs: ids, Hash: promptHash(p.Prompt)}
		if len(ids) > room {
			pp.IDs, pp.Truncated = ids[len(ids)-room:], true
			cut++
		}
		out = append(out, pp)
	}
	return out, cut, nil
}

func entriesOf(pps []*preparedProblem) []ProblemEntry {
	out := make([]ProblemEntry, len(pps))
	for i, p := range pps {
		out[i] = ProblemEntry{
			Index: p.Index, ID: p.ID, Question: p.Question, Answer: p.Answer, Prompt: p.Prompt, PromptHash: p.Hash,
			PromptTokens: len(p.IDs), Truncated: p.Truncated, Target: p.Target, Targets: p.Targets, Doc: p.Doc, DocColumns: p.DocColumns,
		}
	}
	return out
}

func writeProblems(dir string, entries []ProblemEntry) error {
	return WriteFileAtomic(filepath.Join(dir, ProblemsFile), func(w io.Writer) error {
		for _, e := range entries {
			b, err := e.MarshalJSON()
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReadProblems loads a run directory's problems.jsonl.
func ReadProblems(dir string) ([]ProblemEntry, error) {
	path := filepath.Join(dir, ProblemsFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	defer f.Close()
	var out []ProblemEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		var e ProblemEntry
		if err := e.UnmarshalJSON(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// sameProblems checks that a resumed run prepared exactly the prompts it started with.
func sameProblems(have, want []ProblemEntry) error {
	if len(have) != len(want) {
		return fmt.Errorf("the run directory has %d problems, this configuration gives %d", len(have), len(want))
	}
	for i := range have {
		if !sameEntry(have[i], want[i]) {
			return fmt.Errorf("problem %s (index %d) differs from the one the run started with (prompt or target changed)", want[i].ID, want[i].Index)
		}
	}
	return nil
}

// sameEntry compares two entries as problems.jsonl stores them (a doc's
// numbers read back from JSON are float64, freshly loaded ones int64).
func sameEntry(a, b ProblemEntry) bool {
	a.DocColumns, b.DocColumns = nil, nil // run directories from before doc_columns
	ja, errA := a.MarshalJSON()
	jb, errB := b.MarshalJSON()
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// Reference is what the entry's responses are graded against.
func (e ProblemEntry) Reference() Reference {
	return Reference{Doc: e.Doc, Columns: e.DocColumns.Names(), Target: e.Target, Targets: e.Targets}
}
