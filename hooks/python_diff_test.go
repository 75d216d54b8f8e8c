package hooks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// pythonOrSkip is Debian's python3 (sharedtest.Python).
func pythonOrSkip(t *testing.T) string { return sharedtest.Python(t) }

// casesPerFunction is how many generated strings each ported function sees.
const casesPerFunction = 20000

// pyCase is one call of a Python hook; Go computes the same with its port.
type pyCase struct {
	Kind string         `json:"kind"`
	S    string         `json:"s"`
	T    string         `json:"t"`
	U    string         `json:"u,omitempty"`
	V    string         `json:"v,omitempty"`
	Seed int            `json:"seed,omitempty"`
	Opts []any          `json:"opts"`
	KW   map[string]any `json:"kw,omitempty"`
}

type pyAnswer struct {
	OK  json.RawMessage `json:"ok"`
	Err string          `json:"err"`
}

// runPython sends the cases to testdata/pyref.py and returns its answers.
func runPython(t *testing.T, py string, cases []pyCase) []pyAnswer {
	t.Helper()
	shared := sharedtest.Root(t) // lm-eval's utils.py files live in ../shared/tasks
	var in strings.Builder
	for _, c := range cases {
		b, err := json.Marshal(c)
		require.NoError(t, err)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(py, filepath.Join("testdata", "pyref.py"), shared)
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var answers []pyAnswer
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var a pyAnswer
		require.NoError(t, json.Unmarshal(sc.Bytes(), &a))
		answers = append(answers, a)
	}
	require.Len(t, answers, len(cases))
	return answers
}

// mathPieces are the fragments MATH answers are built from: every token the
// normalisation rewrites, plus plain text, digits and non-ASCII.
var mathPieces = []string{"\\boxed{", "\\boxed ", "\\fbox{", "{", "}", "$", "\\$", "\\frac", "\\dfrac", "tfrac", "\\sqrt", "\\text{ ",
	"\\text{", "=", "/", "1", "2", "0", "12", "-", ".", " .", "{.", "0.5", " ", "\n", "\\!", "\\\\", "\\left", "\\right", "^\\circ",
	"^{\\circ}", "\\%", "%", "x", "k", "ab", "π", "٣", "é", "\t", ",", "(", ")", "01", "+", "_"}

func genFrom(r *rand.Rand, pieces []string, maxN int) string {
	var b strings.Builder
	for n := r.IntN(maxN + 1); n > 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// TestPortsMatchPythonOnGeneratedInputs runs every ported function on
// casesPerFunction generated inputs in Go and in lm-eval's own Python
// (Debian's python3), and requires identical results, exceptions included.
func TestPortsMatchPythonOnGeneratedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	py := pythonOrSkip(t)
	r := rand.New(rand.NewPCG(22, uint64(runtime.NumCPU()*0+1)))
	var set caseSet
	add := set.add
	for range casesPerFunction {
		s := genFrom(r, mathPieces, 8)
		add(pyCase{Kind: "strip_string", S: s}, func() (any, error) { return stripString(s) })
		a, b := genFrom(r, mathPieces, 6), genFrom(r, mathPieces, 6)
		if r.IntN(3) == 0 {
			b = a
		}
		add(pyCase{Kind: "is_equiv", S: a, T: b}, func() (any, error) { return isEquiv(a, b), nil })
		x := genFrom(r, mathPieces, 10)
		add(pyCase{Kind: "boxed", S: x}, func() (any, error) {
			bx, ok := lastBoxedOnlyString(x)
			if !ok {
				return nil, errPython
			}
			return removeBoxed(bx)
		})
		resp, sol := genFrom(r, mathPieces, 10), "so \\boxed{"+genFrom(r, mathPieces, 4)+"}"
		add(pyCase{Kind: "hendrycks_results", S: resp, T: sol}, func() (any, error) {
			res, err := hendrycksProcessResults(map[string]any{"solution": sol}, nil, resp)
			if err != nil {
				return nil, err
			}
			return map[string]any{"exact_match": int(res[0].Value)}, nil
		})
		ans := genFrom(r, mathPieces, 3)
		add(pyCase{Kind: "aime_results", S: resp, T: ans}, func() (any, error) {
			res, err := aimeProcessResults(map[string]any{"ID": "x", "Answer": ans}, []string{"ID", "Answer"}, resp)
			if err != nil {
				return nil, err
			}
			return map[string]any{"exact_match": int(res[0].Value)}, nil
		})
	}
	set.check(t, py)
}

