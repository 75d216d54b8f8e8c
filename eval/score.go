package eval

// Scoring, lm-eval style: exact_match with regexes_to_ignore and ignore_case
// (HF evaluate's exact_match, which lm-eval calls), plus a numeric comparison
// offered beside it because lm-eval's string match says 29.00 != 29.

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// ignoreRule is one regexes_to_ignore entry compiled for Go.
type ignoreRule struct {
	re   *regexp.Regexp
	repl string
}

// ExactMatcher normalises prediction and reference and compares the strings.
type ExactMatcher struct {
	rules      []ignoreRule
	ignoreCase bool
	fast       func(string) string // nil: apply rules
}

// NewExactMatcher compiles Python-syntax regexes_to_ignore. Python's
// non-MULTILINE "$" also matches just before a final "\n" (so re.sub(r"\.$",
// "", "5.\n") == "5\n") while Go's matches only at the very end; a trailing
// "$" is therefore rewritten to capture the optional newline and put it back.
func NewExactMatcher(regexesToIgnore []string, ignoreCase bool) (*ExactMatcher, error) {
	m := &ExactMatcher{ignoreCase: ignoreCase}
	for _, p := range regexesToIgnore {
		goPat, repl := p, ""
		if endsWithAnchor(p) {
			goPat = p[:len(p)-1] + `(\n?)\z`
		}
		re, err := regexp.Compile(goPat)
		if err != nil {
			return nil, fmt.Errorf("exact_match: compile regexes_to_ignore entry %q: %w", p, err)
		}
		if goPat != p {
			repl = fmt.Sprintf("${%d}", re.NumSubexp())
		}
		m.rules = append(m.rules, ignoreRule{re: re, repl: repl})
	}
	if isGSM8KIgnore(regexesToIgnore, ignoreCase) {
		m.fast = normalizeGSM8K
	}
	return m, nil
}

// endsWithAnchor reports whether p ends in an unescaped "$".
func endsWithAnchor(p string) bool {
	if !strings.HasSuffix(p, "$") {
		return false
	}
	backslashes := 0
	for i := len(p) - 2; i >= 0 && p[i] == '\\'; i-- {
		backslashes++
	}
	return backslashes%2 == 0
}

// Normalize applies the rules in order (each removes every match, as re.sub
// does), then lowercases when ignore_case is set.
func (m *ExactMatcher) Normalize(s string) string {
	if m.fast != nil {
		return m.fast(s)
	}
	for _, r := range m.rules {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	if m.ignoreCase {
		s = pyLower(s)
	}
	return s
}

// Match reports exact_match after normalising both sides.
func (m *ExactMatcher) Match(prediction, reference string) bool {
	return m.Normalize(prediction) == m.Normalize(reference)
}

// pyLower is Python's str.lower() for the cases where it differs from Go's
// simple mapping that matter in practice: U+0130 lowers to "i" + U+0307. (The
// Greek final-sigma rule is not reproduced.)
func pyLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// GSM8KIgnore is the regexes_to_ignore of lm-eval's GSM8K tasks, in order.
var GSM8KIgnore = []string{",", `\$`, "(?s).*#### ", `\.$`}

var gsm8kMatcher = sync.OnceValue(func() *ExactMatcher {
	m, err := NewExactMatcher(GSM8KIgnore, true)
	if err != nil {
		panic(err) // constant patterns: a failure is a programming error
	}
	return m
})

// ExactMatch is lm-eval's GSM8K exact_match: remove ",", "$", everything up to
// the last "#### ", a final "."; lowercase; compare. The reference may be the
// bare target ("18") or the whole worked answer ("...\n#### 18").
func ExactMatch(prediction, reference string) bool {
	return gsm8kMatcher().Match(prediction, reference)
}

var dropCommaDollar = strings.NewReplacer(",", "", "$", "")

var decimalRE = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)

// ParseDecimal reads a GSM8K-style number exactly: thousands commas, "$" and
// a reference's "... #### " prefix are dropped, as is one final "." ("18." is
// 18); what is left must be a plain decimal ("-3", "29.00", ".5").
func ParseDecimal(s string) (*big.Rat, bool) {
	s = dropCommaDollar.Replace(s)
	if i := strings.LastIndex(s, "#### "); i >= 0 {
		s = s[i+len("#### "):]
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, ".")
	if !decimalRE.MatchString(s) {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// NumericMatch reports whether prediction and reference are the same number
// (29.00 == 29, $1,000 == 1000, -0 == 0). Anything that is not a number,
// "[invalid]" included, does not match.
func NumericMatch(prediction, reference string) bool {
	p, ok := ParseDecimal(prediction)
	if !ok {
		return false
	}
	r, ok := ParseDecimal(reference)
	return ok && p.Cmp(r) == 0
}

// LMEvalGrader implements Grader for the tasks registered in package
// datasets: their filters extract, their exact_match configuration scores,
// and CorrectNumeric compares the strict extraction numerically.
type LMEvalGrader struct {
	mu    sync.Mutex
	tasks map[string]*taskScorer
}

type taskScorer struct {
	extract *Extractor
	exact   *ExactMatcher
}

// NewLMEvalGrader returns a grader that compiles each task's rules on first use.
func NewLMEvalGrader() *LMEvalGrader { return &LMEvalGrader{tasks: map[string]*taskScorer{}} }

func (g *LMEvalGrader) scorer(task string) (*taskScorer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s, ok := g.tasks[task]; ok {
		return s, nil
	}
	t, err := datasets.LookupTask(task)
	if err != nil {
		return nil, err
	}
	ex, err := NewExtractor(t)
	if err != nil {
		return nil, err
	}
	em, err := NewExactMatcher(t.IgnoreRegexes, t.IgnoreCase)
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", task, err)
	}
	s := &taskScorer{extract: ex, exact: em}
	g.tasks[task] = s
	return s, nil
}

// Grade extracts and scores one finished response (already cut at its stop).
// An empty target means the problem has no valid reference answer (no "####"
// line): it is graded, and never counts as correct.
func (g *LMEvalGrader) Grade(task, response, target string) (Grade, error) {
	s, err := g.scorer(task)
	if err != nil {
		return Grade{}, err
	}
	x := s.extract.Extract(response)
	out := Grade{ExtractedStrict: x.Strict, ExtractedFlexible: x.Flexible}
	if strings.TrimSpace(target) == "" {
		return out, nil
	}
	out.CorrectStrict = s.exact.Match(x.Strict, target)
	out.CorrectFlexible = s.exact.Match(x.Flexible, target)
	out.CorrectNumeric = NumericMatch(x.Strict, target)
	return out, nil
}
