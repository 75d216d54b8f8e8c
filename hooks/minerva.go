package hooks

// minerva_math (and minerva_math500): lm_eval/tasks/minerva_math/utils.py.
// Its process_results scores exact_match by parsing both answers with
// sympy's LaTeX parser and simplifying their difference, and math_verify with
// the math_verify package: neither has a Go equivalent that gives the same
// verdicts, so the function is refused by name rather than approximated.

var minervaSources = []Source{{"minerva_math", "cf84cc3d8c089512fb40483a501481c1de54405db1e39d6ada45d5a36ab4cf15"}}

func init() {
	registerPort(Port{Function: "process_results", Sources: minervaSources,
		NotPorted: "process_results is not ported: its exact_match compares with sympy's LaTeX parser (parse_latex, simplify) and math_verify scores with the math_verify package; score these tasks with lm-eval's Python"})
}
