package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// Merge combines the run directories of shards 0..n-1 of one sweep into out, which
// then holds exactly what a single unsharded run would have written (the manifest
// aside). Every shard must be the same run (same fingerprint), each shard index
// must appear once, and every item must be finished.
func Merge(out string, shardDirs []string, o Outputs) error {
	if err := o.check(); err != nil {
		return err
	}
	if len(shardDirs) == 0 {
		return errors.New("merge: no shard directories given")
	}
	if err := outputNotAnInput(out, shardDirs); err != nil {
		return err
	}
	var (
		base     *Manifest
		problems []ProblemEntry
		recs     []Record
		seen     = map[int]string{}
	)
	for _, dir := range shardDirs {
		m, err := ReadManifest(dir)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if base == nil {
			base = m
		}
		switch {
		case m.Fingerprint != base.Fingerprint:
			return fmt.Errorf("merge: %s is a different run than %s (fingerprint %s vs %s)", dir, shardDirs[0], m.Fingerprint, base.Fingerprint)
		case m.Shard.Count != base.Shard.Count:
			return fmt.Errorf("merge: %s is shard %s but %s is shard %s", dir, m.Shard, shardDirs[0], base.Shard)
		case seen[m.Shard.Index] != "":
			return fmt.Errorf("merge: %s and %s are both shard %s", seen[m.Shard.Index], dir, m.Shard)
		}
		seen[m.Shard.Index] = dir
		ps, err := ReadProblems(dir)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		for _, p := range ps {
			if !m.Shard.Owns(p.Index) {
				return fmt.Errorf("merge: %s holds problem %d, which shard %s does not own", dir, p.Index, m.Shard)
			}
		}
		rs, err := ReadJournal(filepath.Join(dir, JournalFile))
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if want := len(m.Jobs) * len(ps); len(rs) != want {
			return fmt.Errorf("merge: shard %s in %s has %d of %d items finished; resume it first", m.Shard, dir, len(rs), want)
		}
		problems = append(problems, ps...)
		recs = append(recs, rs...)
	}
	if len(seen) != base.Shard.Count {
		var missing []int
		for i := 0; i < base.Shard.Count; i++ {
			if seen[i] == "" {
				missing = append(missing, i)
			}
		}
		return fmt.Errorf("merge: shards %v of %d are missing", missing, base.Shard.Count)
	}
	slices.SortFunc(problems, func(a, b ProblemEntry) int { return a.Index - b.Index })
	if len(problems) != base.Problems {
		return fmt.Errorf("merge: shards hold %d problems, the run has %d", len(problems), base.Problems)
	}
	return writeMerged(out, base, shardDirs, problems, recs, o)
}

// outputNotAnInput refuses to merge into one of the shards: rewriting an input in
// place, killed midway, would leave a shard that can neither be merged nor resumed.
func outputNotAnInput(out string, shardDirs []string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // not there yet, so none of the inputs
	}
	for _, d := range shardDirs {
		if st, err := os.Stat(d); err == nil && os.SameFile(ost, st) {
			return usage.Errorf("merge: --out %s is the input %s; merge into a new directory", out, d)
		}
	}
	return nil
}

func writeMerged(out string, base *Manifest, shardDirs []string, problems []ProblemEntry, recs []Record, o Outputs) error {
	if err := PreflightDir(out, 16<<20); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	lock, err := LockDir(out)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	defer lock.Unlock()
	if old, err := ReadManifest(out); err == nil && old.Fingerprint != base.Fingerprint {
		return fmt.Errorf("merge: %s already holds a different run", out)
	}
	// Checked again under the lock: the directory may have appeared meanwhile.
	if err := outputNotAnInput(out, shardDirs); err != nil {
		return err
	}
	m := *base
	m.Config.Shard, m.Config.Out = "", out
	m.Shard = Shard{Index: 0, Count: 1}
	m.Status, m.Finished, m.Stats = StatusRunning, nil, nil
	m.MergedFrom = shardDirs
	m.Started = time.Now().UTC()
	if err := writeProblems(out, problems); err != nil {
		return err
	}
	// The merged journal is written whole and atomically, so a merged directory can
	// be rescored like any other.
	err = WriteFileAtomic(filepath.Join(out, JournalFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := writeManifest(out, &m); err != nil {
		return err
	}
	return Finalize(out, o)
}

// Rescore re-extracts and re-scores the saved responses of a finished run directory
// with the current extraction code, rewriting its result files; the model is not
// run. It returns each run's first score (the task's first filter and metric)
// before and after.
//
// A run directory written before results were generic over filters and
// metrics (manifest task without filters; results.arrow schema version 1) is
// upgraded when its task is a built-in one: the filters and metrics of the
// built-in task are recorded in its manifest and every result file is
// rewritten in the current schema. Any other old run is refused, because its
// task's filters are not known.
func Rescore(dir string, o Outputs) (before, after map[string]float64, err error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("rescore: %w", err)
	}
	lock, err := LockRunDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("rescore: %w", err)
	}
	defer lock.Unlock()
	if len(m.Task.Filters) == 0 {
		if err := upgradeTask(dir, m); err != nil {
			return nil, nil, fmt.Errorf("rescore: %w", err)
		}
	}
	before = readFirstScores(dir)
	if err := Finalize(dir, o); err != nil {
		return nil, nil, fmt.Errorf("rescore: %w", err)
	}
	return before, readFirstScores(dir), nil
}

// upgradeTask fills in the filters and metrics of a run made before the
// manifest recorded them, from the built-in task of the same name.
func upgradeTask(dir string, m *Manifest) error {
	t, err := datasets.LookupTask(m.Task.Name)
	if err != nil {
		return fmt.Errorf("run directory %s predates task-generic results and its task %q is not built in, so its filters are unknown; it cannot be rescored: %w", dir, m.Task.Name, err)
	}
	m.Task.Filters, m.Task.Metrics, m.Task.Repeats = t.Filters, t.Metrics, t.Repeats
	return writeManifest(dir, m)
}

// readFirstScores reads each run's first score key from results.json (the
// current layout's score_keys, else the old strict-match key); a missing or
// unreadable file gives an empty map (nothing to compare against).
func readFirstScores(dir string) map[string]float64 {
	var rj struct {
		Results map[string]map[string]any `json:"results"`
	}
	out := map[string]float64{}
	if err := readJSON(filepath.Join(dir, ResultsJSONFile), &rj); err != nil {
		return out
	}
	for k, v := range rj.Results {
		key := "exact_match,strict-match"
		if keys, ok := v["score_keys"].([]any); ok && len(keys) > 0 {
			key, _ = keys[0].(string)
		}
		if f, ok := v[key].(float64); ok {
			out[k] = f
		}
	}
	return out
}
