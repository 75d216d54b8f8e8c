package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/rundir"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// Bounds on the size of one sweep. Every job is listed in manifest.json and every
// item held in the work queue, so an absurd sweep (--repeats 1000000000) is refused
// at once instead of growing memory before evaluating anything.
const (
	// MaxJobs bounds samplers × seeds × repeats (manifest.json lists each job).
	MaxJobs = rundir.MaxJobs
	// MaxItems bounds jobs × problems (the work queue and results.arrow hold each).
	MaxItems = 4_000_000
)

// checkWorkBounds refuses sweeps beyond MaxItems (the job bound is
// Config.Validate's, checked before).
func checkWorkBounds(cfg Config, problems int) error {
	jobs := rundir.JobCount(cfg)
	if items := jobs * float64(problems); items > MaxItems {
		return usage.Errorf("%.0f jobs × %d problems = %.0f items, more than the %d one run directory holds; shard the run (--shard i/n) or lower --limit",
			jobs, problems, items, MaxItems)
	}
	return nil
}

// ItemCount is the number of work items a shard of the sweep holds: jobs × the
// problems the shard owns. The CLI caps the batch size at it.
func ItemCount(cfg Config, problems int) int {
	shard, err := ParseShard(cfg.Shard)
	if err != nil {
		return 0
	}
	owned := 0
	for i := range problems {
		if shard.Owns(i) {
			owned++
		}
	}
	return len(cfg.Samplers) * len(cfg.Seeds) * cfg.Repeats * owned
}

// journalBytesPerToken is a generous size of one trace step in the journal (a
// positional JSON array of 15 numbers and strings).
const journalBytesPerToken = 256

// journalBudget is the free disk a run needs to start: problems.jsonl plus the
// journal of its first minute, taken as every slot of every worker finishing a
// full-length response four times over, and a floor for the result files.
func journalBudget(cfg Config, task TaskSpec) int64 {
	const floor = 16 << 20
	slots := int64(cfg.BatchSize) * int64(len(cfg.Devices))
	return floor + 4*slots*int64(task.MaxNewTokens)*journalBytesPerToken
}

// PreflightDir checks, before dir is created, that it can be created and written,
// that it is new, empty or a run directory, and that its file system has need
// bytes free.
func PreflightDir(dir string, need int64) error {
	if err := checkRunDir(dir); err != nil {
		return err
	}
	existing := dir
	for {
		st, err := os.Stat(existing)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("output directory %s: %s is not a directory", dir, existing)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("output directory %s: %w", dir, err)
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return fmt.Errorf("output directory %s: no existing parent", dir)
		}
		existing = parent
	}
	f, err := os.CreateTemp(existing, ".entropix-preflight-*")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	free, known, err := freeBytes(existing)
	if err != nil {
		return fmt.Errorf("output directory %s: free space: %w", dir, err)
	}
	if known && free < need {
		return fmt.Errorf("output directory %s: %s free on its file system, the run needs at least %s to start",
			dir, mib(free), mib(need))
	}
	return nil
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// CheckTokenIDs checks every token id a sampler resolved (fields named *_token_id
// in its description, e.g. Entropix's clarifying_token_id) against the model's
// vocabulary; a negative id means unset.
func CheckTokenIDs(specs []sampler.Spec, samplers []SamplerFactory, vocab int) error {
	var errs []error
	for i, s := range samplers {
		var desc map[string]any
		if json.Unmarshal([]byte(s.Describe()), &desc) != nil {
			continue // a plain-text description names no ids
		}
		for k, v := range desc {
			id, ok := v.(float64)
			if !ok || !strings.HasSuffix(k, "_token_id") || id < 0 {
				continue
			}
			if id >= float64(vocab) {
				errs = append(errs, fmt.Errorf("samplers[%d] %s: %s %.0f is outside the model's vocabulary (%d tokens)",
					i, specs[i].DisplayLabel(), k, id, vocab))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckForward runs one token through a fresh engine and checks that the
// distribution is finite: NaN or infinite weights show here, before any work is
// journaled, instead of at the first step of the run.
func CheckForward(ctx context.Context, eng Engine, token int32) error {
	var out []engine.Output
	if err := eng.Step(ctx, []engine.Input{{Slot: 0, Tokens: []int32{token}}}, &out); err != nil {
		return fmt.Errorf("pre-flight forward of token %d: %w", token, err)
	}
	defer eng.Free(0)
	if len(out) != 1 {
		return fmt.Errorf("pre-flight forward of token %d: %d outputs for one input", token, len(out))
	}
	d := &out[0].Dist
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if bad(d.LogPartition) || bad(d.Entropy) || bad(d.Varentropy) {
		return fmt.Errorf("pre-flight forward of token %d: the logits are not finite (log-partition %v, entropy %v): the weights hold NaN or Inf values",
			token, d.LogPartition, d.Entropy)
	}
	for _, c := range d.Candidates {
		if bad(float64(c.Logit)) {
			return fmt.Errorf("pre-flight forward of token %d: logit of token %d is %v: the weights hold NaN or Inf values", token, c.ID, c.Logit)
		}
	}
	return nil
}
