package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two real processes on one run directory: the second is refused with the first's
// pid while the first finishes untouched; after a kill -9 the lock is free again.
func TestTwoRunProcessesOneDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns subprocesses")
	}
	want := reference(t)
	dir := t.TempDir()
	first, firstOut := startHelperRun(t, dir)
	require.True(t, waitForLines(filepath.Join(dir, JournalFile), 3, 20*time.Second), "first run never started: %s", firstOut)

	second, secondOut := startHelperRun(t, dir)
	err := second.Wait()
	require.Error(t, err, "the second process must be refused")
	assert.Contains(t, secondOut.String(), fmt.Sprintf("is in use by process %d", first.Process.Pid))

	require.NoError(t, first.Wait(), firstOut.String())
	assert.Equal(t, want, outputs(t, dir), "the refused process wrote nothing")

	// A holder killed with SIGKILL leaves no stale lock.
	dir2 := t.TempDir()
	third, out := startHelperRun(t, dir2)
	require.True(t, waitForLines(filepath.Join(dir2, JournalFile), 3, 20*time.Second), out.String())
	_, err = LockDir(dir2)
	require.ErrorIs(t, err, ErrLocked)
	require.NoError(t, third.Process.Kill())
	_ = third.Wait()
	l, err := LockDir(dir2)
	require.NoError(t, err, "the kernel released the killed holder's lock")
	l.Unlock()
}

func TestLockDirRefusesSecondHolderInProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := LockDir(dir)
	require.NoError(t, err)
	_, err = LockDir(dir)
	require.ErrorIs(t, err, ErrLocked)
	assert.ErrorContains(t, err, fmt.Sprintf("process %d", os.Getpid()))
	l.Unlock()
	l, err = LockDir(dir)
	require.NoError(t, err)
	l.Unlock()
}

// Temporaries of atomic writes that a kill interrupted are removed when a writer
// next takes the directory; real files and foreign dot-files stay.
func TestResumeRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	_, err := fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "figures"), 0o755))
	stale := []string{".report.html.tmp-123456", ".manifest.json.tmp-99", "figures/.accuracy.svg.tmp-7"}
	for _, s := range stale {
		require.NoError(t, os.WriteFile(filepath.Join(dir, s), []byte("half"), 0o644))
	}
	keep := []string{".gitignore", "notes.tmp-1"}
	for _, s := range keep {
		require.NoError(t, os.WriteFile(filepath.Join(dir, s), []byte("mine"), 0o644))
	}
	_, err = fakeRun{}.runner(dir).Run(context.Background())
	require.NoError(t, err)
	for _, s := range stale {
		assert.NoFileExists(t, filepath.Join(dir, s))
	}
	for _, s := range keep {
		assert.FileExists(t, filepath.Join(dir, s))
	}
}

func TestMergeRefusesAnInputAsOutputAndALockedOutput(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i := range 2 {
		d := filepath.Join(root, fmt.Sprintf("s%d", i))
		_, err := fakeRun{shard: fmt.Sprintf("%d/2", i)}.runner(d).Run(context.Background())
		require.NoError(t, err)
		dirs = append(dirs, d)
	}
	o := Outputs{Grader: fakeGrader{}, Arrow: jsonArrow{}}
	before, err := os.ReadFile(filepath.Join(dirs[0], JournalFile))
	require.NoError(t, err)
	err = Merge(dirs[0]+"/.", dirs, o)
	require.ErrorContains(t, err, "is the input")
	after, err := os.ReadFile(filepath.Join(dirs[0], JournalFile))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the input shard is untouched")

	out := filepath.Join(root, "merged")
	l, err := LockDir(out)
	require.NoError(t, err)
	require.ErrorIs(t, Merge(out, dirs, o), ErrLocked)
	l.Unlock()
	require.NoError(t, Merge(out, dirs, o))
}

