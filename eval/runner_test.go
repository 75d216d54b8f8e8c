package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func fakeProblems(n int) []Problem {
	ps := make([]Problem, n)
	for i := range ps {
		q := fmt.Sprintf("question %d %s", i, strings.Repeat("x", (i*7)%23))
		ps[i] = Problem{ID: fmt.Sprint(i), Question: q, Prompt: "Q: " + q + "\nA:", Target: string(rune('a' + i%26))}
	}
	return ps
}

type fakeRun struct {
	batch, chunk int
	devices      []string
	shard        string
	problems     int
	// engine adjusts each worker's engine (failures, cancellation hooks).
	engine func(worker int, e *fakeEngine)
}

func (f fakeRun) runner(dir string) *Runner {
	if f.batch == 0 {
		f.batch = 4
	}
	if f.chunk == 0 {
		f.chunk = 5
	}
	if len(f.devices) == 0 {
		f.devices = []string{"cpu"}
	}
	if f.problems == 0 {
		f.problems = 11
	}
	cfg := Config{
		Model: "fake-model", Task: "fake_task", Dataset: "fake.jsonl", Out: dir,
		Devices: f.devices, BatchSize: f.batch, PrefillChunk: f.chunk, MaxSeqLen: 256,
		Samplers: []sampler.Spec{{Name: "greedy"}, {Name: "sample", Params: map[string]any{"temperature": 1.0}}},
		Seeds:    []uint64{0, 1}, Repeats: 2, Shard: f.shard,
	}
	samplers := []SamplerFactory{fakeSampler{"greedy"}, fakeSampler{"sample"}}
	return &Runner{
		Config: cfg,
		Task: TaskSpec{Name: "fake_task", Stops: []string{"Q:", "zz"}, MaxNewTokens: 40,
			Filters: []datasets.FilterPipeline{{Name: "strict-match", Steps: []datasets.FilterStep{{Function: "take_first"}}}},
			Metrics: []datasets.MetricSpec{{Metric: "exact_match"}}},
		Problems:  fakeProblems(f.problems),
		Tokenizer: fakeTokenizer{},
		Samplers:  samplers,
		OpenEngine: func(_ context.Context, w int, _ string) (Engine, func() error, error) {
			e := newFakeEngine(f.batch, f.chunk)
			if f.engine != nil {
				f.engine(w, e)
			}
			return e, nil, nil
		},
		EOS:        []int32{fakeEOS},
		Provenance: Provenance{DType: "F32", SamplerOrder: "test"},
		Outputs:    Outputs{Grader: fakeGrader{}, Arrow: jsonArrow{}},
		Log:        slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// outputs reads the result files whose bytes must not depend on scheduling.
//
// The run key (fingerprint@start) names one run, so two runs of the same
// sweep differ in it and nothing else: it is replaced by "<run_key>".
func outputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	m, err := ReadManifest(dir)
	require.NoError(t, err)
	require.Equal(t, m.Key(), m.RunKey)
	out := map[string]string{}
	for _, name := range []string{ResultsJSONFile, SamplesFile, ResultsArrow, TracesArrow, ProblemsFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		out[name] = strings.ReplaceAll(string(b), m.RunKey, "<run_key>")
	}
	return out
}

func reference(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	m, err := fakeRun{batch: 1, chunk: 1000}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, StatusComplete, m.Status)
	return outputs(t, dir)
}

func TestRunIsIndependentOfScheduling(t *testing.T) {
	want := reference(t)
	assert.Contains(t, want[ResultsJSONFile], `"exact_match,strict-match"`)
	assert.Contains(t, want[ResultsJSONFile], `"exact_match_stderr,strict-match"`)
	// 11 problems × 2 samplers × 2 seeds × 2 repeats.
	assert.Equal(t, 88, strings.Count(want[SamplesFile], "\n"))
	for _, tc := range []fakeRun{
		{batch: 4, chunk: 5},
		{batch: 16, chunk: 3},
		{batch: 4, chunk: 1, devices: []string{"cpu", "cpu"}},
		{batch: 3, chunk: 64, devices: []string{"cpu:0", "cpu:1", "cpu:2"}},
	} {
		t.Run(fmt.Sprintf("batch%d_chunk%d_workers%d", tc.batch, tc.chunk, len(tc.devices)), func(t *testing.T) {
			dir := t.TempDir()
			_, err := tc.runner(dir).Run(context.Background())
			require.NoError(t, err)
			assert.Equal(t, want, outputs(t, dir))
		})
	}
}

