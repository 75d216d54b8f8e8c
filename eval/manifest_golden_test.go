package eval

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/rundir"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// everyField is a manifest with every field set, the nested ones included.
func everyField() *Manifest {
	shots, multi := 8, true
	finished := time.Date(2026, 11, 22, 1, 30, 0, 500, time.UTC)
	return &Manifest{
		Format: 1, Fingerprint: "0123456789abcdef0123456789abcdef", RunKey: "0123456789abcdef0123456789abcdef@2026-11-21T22:00:00.000000123Z",
		Status: StatusComplete,
		Config: Config{
			Name: "golden", Model: "/models/smol", Tokenizer: "/models/tok", Backend: "cuda", Devices: []string{"cuda:0", "cuda:1"},
			Threads: 3, BatchSize: 16, MaxSeqLen: 4096, PrefillChunk: 128, PrefixCacheMB: 512, NoPrefixCache: true, NoParquet: true,
			MatmulPrecision: "bf16", Candidates: 256, AttnMode: "padded", PadLen: 4096,
			Task: "gsm8k_cot", IncludePaths: []string{"tasks/a"}, PythonHooks: true, Python: "python3.12", Dataset: "data/test.parquet", TrainDataset: "data/train.parquet",
			DataDirs: []string{"mirror"}, NumFewshot: &shots, SystemInstruction: "Be brief.", FewShot: "old.jsonl", ChatTemplate: true,
			FewshotAsMultiturn: &multi, Limit: 10, MaxNewTokens: 64, FirstTokenArgmax: true,
			Samplers: []sampler.Spec{
				{Name: "greedy"},
				{Name: "min_p", Label: "mp", Params: map[string]any{"min_p": 0.1, "temperature": 1.5, "order": "vllm-v1"}},
			},
			Seeds: []uint64{0, 18446744073709551615}, Repeats: 2, Shard: "1/4", Out: "runs/golden", PrimaryFilter: "strict-match",
		},
		Code: CodeInfo{Module: "github.com/entropix-eval/entropix-eval", Version: "(devel)", Revision: "abc123", Modified: true, GoVersion: "go1.26.8"},
		Provenance: Provenance{
			Model:    []FileSum{{Path: "/models/smol/model.safetensors", Bytes: 42, SHA256: "aa"}},
			Datasets: []FileSum{{Path: "data/test.parquet", Bytes: 7, SHA256: "bb"}},
			DType:    "BF16", WeightDType: "BF16", SamplerOrder: "greedy: hf; mp: vllm-v1", ChatTemplate: "{{ messages }}",
			Python: "/usr/bin/python3.12 (Python 3.12.3)",
		},
		Backend: "cuda", Devices: []string{"cuda:0", "cuda:1"}, DeviceNames: []string{"NVIDIA H100", "NVIDIA H100"}, BatchSize: 16,
		Samplers: []SamplerInfo{
			{Label: "greedy", Spec: sampler.Spec{Name: "greedy"}, Description: json.RawMessage(`{"name":"greedy"}`)},
			{Label: "mp", Spec: sampler.Spec{Name: "min_p", Label: "mp", Params: map[string]any{"min_p": 0.1}}, Description: json.RawMessage(`"min_p 0.1"`)},
		},
		FirstTokenArgmax: true,
		Task: TaskSpec{
			Name: "gsm8k_cot", OutputType: "multiple_choice", Stops: []string{"Q:", "\n\n"}, MaxNewTokens: 256,
			Filters: []datasets.FilterPipeline{{Name: "strict-match", Steps: []datasets.FilterStep{
				{Function: "regex", Params: map[string]any{"regex_pattern": "#### (\\-?[0-9\\.\\,]+)"}},
				{Function: "take_first", Port: &hooks.PortRef{Folder: "gsm8k", Module: "utils", Function: "f", SHA256: "cc"}},
				{Function: "utils.MapFilter", Params: map[string]any{"mapping": map[string]any{"a": "b"}},
					Python: &datasets.PythonHook{Key: "filter_list[0].filter[2].function", Kind: "filter", File: "tasks/a/utils.py", Function: "MapFilter", SHA256: "ee"}},
			}}},
			Metrics: []datasets.MetricSpec{
				{Metric: "exact_match", Aggregation: "mean", HigherIsBetter: true, IgnoreCase: true, IgnorePunctuation: true, IgnoreNumbers: true, RegexesToIgnore: []string{","}},
				{Metric: "utils.score", Aggregation: "mean", HigherIsBetter: true, Args: map[string]any{"k": 2},
					Python: &datasets.PythonHook{Key: "metric_list[1].metric", Kind: "metric", File: "tasks/a/utils.py", Function: "score", SHA256: "ff"}},
			},
			Repeats: 2, SplitSize: 1319, Config: map[string]any{"num_fewshot": 8, "task": "gsm8k_cot"},
			ProcessResults: &hooks.PortRef{Folder: "gsm8k", Module: "utils", Function: "process_results", SHA256: "dd"},
			PythonResults:  &datasets.PythonHook{Key: "process_results", Kind: "process_results", File: "tasks/a/utils.py", Function: "process_results", SHA256: "aa11"},
		},
		Problems: 10, Shard: Shard{Index: 1, Count: 4},
		Jobs:    []Job{{SamplerIndex: 1, Sampler: "mp", Seed: 18446744073709551615, Repeat: 1}},
		Started: time.Date(2026, 11, 21, 22, 0, 0, 123, time.UTC), Finished: &finished,
		Stats: &RunStats{WallSeconds: 1.5, EngineSeconds: 1.25, OutsideShare: 0.1, GeneratedTokens: 100, ItemsThisRun: 4,
			SequencesDecoded: 3, SequencesRecorded: 4, ItemsResumed: 1, PromptsCut: 2, PromptTokens: 300, PrefillComputed: 200, PrefixHits: 1},
		MergedFrom: []string{"shard-0", "shard-1"},
	}
}

