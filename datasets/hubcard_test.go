package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

// gpqaSnapshot lays out a hub-cache snapshot of Idavidrein/gpqa as the hub
// stores it: gpqa_main.csv at the repo root (a link to the shared file), and
// the card if given.
func gpqaSnapshot(t *testing.T, card string) (cache, snap string) {
	cache = t.TempDir()
	repo := filepath.Join(cache, "datasets--Idavidrein--gpqa")
	snap = filepath.Join(repo, "snapshots", "0123abc")
	require.NoError(t, os.MkdirAll(snap, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "refs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("0123abc"), 0o644))
	require.NoError(t, os.Symlink(sharedtest.Path(t, "tasks/data/Idavidrein/gpqa/gpqa_main.csv"), filepath.Join(snap, "gpqa_main.csv")))
	if card != "" {
		require.NoError(t, os.WriteFile(filepath.Join(snap, "README.md"), []byte(card), 0o644))
	}
	return cache, snap
}

const gpqaCard = `---
license: cc-by-4.0
configs:
- config_name: gpqa_extended
  data_files: gpqa_extended.csv
- config_name: gpqa_main
  data_files: gpqa_main.csv
---
# GPQA
`

func TestLocateHubCSVByDatasetCard(t *testing.T) {
	cache, snap := gpqaSnapshot(t, gpqaCard)
	task := &Task{Name: "gpqa_main_cot_zeroshot", DatasetPath: "Idavidrein/gpqa", DatasetName: "gpqa_main"}
	files, err := DataSource{HubCaches: []string{cache}}.Locate(task, "train")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(snap, "gpqa_main.csv")}, files, "a pattern without split is the train split")

	_, err = DataSource{HubCaches: []string{cache}}.Locate(task, "test")
	require.ErrorIs(t, err, ErrDataNotFound, "the card gives gpqa_main only a train split")

	docs, err := loadDocFiles(files)
	require.NoError(t, err)
	assert.Equal(t, "32/(9π^2)", docs.Problems[0].Doc["Correct Answer"], "the shared file's first row")
}

func TestLocateHubCustomNameWithoutCard(t *testing.T) {
	cache, snap := gpqaSnapshot(t, "")
	task := &Task{Name: "gpqa_main_cot_zeroshot", DatasetPath: "Idavidrein/gpqa", DatasetName: "gpqa_main"}
	_, err := DataSource{HubCaches: []string{cache}}.Locate(task, "train")
	require.ErrorIs(t, err, ErrDataNotFound)
	assert.Contains(t, err.Error(), filepath.Join(snap, "gpqa_main.csv"), "the file is named")
	assert.Contains(t, err.Error(), "pass it with --dataset")
}

func TestLocateHubCardSplitList(t *testing.T) {
	cache, snap := gpqaSnapshot(t, "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: \"mine/eval-*.parquet\"\n  - split: train\n    path: [gpqa_main.csv]\n---\n")
	writeHubParquet(t, filepath.Join(snap, "mine", "eval-a.parquet"), "q1")
	task := &Task{Name: "t", DatasetPath: "Idavidrein/gpqa"}
	files, err := DataSource{HubCaches: []string{cache}}.Locate(task, "test")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(snap, "mine", "eval-a.parquet")}, files, "no dataset_name: the default config")
	files, err = DataSource{HubCaches: []string{cache}}.Locate(task, "train")
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(snap, "gpqa_main.csv")}, files)
}

func TestLocateHubCardBroken(t *testing.T) {
	cache, _ := gpqaSnapshot(t, "---\nconfigs: [\n---\n")
	task := &Task{Name: "t", DatasetPath: "Idavidrein/gpqa", DatasetName: "gpqa_main"}
	_, err := DataSource{HubCaches: []string{cache}}.Locate(task, "train")
	require.ErrorIs(t, err, ErrDataNotFound)
	assert.Contains(t, err.Error(), "README.md (unreadable: ")
}

func TestSplitPatterns(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       map[string][]string
		err        string
	}{
		{"string", "a.csv", map[string][]string{"train": {"a.csv"}}, ""},
		{"list", "[a.csv, b/*.csv]", map[string][]string{"train": {"a.csv", "b/*.csv"}}, ""},
		{"splits", "[{split: test, path: t.csv}, {split: train, path: [x, y]}]", map[string][]string{"test": {"t.csv"}, "train": {"x", "y"}}, ""},
		{"mapping", "{test: t.csv, validation: [v1, v2]}", map[string][]string{"test": {"t.csv"}, "validation": {"v1", "v2"}}, ""},
		{"dup split", "[{split: test, path: a}, {split: test, path: b}]", nil, "listed twice"},
		{"extra key", "[{split: test, path: a, x: 1}]", nil, "want {split, path}"},
		{"mixed", "[a.csv, {split: test, path: b}]", nil, "want {split, path}"},
		{"number", "3", nil, "got int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			require.NoError(t, yaml.Unmarshal([]byte(tc.yaml), &v))
			got, err := splitPatterns(v)
			if tc.err != "" {
				assert.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func FuzzCardDataFiles(f *testing.F) {
	f.Add(gpqaCard, "gpqa_main")
	f.Add("---\nconfigs:\n- data_files:\n  - split: test\n    path: x\n---\n", "")
	f.Add("---\r\nconfigs: 3\r\n---", "x")
	f.Fuzz(func(t *testing.T, card, config string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte(card), 0o644); err != nil {
			t.Skip()
		}
		files, err := cardDataFiles(dir, config)
		if err != nil && files != nil {
			t.Fatalf("files with an error: %v", files)
		}
	})
}
