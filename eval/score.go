package eval

// Scoring, lm-eval style: exact_match with regexes_to_ignore, ignore_case,
// ignore_punctuation and ignore_numbers (HF evaluate's exact_match, which
// lm-eval calls), plus numeric_match offered beside it because lm-eval's
// string match says 29.00 != 29.

import (
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/reports"
)

// ExactMatcher is lm-eval's exact_match (HF evaluate's): remove every
// regexes_to_ignore match from prediction and reference, in order; then
// ignore_case lowercases, ignore_punctuation drops ASCII punctuation
// (Python's string.punctuation) and ignore_numbers drops ASCII digits; then
// the strings are compared.
type ExactMatcher struct {
	rules             []*pyRegex
	ignoreCase        bool
	ignorePunctuation bool
	ignoreNumbers     bool
	fast              func(string) string // nil: apply rules
}

// NewExactMatcher compiles Python-syntax regexes_to_ignore (Python's
// semantics: its non-MULTILINE "$" also matches before a final "\n").
func NewExactMatcher(regexesToIgnore []string, ignoreCase bool) (*ExactMatcher, error) {
	return newExactMatcher(datasets.MetricSpec{RegexesToIgnore: regexesToIgnore, IgnoreCase: ignoreCase})
}

func newExactMatcher(spec datasets.MetricSpec) (*ExactMatcher, error) {
	m := &ExactMatcher{ignoreCase: spec.IgnoreCase, ignorePunctuation: spec.IgnorePunctuation, ignoreNumbers: spec.IgnoreNumbers}
	for _, p := range spec.RegexesToIgnore {
		re, err := compilePyRegex(p)
		if err != nil {
			return nil, fmt.Errorf("exact_match: regexes_to_ignore entry: %w", err)
		}
		m.rules = append(m.rules, re)
	}
	if isGSM8KIgnore(spec.RegexesToIgnore, spec.IgnoreCase) && !spec.IgnorePunctuation && !spec.IgnoreNumbers {
		m.fast = normalizeGSM8K
	}
	return m, nil
}