func TestFinishReasonsAndStops(t *testing.T) {
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	reasons := map[string]int{}
	for _, r := range recs {
		reasons[r.FinishReason]++
		assert.Len(t, r.Trace, r.GenTokens)
		assert.NotContains(t, r.Response, "Q:", "the stop string and what follows are cut")
		assert.NotContains(t, r.Response, "zz")
		switch r.FinishReason {
		case FinishLength:
			assert.Equal(t, 40, r.GenTokens)
		case FinishEOS:
			assert.Equal(t, int32(fakeEOS), r.Trace[len(r.Trace)-1].Token)
		}
	}
	// The fake model is tuned so every reason occurs; if this fails the test lost coverage.
	for _, reason := range []string{FinishStop, FinishEOS, FinishLength} {
		assert.Positive(t, reasons[reason], "finish reason %s never occurred: %v", reason, reasons)
	}
}

func TestResumeAfterCancellation(t *testing.T) {
	want := reference(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := fakeRun{batch: 4, engine: func(_ int, e *fakeEngine) {
		e.onStep = func(n int64) {
			if n == 60 {
				cancel()
			}
		}
	}}.runner(dir)
	_, err := r.Run(ctx)
	require.ErrorIs(t, err, ErrInterrupted)
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	require.NotEmpty(t, recs, "some items finish before the cancel")
	require.Less(t, len(recs), 88)
	_, err = os.Stat(filepath.Join(dir, ResultsJSONFile))
	require.ErrorIs(t, err, os.ErrNotExist, "no result files for an unfinished run")

	m, err := fakeRun{batch: 16}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, len(recs), m.Stats.ItemsResumed)
	assert.Equal(t, 88-len(recs), m.Stats.ItemsThisRun)
	assert.Equal(t, want, outputs(t, dir))
}

func TestResumeAfterTornJournalWrite(t *testing.T) {
	want := reference(t)
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	// Simulate a crash mid-append: keep 30 whole lines and half of the 31st, and
	// remove the result files a finished run would have written.
	path := filepath.Join(dir, JournalFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	torn := strings.Join(lines[:30], "") + lines[30][:len(lines[30])/2]
	require.NoError(t, os.WriteFile(path, []byte(torn), 0o644))
	for _, f := range []string{ResultsJSONFile, SamplesFile, ResultsArrow, TracesArrow} {
		require.NoError(t, os.Remove(filepath.Join(dir, f)))
	}

	m, err := fakeRun{batch: 2}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 30, m.Stats.ItemsResumed)
	assert.Equal(t, 58, m.Stats.ItemsThisRun)
	assert.Equal(t, want, outputs(t, dir))
	recs, err := ReadJournal(path)
	require.NoError(t, err)
	assert.Len(t, recs, 88, "nothing counted twice")
}

// A line that holds no record (a torn write in a journal written before appends
// were cut back) is dropped on resume, its item runs again, and the results equal
// an uninterrupted run's.
func TestResumeDropsCorruptJournalLine(t *testing.T) {
	want := reference(t)
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	path := filepath.Join(dir, JournalFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	lines[3] = "{not json\n"
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))
	m, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, m.Stats.ItemsThisRun, "only the dropped item ran again")
	assert.Equal(t, want, outputs(t, dir))
}

func TestFailingWorkerKeepsOtherWorkersResults(t *testing.T) {
	want := reference(t)
	dir := t.TempDir()
	r := fakeRun{batch: 2, devices: []string{"cpu:0", "cpu:1"}, engine: func(w int, e *fakeEngine) {
		if w == 1 {
			e.failAfter = 15
		}
	}}.runner(dir)
	_, err := r.Run(context.Background())
	require.ErrorContains(t, err, "worker 1 (cpu:1)")
	require.ErrorContains(t, err, "fake device lost")
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	// Worker 0 drained the queue; only worker 1's two in-flight items are missing.
	assert.GreaterOrEqual(t, len(recs), 88-2)

	_, err = fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, outputs(t, dir))
}