// TestManifestBytesUnchanged: manifest.json's bytes and the run's fingerprint,
// every field set, are those the code of main at df1d51f produced (before the
// manifest type moved to package rundir; testdata/manifest-every-field.json
// was written by it), and the file reads back into the same manifest. A run
// directory written before the move therefore resumes after it.
func TestManifestBytesUnchanged(t *testing.T) {
	dir := t.TempDir()
	m := everyField()
	fp, err := fingerprint(m)
	require.NoError(t, err)
	assert.Equal(t, "1af24f54ae937fd98c158316eb23fcc4", fp)
	require.NoError(t, writeManifest(dir, m))
	got, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "manifest-every-field.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	back, err := ReadManifest(dir)
	require.NoError(t, err)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	first, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, string(first), string(again))
}

// TestManifestEveryFieldReadByNode: the manifest with every field set (the
// optional ones a run rarely writes included) is read back key by key, exactly
// as spelled, by node against rundir.ManifestSchema (the values are made up, so
// only the keys and types are checked; a real run's manifest gets the full
// check in cmd/entropix-eval's end-to-end test).
func TestManifestEveryFieldReadByNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("ENTROPIX_ARROWCHECK") == "1" {
			t.Fatal("ENTROPIX_ARROWCHECK=1 but node is not on PATH")
		}
		t.Skip("node is not on PATH")
	}
	schema, err := json.Marshal(rundir.ManifestSchema())
	require.NoError(t, err)
	schemaPath := filepath.Join(t.TempDir(), "schema.json")
	require.NoError(t, os.WriteFile(schemaPath, schema, 0o644))
	script := filepath.Join("..", "reports", "arrowcheck", "checkmanifest.mjs")
	out, err := exec.Command(node, script, "--schema-only", filepath.Join("testdata", "manifest-every-field.json"), schemaPath).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("%s", out)
}
