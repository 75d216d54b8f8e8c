package textmetrics

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/pythontest"
)

// pySacrebleu scores each corpus on stdin with sacrebleu's own code, called
// as lm-eval's "bleu" and "chrf" aggregations call it.
const pySacrebleu = `
import json, sys
import sacrebleu
for line in sys.stdin:
    items = json.loads(line)
    refs = list(zip(*[[r] for r, _ in items]))
    preds = [p for _, p in items]
    print(json.dumps([sacrebleu.corpus_bleu(preds, refs).score, sacrebleu.corpus_chrf(preds, refs).score,
                      sacrebleu.corpus_ter(preds, refs).score]))
`

// TestAgainstSacrebleuSource compares LMEvalBLEU, LMEvalCHRF and LMEvalTER with
// sacrebleu's own implementation on 2,000 generated corpora. sacrebleu is in
// neither Debian nor ../shared, so this runs only where
// ENTROPIX_SACREBLEU_SRC names a directory that imports it (a checkout of
// github.com/mjpost/sacrebleu; it needs portalocker, tabulate, colorama).
func TestAgainstSacrebleuSource(t *testing.T) {
	src := os.Getenv("ENTROPIX_SACREBLEU_SRC")
	if src == "" {
		t.Skip("ENTROPIX_SACREBLEU_SRC is not set: no sacrebleu to compare with")
	}
	py := pythontest.Python(t)
	words := []string{"the", "cat", "sat", "on", "mat", "The", "dog", "a", "1,000", "3.5", "well-known", "don't",
		"(yes)", "\"quoted\"", "end.", "x,y", "über", "ça", "naïve", "&amp;", "-", "—", "!", "?", "世界", "a.b.c", "10-20"}
	rng := rand.New(rand.NewPCG(7, 11))
	sentence := func() string {
		n := rng.IntN(14)
		if rng.IntN(10) == 0 {
			n = rng.IntN(90) // long: TER's beam and shift limits come into play
		}
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[rng.IntN(len(words))]
		}
		sep := " "
		if rng.IntN(8) == 0 {
			sep = "  "
		}
		return strings.Join(parts, sep)
	}
	corpora := make([][]Item, 2000)
	var stdin bytes.Buffer
	for i := range corpora {
		corpora[i] = make([]Item, 1+rng.IntN(6))
		pairs := make([][2]string, len(corpora[i]))
		for j := range corpora[i] {
			ref, pred := sentence(), sentence()
			if rng.IntN(3) == 0 {
				pred = ref // some overlap
			}
			corpora[i][j] = Item{Refs: []string{ref}, Pred: pred}
			pairs[j] = [2]string{ref, pred}
		}
		b, err := json.Marshal(pairs)
		require.NoError(t, err)
		stdin.Write(append(b, '\n'))
	}
	cmd := exec.Command(py, "-c", pySacrebleu)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+src)
	cmd.Stdin = &stdin
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(corpora))
	identical, maxDiff := [3]int{}, 0.0
	for i, line := range lines {
		var want [3]float64
		require.NoError(t, json.Unmarshal([]byte(line), &want))
		bleu, err := LMEvalBLEU(corpora[i])
		require.NoError(t, err)
		chrf, err := LMEvalCHRF(corpora[i])
		require.NoError(t, err)
		ter, err := LMEvalTER(corpora[i])
		require.NoError(t, err)
		for k, got := range []float64{bleu, chrf, ter} {
			d := math.Abs(got - want[k])
			maxDiff = max(maxDiff, d)
			if d == 0 {
				identical[k]++
			}
			if d > 1e-9 {
				t.Errorf("corpus %d metric %d: got %v, sacrebleu %v: %+v", i, k, got, want[k], corpora[i])
			}
		}
	}
	t.Logf("bit-identical to sacrebleu: BLEU %d, chrF %d, TER %d of %d; largest difference %g", identical[0], identical[1], identical[2], len(lines), maxDiff)
}