// caseSet pairs each Python call with the Go computation of the same.
type caseSet struct {
	cases  []pyCase
	goSide []func() (any, error)
}

func (s *caseSet) add(c pyCase, f func() (any, error)) {
	s.cases, s.goSide = append(s.cases, c), append(s.goSide, f)
}

// check runs the cases in Python and requires Go's answers to equal them.
func (s *caseSet) check(t *testing.T, py string) {
	t.Helper()
	compareAnswers(t, s.cases, runPython(t, py, s.cases), s.goSide)
}

// compareAnswers requires each Go result to equal Python's: the same value
// (as JSON), or an error where Python raised.
func compareAnswers(t *testing.T, cases []pyCase, answers []pyAnswer, goSide []func() (any, error)) {
	t.Helper()
	mismatches := 0
	perKind := map[string]int{}
	for i, c := range cases {
		perKind[c.Kind]++
		got, err := goSide[i]()
		want := answers[i]
		var msg string
		switch {
		case want.Err != "" && err == nil:
			msg = fmt.Sprintf("Python raised %s, Go returned %#v", want.Err, got)
		case want.Err == "" && err != nil:
			msg = fmt.Sprintf("Go failed (%v), Python returned %s", err, want.OK)
		case want.Err == "":
			b, _ := json.Marshal(got)
			var g, w any
			_ = json.Unmarshal(b, &g)
			_ = json.Unmarshal(want.OK, &w)
			if fmt.Sprint(g) != fmt.Sprint(w) {
				msg = fmt.Sprintf("Go %s, Python %s", b, want.OK)
			}
		}
		if msg != "" {
			mismatches++
			if mismatches <= 10 {
				t.Errorf("%s(%q, %q): %s", c.Kind, c.S, c.T, msg)
			}
		}
	}
	for k, n := range perKind {
		if n > 1 { // a constant (the few-shot samples) is one case
			require.GreaterOrEqual(t, n, casesPerFunction, k)
		}
	}
	require.Zero(t, mismatches, "of %d cases", len(cases))
}

// bbhPieces build BBH inputs and responses: option markers, the phrases the
// filters look for, punctuation, case and non-ASCII.
var bbhPieces = []string{"(A)", "(B)", "(C)", "(D)", "(E)", " ", "\n", "the answer is ", "The answer is ", ": ", ":B", "yes", "no", "Yes",
	"plausible", "not plausible", "apple", "Banana", "cherry", "12", "-3", "7", ".", ",", "!", "’", "¿", "é", "Ü", "'", "\"", "(", ")", "so", "List:", "\t"}

