package hooks

// minerva_math (and minerva_math500): lm_eval/tasks/minerva_math/utils.py,
// and leaderboard/math (leaderboard_math_*_hard), which copies its prompt
// functions. Ported: the prompt (doc_to_text), process_docs (the answer is
// the solution's boxed text, normalised; leaderboard keeps Level 5), the
// four few-shot samples (read from the hash-checked utils.py at load time
// rather than copied), and the answer normalisation (get_unnormalized_answer,
// normalize_final_answer). Refused by name: process_results. Its exact_match
// parses both answers with sympy's LaTeX parser and compares their
// simplified difference, and math_verify needs the math_verify package; no
// Go code gives the same verdicts.

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

var minervaSources = []Source{{"minerva_math", "cf84cc3d8c089512fb40483a501481c1de54405db1e39d6ada45d5a36ab4cf15"}}

var leaderboardMathSources = []Source{{"leaderboard/math", "ac7865eec34c588da832eac8f5b2602275cf0b51ee2effa5674ed319d7db104d"}}

func init() {
	for _, src := range [][]Source{minervaSources, leaderboardMathSources} {
		registerPort(Port{Function: "doc_to_text", Sources: src, Text: minervaDocToText})
		registerPort(Port{Function: "list_fewshot_samples", Sources: src, Bind: minervaSamples})
	}
	registerPort(Port{Function: "process_docs", Sources: minervaSources, Docs: minervaProcessDocs(false)})
	registerPort(Port{Function: "process_docs", Sources: leaderboardMathSources, Docs: minervaProcessDocs(true)})
	for _, src := range [][]Source{minervaSources, leaderboardMathSources} {
		registerPort(Port{Function: "process_results", Sources: src,
			NotPorted: "process_results is not ported: its exact_match compares with sympy's LaTeX parser (parse_latex, simplify) and math_verify scores with the math_verify package; score these tasks with lm-eval's Python"})
	}
}

// minervaDocToText is doc_to_text: "Problem:\n" + problem + "\n\nSolution:".
func minervaDocToText(doc map[string]any) (string, error) {
	p, err := strColumn(doc, "problem", "minerva doc_to_text")
	if err != nil {
		return "", err
	}
	return "Problem:\n" + p + "\n\nSolution:", nil
}

// minervaProcessDocs maps each row to problem, solution and answer (the
// solution's boxed text; minerva normalises it, leaderboard does not), after
// keeping only level "Level 5" rows for the leaderboard.
func minervaProcessDocs(leaderboard bool) func(Rows, DocsEnv) (Rows, error) {
	return func(in Rows, env DocsEnv) (Rows, error) {
		if leaderboard {
			var err error
			if in, err = filterColumn("level", "Level 5")(in, env); err != nil {
				return Rows{}, err
			}
		}
		out := Rows{Docs: make([]map[string]any, len(in.Docs)), Columns: appendNew(in.Columns, "problem", "solution", "answer"), Source: in.Source}
		for i, d := range in.Docs {
			a, err := boxedAnswer(d)
			if err != nil {
				return Rows{}, fmt.Errorf("minerva process_docs: row %d: %w", i, err)
			}
			if !leaderboard {
				a = normalizeFinalAnswer(a)
			}
			nd := cloneDoc(d)
			nd["problem"], nd["solution"], nd["answer"] = d["problem"], d["solution"], a
			out.Docs[i] = nd
		}
		return out, nil
	}
}

// minervaSamples reads list_fewshot_samples' dicts from the utils.py itself.
func minervaSamples(ctx PortContext) (*Port, error) {
	b, err := ctx.ReadFile("utils.py")
	if err != nil {
		return nil, err
	}
	docs, cols, err := pyReturnedDicts(string(b), "list_fewshot_samples")
	if err != nil {
		return nil, fmt.Errorf("list_fewshot_samples: %w", err)
	}
	return &Port{Function: "list_fewshot_samples", Samples: func() Rows { return Rows{Docs: docs, Columns: cols} }}, nil
}

var finalAnswerRE = regexp.MustCompile(`Final Answer: The final answer is(.*?). I hope it is correct.`)

