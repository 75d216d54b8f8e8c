package eval

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// TestGPQAShuffleMatchesPython runs GPQA's process_docs in lm-eval's Python
// (random.seed(seed), then the real utils.py) and through the Go port with
// datasets.PyRandom on 20,000 generated rows in batches of 1-12 under
// varied seeds, answers that repeat or are None, whitespace and " [title]"
// included: the same choices and answer letters.
func TestGPQAShuffleMatchesPython(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	py := sharedtest.Python(t)
	ix, err := datasets.NewIndex(sharedtest.Path(t, "tasks/lm-eval"))
	require.NoError(t, err)
	task, err := ix.Task("gpqa_main_generative_n_shot")
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(26, 1))
	pieces := []any{"1/2", " 1/2", "1/2\n", "a [title] b", "x  y", "π", "", nil, "Ozone"}
	type batch struct {
		Seed int              `json:"seed"`
		Rows []map[string]any `json:"rows"`
	}
	var batches []batch
	rows := 0
	for rows < 20000 {
		b := batch{Seed: r.IntN(5000)}
		for range 1 + r.IntN(12) {
			row := map[string]any{}
			for _, c := range []string{"Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3", "Correct Answer"} {
				row[c] = pieces[r.IntN(len(pieces))]
			}
			b.Rows = append(b.Rows, row)
			rows++
		}
		batches = append(batches, b)
	}
	var in strings.Builder
	for _, b := range batches {
		line, _ := json.Marshal(b)
		in.Write(append(line, '\n'))
	}
	cmd := exec.Command(py, filepath.Join("testdata", "gpqa_ref.py"), sharedtest.Root(t))
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(batches))
	mismatches := 0
	for i, b := range batches {
		var want struct {
			OK  json.RawMessage `json:"ok"`
			Err string          `json:"err"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[i]), &want))
		got, err := task.ProcessDocs.Apply(hooks.Rows{Docs: b.Rows}, hooks.DocsEnv{Random: datasets.NewPyRandom(int64(b.Seed))})
		require.NoError(t, err)
		var pairs [][2]any
		for _, d := range got.Docs {
			pairs = append(pairs, [2]any{d["choices"], d["answer"]})
		}
		g, _ := json.Marshal(pairs)
		if !assert.JSONEq(t, string(want.OK), string(g), "batch %d seed %d", i, b.Seed) {
			if mismatches++; mismatches > 5 {
				t.FailNow()
			}
		}
	}
}
