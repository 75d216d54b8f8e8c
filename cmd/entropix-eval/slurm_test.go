package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slurmSubmit is the script researchers run; the tests submit through it unchanged.
var slurmSubmit = filepath.Join("..", "..", "configs", "slurm-submit.sh")

const (
	slurmShards = 4
	// Per shard: 16 problems / 4 shards × 2 samplers.
	slurmItemsPerShard = 16 / slurmShards * 2
	slurmJobTimeout    = 4 * time.Minute
)

// TestSlurm submits a small sweep to a real Slurm cluster through
// configs/slurm-submit.sh and checks that the merged run equals one unsharded run,
// also when an array task is requeued in the middle of its shard. It needs a running
// cluster: .ci/slurm-cluster.sh starts a one-node one and sets ENTROPIX_SLURM=1, which
// makes this test required; without it the test skips.
func TestSlurm(t *testing.T) {
	if os.Getenv("ENTROPIX_SLURM") != "1" {
		t.Skip("no Slurm cluster: run under .ci/slurm-cluster.sh, which sets ENTROPIX_SLURM=1")
	}
	for _, tool := range []string{"sbatch", "scontrol", "scancel"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "ENTROPIX_SLURM=1 but %s is not on PATH", tool)
	}
	root := t.TempDir()
	bin := filepath.Join(root, "entropix-eval")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	// 256 tokens a response make a shard run for a few seconds even on this tiny
	// model, long enough to requeue a task in the middle of it.
	sweep := func(name string, extra string) string {
		path := filepath.Join(root, name+".yaml")
		yaml := fmt.Sprintf(`name: slurm-ci
model: %s
backend: cpu
max_seq_len: 512
task: gsm8k_cot_zeroshot
dataset: %s
limit: 16
max_new_tokens: 256
samplers:
  - greedy
  - {name: min_p, temperature: 1.0, min_p: 0.1}
seeds: [0]
%s`, sharedtest.Path(t, "models/stories260K-hf"), sharedtest.Path(t, "data/gsm8k/sample/test-50.jsonl"), extra)
		require.NoError(t, os.WriteFile(path, []byte(yaml), 0o644))
		return path
	}
	fast := sweep("fast", "batch_size: 4\n")
	want := filepath.Join(root, "unsharded")
	require.NoError(t, runQuiet(t, context.Background(), []string{fast, "--progress", "none", "--out", want}))

	t.Run("array_then_merge", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "sweep")
		array, merge := submitSweep(t, bin, fast, out)
		waitJob(t, merge, out)
		assertSameRun(t, want, filepath.Join(out, "merged"))
		for i := 0; i < slurmShards; i++ {
			assert.Equal(t, "COMPLETED", jobState(t, fmt.Sprintf("%s_%d", array, i)))
		}
	})

	t.Run("requeued_task_resumes", func(t *testing.T) {
		// One sequence at a time, one prompt token per step: results do not depend on
		// either, and items finish one by one.
		slow := sweep("slow", "batch_size: 1\nprefill_chunk: 1\n")
		out := filepath.Join(t.TempDir(), "sweep")
		array, merge := submitSweep(t, bin, slow, out)
		task := array + "_1"
		journal := filepath.Join(out, "shard-1", eval.JournalFile)
		done := waitFor(t, slurmJobTimeout, func() (int, bool) {
			n := journalLines(journal)
			return n, n >= 1 && jobState(t, task) == "RUNNING"
		})
		msg, err := exec.Command("scontrol", "requeue", task).CombinedOutput()
		require.NoError(t, err, "scontrol requeue %s: %s", task, msg)
		require.Less(t, done, slurmItemsPerShard, "the task finished before the requeue")
		waitJob(t, merge, out)

		assert.Equal(t, "1", jobField(t, task, "Restarts"), "Slurm restarted the task once")
		log, err := os.ReadFile(filepath.Join(out, "logs", "shard-1.log"))
		require.NoError(t, err)
		resumed := regexp.MustCompile(`resumed_items=(\d+)`).FindAllStringSubmatch(string(log), -1)
		require.Len(t, resumed, 2, "two attempts logged in shard-1.log:\n%s", log)
		n, _ := strconv.Atoi(resumed[1][1])
		assert.GreaterOrEqual(t, n, done, "the second attempt resumed the journal")
		assert.Less(t, n, slurmItemsPerShard)
		assertSameRun(t, want, filepath.Join(out, "merged"))
	})
}

// submitSweep runs configs/slurm-submit.sh and returns the array and merge job ids.
func submitSweep(t *testing.T, bin, sweep, out string) (array, merge string) {
	t.Helper()
	cmd := exec.Command(slurmSubmit, sweep, strconv.Itoa(slurmShards), out, "--cpus-per-task=1", "--time=10")
	cmd.Env = append(os.Environ(), "ENTROPIX_EVAL="+bin)
	stdout, err := cmd.Output()
	require.NoError(t, err, "%s: %s", slurmSubmit, exitStderr(err))
	m := regexp.MustCompile(`(?m)^array job (\d+): .*\n^merge job (\d+): `).FindStringSubmatch(string(stdout))
	require.NotNil(t, m, "slurm-submit.sh printed no job ids:\n%s", stdout)
	t.Cleanup(func() { _ = exec.Command("scancel", m[1], m[2]).Run() })
	assert.DirExists(t, filepath.Join(out, "logs"), "logs are created before submitting")
	return m[1], m[2]
}

// waitJob waits until job ends and requires that it completed, showing the sweep's
// Slurm logs when it did not.
func waitJob(t *testing.T, job, out string) {
	t.Helper()
	var state string
	waitFor(t, slurmJobTimeout, func() (int, bool) {
		state = jobState(t, job)
		switch state {
		case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED":
			return 0, false
		}
		return 0, true
	})
	if state != "COMPLETED" {
		logs, _ := filepath.Glob(filepath.Join(out, "logs", "*.log"))
		var b strings.Builder
		for _, l := range logs {
			text, _ := os.ReadFile(l)
			fmt.Fprintf(&b, "== %s\n%s\n", l, text)
		}
		t.Fatalf("job %s ended %s\n%s", job, state, b.String())
	}
}

// waitFor polls cond every 20 ms until it holds and returns its value; it fails t
// after timeout.
func waitFor(t *testing.T, timeout time.Duration, cond func() (int, bool)) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		v, ok := cond()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s", timeout)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func jobState(t *testing.T, job string) string { return jobField(t, job, "JobState") }

// jobField reads one field of `scontrol show job --oneliner JOB`.
func jobField(t *testing.T, job, field string) string {
	t.Helper()
	out, err := exec.Command("scontrol", "show", "job", "--oneliner", job).Output()
	require.NoError(t, err, "scontrol show job %s: %s", job, exitStderr(err))
	m := regexp.MustCompile(`(?:^| )` + field + `=(\S*)`).FindSubmatch(out)
	require.NotNil(t, m, "no %s in: %s", field, out)
	return string(m[1])
}

func journalLines(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte{'\n'})
}

func exitStderr(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// assertSameRun checks that got holds the run want holds: samples.jsonl,
// results.json and problems.jsonl byte for byte, and every traces.arrow and
// results.arrow row but for the run key (fingerprint@start, which names each
// run) and wall-clock latency (runOutputs).
func assertSameRun(t *testing.T, want, got string) {
	t.Helper()
	assert.Equal(t, runOutputs(t, want), runOutputs(t, got))
}