// TestBBHFiltersMatchPython runs BBH's filter classes (lm-eval's Python,
// the numeric path of NumberParseRegexFilter aside: its word path imports
// word2number, which Debian does not package) against the Go ports.
func TestBBHFiltersMatchPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	py := pythonOrSkip(t)
	r := rand.New(rand.NewPCG(23, 1))
	var set caseSet
	add := set.add
	run := func(f FilterFunc, err error, resp, input string) (any, error) {
		if err != nil {
			return nil, err
		}
		v, err := f(Values{Items: []string{resp}}, map[string]any{"input": input})
		if err != nil {
			return nil, err
		}
		return v.Items[0], nil
	}
	multiKW := map[string]any{"group_select": int64(-1), "ignore_case": true, "ignore_punctuation": true, "regex_pattern": `(\([A-Z]\))`}
	mapPy := map[string]any{"group_select": -1, "ignore_case": true, "regex_pattern_to_value": map[string]any{`\b(no|not plausible)\b`: "no", `\b(yes|plausible)\b`: "yes"}}
	mapGo := map[string]any{"group_select": int64(-1), "ignore_case": true, "regex_pattern_to_value": []any{[]any{`\b(no|not plausible)\b`, "no"}, []any{`\b(yes|plausible)\b`, "yes"}}}
	multi, multiErr := bbhMultiChoice(multiKW)
	mapF, mapErr := bbhMapRegex(mapGo)
	for range casesPerFunction {
		input, resp := "Q "+genFrom(r, bbhPieces, 10), genFrom(r, bbhPieces, 10)
		add(pyCase{Kind: "bbh_multi", S: resp, T: input, KW: multiKW}, func() (any, error) { return run(multi, multiErr, resp, input) })
		resp2 := genFrom(r, bbhPieces, 8)
		add(pyCase{Kind: "bbh_map", S: resp2, T: input, KW: mapPy}, func() (any, error) { return run(mapF, mapErr, resp2, input) })
		words := genFrom(r, []string{"apple ", "Banana ", "cherry ", "date ", "fig ", "é ", "x "}, 5)
		sortIn, resp3 := "Sort the following words. List: "+words, genFrom(r, bbhPieces, 8)+" "+words
		add(pyCase{Kind: "bbh_sort", S: resp3, T: sortIn}, func() (any, error) {
			return run(bbhWordSort, nil, resp3, sortIn)
		})
		q, cot := genFrom(r, bbhPieces, 6), "A: Let's think step by step. "+genFrom(r, bbhPieces, 6)
		opts := []any{}
		for n := r.IntN(12); n > 0; n-- {
			opts = append(opts, genFrom(r, bbhPieces, 3))
		}
		add(pyCase{Kind: "mmlu_pro", S: q, T: cot, Opts: opts}, func() (any, error) {
			doc := map[string]any{"question": q, "options": opts, "cot_content": cot}
			text, err := mmluProExample(doc)
			if err != nil {
				return nil, err
			}
			target, err := mmluProTarget(doc)
			return []string{text, target}, err
		})
	}
	set.check(t, py)
}

// minervaPieces are the fragments Minerva answers are built from: every
// token normalize_final_answer rewrites or removes, plus plain text.
var minervaPieces = []string{"Final Answer: The final answer is", " I hope it is correct.", ". I hope it is correct.", "$", "=",
	"\\boxed{", "\\text{", "\\textbf{", "\\overline{", "}", "{", "frac", "\\frac", "sqrt", "\\sqrt", "12", ",", "100,000", "a ",
	"an ", ".", " ", "\\ ", "mbox", "\\text{and}", "ft", "\\left(", "units", "\\%", "^\\circ", "\n", "x", "²", "٣", "\\!", "\\;", "\""}

// TestMinervaMatchesPython compares the ported Minerva functions with
// lm-eval's (sympy and math_verify stand-ins let its utils.py import; the
// functions compared do not use them).
func TestMinervaMatchesPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	py := pythonOrSkip(t)
	r := rand.New(rand.NewPCG(25, 1))
	var set caseSet
	add := set.add
	for range casesPerFunction {
		s := genFrom(r, minervaPieces, 8)
		add(pyCase{Kind: "minerva_norm", S: s}, func() (any, error) { return normalizeFinalAnswer(s), nil })
		u := genFrom(r, minervaPieces, 8)
		add(pyCase{Kind: "minerva_unnorm", S: u}, func() (any, error) { return getUnnormalizedAnswer(u), nil })
		sol := genFrom(r, minervaPieces, 10)
		add(pyCase{Kind: "minerva_docs", S: sol}, func() (any, error) {
			out, err := minervaProcessDocs(false)(Rows{Docs: []map[string]any{{"problem": "p", "solution": sol}}}, DocsEnv{})
			if err != nil {
				return nil, err
			}
			return []any{out.Docs[0]["answer"]}, nil
		})
	}
	b, err := os.ReadFile(filepath.Join(sharedtest.Root(t), "tasks/lm-eval/minerva_math/utils.py"))
	require.NoError(t, err)
	add(pyCase{Kind: "minerva_samples"}, func() (any, error) {
		docs, _, err := pyReturnedDicts(string(b), "list_fewshot_samples")
		return docs, err
	})
	set.check(t, py)
}
