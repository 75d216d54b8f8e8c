package loglik

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// Softmax against lm-eval's own utils.softmax (its source read from ../shared's
// copy of lm-eval's core and run with numpy in Debian's python3): every
// probability within 2 ulps — the sum is numpy's pairwise sum; the remaining
// last-bit differences are math.Exp's against the C library's exp, which only
// reach lm-eval's printed arrays (8 digits) at a rounding boundary. Sizes cross
// numpy's pairwise-sum blocks (8, 128).
func TestSoftmaxMatchesLMEval(t *testing.T) {
	py := pythontest.Python(t, "numpy")
	utils := sharedtest.Path(t, "tasks/lm-eval-core/utils.py")
	rng := rand.New(rand.NewPCG(3, 5))
	var cases [][]float64
	var in strings.Builder
	for i := range 400 {
		n := 2 + rng.IntN(12)
		if i%10 == 0 {
			n = 2 + rng.IntN(300)
		}
		lls := make([]float64, n)
		vals := make([]string, n)
		for j := range lls {
			lls[j] = -rng.ExpFloat64() * math.Pow(10, float64(rng.IntN(4)))
			vals[j] = strconv.FormatFloat(lls[j], 'g', -1, 64)
		}
		cases = append(cases, lls)
		in.WriteString("[" + strings.Join(vals, ",") + "]\n")
	}
	script := `import ast, json, sys, numpy as np
src = open(sys.argv[1]).read()
fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "softmax")
ns = {"np": np}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "utils.py", "exec"), ns)
for line in sys.stdin:
    print(" ".join(repr(float(p)) for p in ns["softmax"](np.array(json.loads(line)))))`
	cmd := exec.Command(py, "-c", script, utils)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(cases))
	differ, total := 0, 0
	for i, l := range lines {
		got := Softmax(cases[i])
		for j, f := range strings.Fields(l) {
			want, err := strconv.ParseFloat(f, 64)
			require.NoError(t, err)
			total++
			if got[j] != want {
				differ++
				assert.InEpsilon(t, want, got[j], 4e-16, "case %d element %d", i, j)
			}
		}
	}
	t.Logf("%d of %d probabilities differ from numpy's in the last bits", differ, total)
}