func TestResumeRefusesAnotherRun(t *testing.T) {
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	r := fakeRun{}.runner(dir)
	r.Config.Seeds = []uint64{5}
	_, err = r.Run(context.Background())
	require.ErrorContains(t, err, "holds a different run")

	r = fakeRun{shard: "1/2"}.runner(dir)
	_, err = r.Run(context.Background())
	require.ErrorContains(t, err, "holds shard 0/1, not 1/2")
}

func TestShardsMergeToTheSingleRun(t *testing.T) {
	want := reference(t)
	root := t.TempDir()
	var dirs []string
	for i := 0; i < 3; i++ {
		dir := filepath.Join(root, fmt.Sprintf("shard%d", i))
		_, err := fakeRun{batch: 3 + i, shard: fmt.Sprintf("%d/3", i)}.runner(dir).Run(context.Background())
		require.NoError(t, err)
		dirs = append(dirs, dir)
	}
	out := filepath.Join(root, "merged")
	o := Outputs{Grader: fakeGrader{}, Arrow: jsonArrow{}}
	require.ErrorContains(t, Merge(out, dirs[:2], o), "shards [2] of 3 are missing")
	require.ErrorContains(t, Merge(out, []string{dirs[0], dirs[0], dirs[1]}, o), "are both shard 0/3")
	require.NoError(t, Merge(out, []string{dirs[2], dirs[0], dirs[1]}, o))
	assert.Equal(t, want, outputs(t, out))
	m, err := ReadManifest(out)
	require.NoError(t, err)
	assert.Equal(t, StatusComplete, m.Status)
	assert.Len(t, m.MergedFrom, 3)
}

func TestRescoreRewritesGrades(t *testing.T) {
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	before, after, err := Rescore(dir, Outputs{Grader: alwaysRight{}, Arrow: jsonArrow{}})
	require.NoError(t, err)
	require.Len(t, after, 4)
	for k, v := range after {
		assert.Equal(t, 1.0, v, k)
		assert.Less(t, before[k], 1.0, k)
	}
}

type alwaysRight struct{}

func (alwaysRight) Grade(_ TaskSpec, _ Reference, responses []string) ([]Grade, error) {
	out := make([]Grade, len(responses))
	for i := range out {
		out[i] = scoredAll(true, "", "")
	}
	return out, nil
}

func TestLongPromptsAreCutOnTheLeft(t *testing.T) {
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	r.Config.MaxSeqLen = 60 // 40 new tokens leave 20 for the prompt
	m, err := r.Run(context.Background())
	require.NoError(t, err)
	ps, err := ReadProblems(dir)
	require.NoError(t, err)
	cut := 0
	for _, p := range ps {
		full, _ := fakeTokenizer{}.Encode(p.Prompt)
		assert.Equal(t, len(full) > 20, p.Truncated, p.ID)
		assert.Equal(t, min(20, len(full)), p.PromptTokens, p.ID)
		cut += b2i(p.Truncated)
	}
	assert.Positive(t, cut)
	assert.Equal(t, cut, m.Stats.PromptsCut)
}

func TestFirstTokenArgmaxIsRecorded(t *testing.T) {
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	r.Config.FirstTokenArgmax = true
	m, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.True(t, m.FirstTokenArgmax)
	recs, err := ReadJournal(filepath.Join(dir, JournalFile))
	require.NoError(t, err)
	for _, rec := range recs {
		require.NotEmpty(t, rec.Trace)
		assert.Equal(t, sampler.StrategyFirstTokenArgmax, rec.Trace[0].Strategy)
		assert.Equal(t, 1, rec.Trace[0].Survivors, "as the sampler's own argmax records it")
		for _, step := range rec.Trace[1:] {
			assert.Equal(t, sampler.Strategy("fake"), step.Strategy)
		}
	}
}
