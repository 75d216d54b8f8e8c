package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
	"github.com/stretchr/testify/require"
)

// lm-eval's samples file holds brier_score's item as lm-eval writes it:
// [gold, str(prob_norm)], prob_norm = lm-eval's utils.softmax of the choices'
// log-likelihoods, a numpy array json.dumps prints with str(). The expected
// line comes from numpy itself (Debian's python3) on the logged log-likelihoods.
func TestRunScoredBrierItemAsLMEval(t *testing.T) {
	py := pythontest.Python(t, "numpy")
	out, _, samples := runScoredTask(t, "arc_tiny")
	lm, _ := filepath.Glob(filepath.Join(out, "lm-eval", "*", "*", "samples_arc_tiny_*.jsonl"))
	require.Len(t, lm, 1)
	f, err := os.Open(lm[0])
	require.NoError(t, err)
	defer f.Close()
	var got []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		got = append(got, string(line["brier_score"]))
	}
	require.Len(t, got, len(samples))

	choices := []int{3, 2, 4} // arc_tiny's docs; acc_mutual_info doubles the requests
	var in strings.Builder
	for d, s := range samples {
		vals := make([]string, choices[d])
		for i, ll := range s.lls(choices[d]) {
			vals[i] = strconv.FormatFloat(ll, 'g', -1, 64)
		}
		in.WriteString("[" + strings.Join(vals, ",") + "]\n")
	}
	cmd := exec.Command(py, "-c", `import json, sys, numpy as np
for line in sys.stdin:
    x = np.array(json.loads(line))
    e_x = np.exp(x - np.max(x))  # lm_eval.utils.softmax
    print(json.dumps([0, e_x / e_x.sum()], default=str))`)
	cmd.Stdin = strings.NewReader(in.String())
	want, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", want)
	require.Equal(t, strings.Split(strings.TrimSpace(string(want)), "\n"), got)
}