// Changing what defines results names each changed field, old → new; the same
// content at another path resumes.
func TestResumeRefusalNamesChangedFields(t *testing.T) {
	dir := t.TempDir()
	r := fakeRun{}.runner(dir)
	r.Provenance.Model = []FileSum{{Path: "/models/a/config.json", Bytes: 10, SHA256: strings.Repeat("a", 64)}}
	r.Provenance.Datasets = []FileSum{{Path: "/data/fewshot/gsm8k-cot.jsonl", Bytes: 5, SHA256: strings.Repeat("c", 64)}}
	_, err := r.Run(context.Background())
	require.NoError(t, err)

	moved := fakeRun{}.runner(dir)
	moved.Provenance.Model = []FileSum{{Path: "/elsewhere/b/config.json", Bytes: 10, SHA256: strings.Repeat("a", 64)}}
	moved.Provenance.Datasets = []FileSum{{Path: "/mnt/shots/gsm8k-cot.jsonl", Bytes: 5, SHA256: strings.Repeat("c", 64)}}
	moved.Config.TrainDataset = "/mnt/shots/train.jsonl"
	_, err = moved.Run(context.Background())
	require.NoError(t, err, "a moved model and few-shot directory with the same content is the same run")

	changed := fakeRun{}.runner(dir)
	changed.Provenance.Model = []FileSum{{Path: "/models/a/config.json", Bytes: 10, SHA256: strings.Repeat("b", 64)}}
	changed.Provenance.Datasets = moved.Provenance.Datasets
	changed.Config.MaxSeqLen = 300
	_, err = changed.Run(context.Background())
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "model files: config.json sha256 aaaaaaaaaaaa… → bbbbbbbbbbbb…")
	assert.Contains(t, msg, "max_seq_len: 256 → 300")
	assert.NotContains(t, msg, "dataset and few-shot files")
	assert.NotContains(t, msg, "samplers")
}

func TestWorkBoundsRefuseHugeSweepsBeforeAnything(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := fakeRun{problems: 1}.runner(dir)
	r.Config.Repeats = 1_000_000_000
	start := time.Now()
	_, err := r.Run(context.Background())
	require.ErrorContains(t, err, "2 × 2 × 1000000000 = 4000000000 jobs")
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.NoDirExists(t, dir, "refused before the run directory is created")

	r = fakeRun{problems: 50}.runner(dir)
	r.Config.Repeats = 25_000
	_, err = r.Run(context.Background())
	require.ErrorContains(t, err, "items, more than the 4000000")
}

func TestPreflightDir(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.ErrorContains(t, PreflightDir(filepath.Join(file, "run"), 0), "not a directory")
	require.ErrorContains(t, PreflightDir(filepath.Join(root, "a", "b"), 1<<62), "the run needs at least")
	require.NoError(t, PreflightDir(filepath.Join(root, "a", "b"), 1<<20))
	assert.NoDirExists(t, filepath.Join(root, "a"), "pre-flight creates nothing")
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the probe file is gone")

	r := fakeRun{}.runner(filepath.Join(file, "run"))
	_, err = r.Run(context.Background())
	require.ErrorContains(t, err, "not a directory")
}

func TestCheckTokenIDs(t *testing.T) {
	specs := []sampler.Spec{{Name: "greedy"}, {Name: "entropix"}}
	samplers := []SamplerFactory{fakeSampler{"greedy"}, describedSampler(`{"name":"entropix","clarifying_token_id":99999,"top_k":27}`)}
	err := CheckTokenIDs(specs, samplers, 49152)
	require.ErrorContains(t, err, "samplers[1] entropix: clarifying_token_id 99999 is outside the model's vocabulary (49152 tokens)")
	require.NoError(t, CheckTokenIDs(specs, samplers, 100000))
	unset := []SamplerFactory{fakeSampler{"greedy"}, describedSampler(`{"clarifying_token_id":-1}`)}
	require.NoError(t, CheckTokenIDs(specs, unset, 10))
}

type describedSampler string

func (d describedSampler) Describe() string                             { return string(d) }
func (d describedSampler) NewSequence(uint64, string, int) TokenChooser { return nil }

func TestCheckForwardFindsNonFiniteLogits(t *testing.T) {
	e := newFakeEngine(1, 8)
	require.NoError(t, CheckForward(context.Background(), e, 1))
	nan := &nanEngine{fakeEngine: newFakeEngine(1, 8)}
	require.ErrorContains(t, CheckForward(context.Background(), nan, 1), "not finite")
}

type nanEngine struct{ *fakeEngine }

func (e *nanEngine) Step(ctx context.Context, in []engine.Input, out *[]engine.Output) error {
	if err := e.fakeEngine.Step(ctx, in, out); err != nil {
		return err
	}
	(*out)[0].Dist.LogPartition = math.NaN()
	return nil
}