// getUnnormalizedAnswer is get_unnormalized_answer: the text between "Final
// Answer: The final answer is" and ". I hope it is correct." (the sentence
// appended once more first), stripped, else "[invalidanswer]".
func getUnnormalizedAnswer(text string) string {
	m := finalAnswerRE.FindStringSubmatch(text + "I hope it is correct.")
	if m == nil {
		return "[invalidanswer]"
	}
	return PyStrip(m[1])
}

var minervaSubstitutions = [][2]string{
	{"an ", ""}, {"a ", ""}, {".$", "$"}, {"\\$", ""}, {`\ `, ""}, {" ", ""}, {"mbox", "text"},
	{",\\text{and}", ","}, {"\\text{and}", ","}, {"\\text{m}", "\\text{}"},
}

var minervaRemoved = []string{"square", "ways", "integers", "dollars", "mph", "inches", "ft", "hours", "km", "units",
	"\\ldots", "sue", "points", "feet", "minutes", "digits", "cents", "degrees", "cm", "gm", "pounds", "meters", "meals",
	"edges", "students", "childrentickets", "multiples", "\\text{s}", "\\text{.}", "\\text{\ns}", "\\text{}^2",
	"\\text{}^3", "\\text{\n}", "\\text{}", `\mathrm{th}`, `^\circ`, `^{\circ}`, `\;`, `,\!`, "{,}", `"`, "\\dots"}

// The rewrites of normalize_final_answer, in order (Python re.sub, "."
// not matching a newline, as RE2's default).
var minervaRewrites = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`(.*?)(\$)(.*?)(\$)(.*)`), "$$${3}$$"},
	{regexp.MustCompile(`(\\text\{)(.*?)(\})`), "${2}"},
	{regexp.MustCompile(`(\\textbf\{)(.*?)(\})`), "${2}"},
	{regexp.MustCompile(`(\\overline\{)(.*?)(\})`), "${2}"},
	{regexp.MustCompile(`(\\boxed\{)(.*)(\})`), "${2}"},
	{regexp.MustCompile(`(frac)([^{])(.)`), "frac{${2}}{${3}}"},
	{regexp.MustCompile(`(sqrt)([^{])`), "sqrt{${2}}"},
}

// normalizeFinalAnswer is normalize_final_answer (Lewkowycz et al., 2022,
// appendix D, as lm-eval has it): the text after the last "=", the
// substitutions and removals in order (removing "ft" everywhere, so
// "\left" becomes "\le"), the LaTeX rewrites, "$" dropped, and "100,000"
// becoming "100000" when what is left is digits.
func normalizeFinalAnswer(s string) string {
	parts := strings.Split(s, "=")
	s = parts[len(parts)-1]
	for _, sub := range minervaSubstitutions {
		s = strings.ReplaceAll(s, sub[0], sub[1])
	}
	for _, r := range minervaRemoved {
		s = strings.ReplaceAll(s, r, "")
	}
	for _, rw := range minervaRewrites {
		s = rw.re.ReplaceAllString(s, rw.with)
	}
	s = strings.ReplaceAll(s, "$", "")
	if pyIsDigitString(strings.ReplaceAll(s, ",", "")) {
		s = strings.ReplaceAll(s, ",", "")
	}
	return s
}

// pyIsDigitString is str.isdigit(): non-empty, every character a digit
// (Unicode Nd, and the Numeric_Type=Digit characters Go has no table for:
// superscripts, subscripts, circled and parenthesised digits).
func pyIsDigitString(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsDigit(r) && !isNumericTypeDigit(r) {
			return false
		}
	}
	return true
}

func isNumericTypeDigit(r rune) bool {
	switch {
	case r == 0xB2 || r == 0xB3 || r == 0xB9, r == 0x2070, r >= 0x2074 && r <= 0x2079, r >= 0x2080 && r <= 0x2089,
		r >= 0x2460 && r <= 0x2468, r >= 0x2474 && r <= 0x247C, r >= 0x2488 && r <= 0x2490, r == 0x24EA,
		r >= 0x24F5 && r <= 0x24FD, r == 0x24FF, r >= 0x2776 && r <= 0x277E, r >= 0x2780 && r <= 0x2788,
		r >= 0x278A && r <= 0x2792, r >= 0x1369 && r <= 0x1371, r == 0x19DA, r >= 0x10A40 && r <= 0x10A43,
		r >= 0x1F100 && r <= 0x1F10A:
		return true
	}
	return false
}
