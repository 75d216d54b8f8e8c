package runreport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/entropix-eval/entropix-eval/reports"
)

// FuzzRunFiles feeds arbitrary manifest.json and problems.jsonl to a report:
// bad files are errors naming the file, never panics.
func FuzzRunFiles(f *testing.F) {
	f.Add([]byte(`{"task":{"name":"gsm8k"},"samplers":[{"label":"greedy","spec":{"name":"greedy"},"description":{"name":"greedy"}}]}`),
		[]byte(`{"index":0,"question":"Q?"}`+"\n"))
	f.Add([]byte(`{"samplers":[{"label":"e","description":{"low_logits_entropy":"x"}}],"config":{"seeds":[1e400]}}`), []byte("\n\n{}"))
	f.Add([]byte(`null`), []byte(`{"index": 99999999999}`))
	f.Add([]byte(`{"stats":{"wall_seconds":-1}}`), []byte(`[`))
	dir := writeRun(f, nil, concat(scored("greedy", 0, 1, 0), scored("e", 0, 0, 1)), nil)
	f.Fuzz(func(t *testing.T, manifest, problems []byte) {
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ProblemsFile), problems, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Compute(dir, Options{Paired: reports.PairedOptions{Bootstrap: bootstrapForFuzz, Permutations: 1000}})
		if err == nil && len(rep.Samplers) != 2 {
			t.Fatalf("%d samplers", len(rep.Samplers))
		}
	})
}

var bootstrapForFuzz = reportsBootstrap(50)