// Normalize applies the rules in order (each removes every match, as re.sub
// does), then the case, punctuation and number options. A rule that hits the
// regex time limit is an error naming its pattern, never a rule skipped: a
// skipped rule would score the text unchanged, silently wrong.
func (m *ExactMatcher) Normalize(s string) (string, error) {
	if m.fast != nil {
		return m.fast(s), nil
	}
	for _, r := range m.rules {
		out, err := r.removeAll(s)
		if err != nil {
			return "", fmt.Errorf("regexes_to_ignore: %w", err)
		}
		s = out
	}
	if m.ignoreCase {
		s = pyLower(s)
	}
	if m.ignorePunctuation {
		s = strings.Map(func(r rune) rune {
			if strings.ContainsRune(asciiPunctuation, r) {
				return -1
			}
			return r
		}, s)
	}
	if m.ignoreNumbers {
		s = strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return -1
			}
			return r
		}, s)
	}
	return s, nil
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// Match reports exact_match after normalising both sides.
func (m *ExactMatcher) Match(prediction, reference string) (bool, error) {
	p, err := m.Normalize(prediction)
	if err != nil {
		return false, fmt.Errorf("prediction: %w", err)
	}
	r, err := m.Normalize(reference)
	if err != nil {
		return false, fmt.Errorf("reference: %w", err)
	}
	return p == r, nil
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
	ok, _ := gsm8kMatcher().Match(prediction, reference) // the GSM8K rules run without regexps: no error
	return ok
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

// LMEvalGrader implements Grader for lm-eval task configurations: each
// filter pipeline of the task makes an answer, and each metric scores every
// filter's answer against the target.
type LMEvalGrader struct {
	mu    sync.Mutex
	tasks map[string]*taskScorer
}

type taskScorer struct {
	spec    TaskSpec // the configuration compiled
	filters []*Pipeline
	metrics []metricFunc
	names   []string // metric names, metrics order
}

// metricFunc scores one prediction against the reference.
type metricFunc func(prediction, reference string) (float64, error)

// NewLMEvalGrader returns a grader that compiles each task's rules on first use.
func NewLMEvalGrader() *LMEvalGrader { return &LMEvalGrader{tasks: map[string]*taskScorer{}} }

func (g *LMEvalGrader) scorer(task TaskSpec) (*taskScorer, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	// Keyed by name, checked by content: a grader may see two configurations
	// of one task name (a rescore after the task file changed).
	if s, ok := g.tasks[task.Name]; ok && sameSpec(s.spec, task) {
		return s, nil
	}
	if len(task.Filters) == 0 || len(task.Metrics) == 0 {
		return nil, fmt.Errorf("task %s: no filters or metrics to score with", task.Name)
	}
	s := &taskScorer{spec: task}
	for _, f := range task.Filters {
		p, err := CompilePipeline(f)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		s.filters = append(s.filters, p)
	}
	for _, m := range task.Metrics {
		fn, err := compileMetric(m)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		s.metrics, s.names = append(s.metrics, fn), append(s.names, m.Metric)
	}
	g.tasks[task.Name] = s
	return s, nil
}

// sameSpec reports whether two task specs hold the same filters and metrics:
// the same backing arrays (one run's manifest, the common case, checked in
// constant time) or equal contents.
func sameSpec(a, b TaskSpec) bool {
	if len(a.Filters) == len(b.Filters) && len(a.Metrics) == len(b.Metrics) && len(a.Filters) > 0 && len(a.Metrics) > 0 &&
		&a.Filters[0] == &b.Filters[0] && &a.Metrics[0] == &b.Metrics[0] {
		return true
	}
	return reflect.DeepEqual(a.Filters, b.Filters) && reflect.DeepEqual(a.Metrics, b.Metrics)
}

func compileMetric(m datasets.MetricSpec) (metricFunc, error) {
	switch m.Metric {
	case "exact_match":
		em, err := newExactMatcher(m)
		if err != nil {
			return nil, err
		}
		return func(p, r string) (float64, error) {
			ok, err := em.Match(p, r)
			return b2f(ok), err
		}, nil
	case "numeric_match":
		return func(p, r string) (float64, error) { return b2f(NumericMatch(p, r)), nil }, nil
	}
	return nil, fmt.Errorf("metric %q is not supported", m.Metric)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Grade runs every filter pipeline over the doc's responses and scores each
// answer with every metric. A pipeline that reduces the responses to one
// answer (take_first, majority_vote + take_first) gives that answer and its
// scores to every response; one that keeps the list gives each response its
// own. An empty target (a doc without a valid reference) scores 0.
func (g *LMEvalGrader) Grade(task TaskSpec, doc datasets.Doc, responses []string, target string) ([]Grade, error) {
	s, err := g.scorer(task)
	if err != nil {
		return nil, err
	}
	out := make([]Grade, len(responses))
	hasTarget := strings.TrimSpace(target) != ""
	for _, f := range s.filters {
		answers, _, err := f.Apply(responses, doc)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task.Name, err)
		}
		if len(answers) != 1 && len(answers) != len(responses) {
			return nil, fmt.Errorf("task %s: filter %s leaves %d answers for %d responses; end it with take_first or majority_vote", task.Name, f.Name, len(answers), len(responses))
		}
		// Each answer is scored once, also when one answer stands for every repeat.
		scores := make([][]reports.Score, len(answers))
		for k, a := range answers {
			scores[k] = make([]reports.Score, len(s.metrics))
			for j, m := range s.metrics {
				v := 0.0
				if hasTarget {
					if v, err = m(a, target); err != nil {
						return nil, fmt.Errorf("task %s: metric %s, filter %s: %w", task.Name, s.names[j], f.Name, err)
					}
				}
				scores[k][j] = reports.Score{Metric: s.names[j], Filter: f.Name, Value: v}
			}
		}
		for i := range out {
			k := 0
			if len(answers) == len(responses) {
				k = i
			}
			out[i].Answers = append(out[i].Answers, reports.Answer{Filter: f.Name, Answer: answers[k]})
			out[i].Scores = append(out[i].Scores, scores[k]...)
		}
	}
	return out, nil
}
