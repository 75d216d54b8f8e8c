// Package history indexes nightly run directories into one table
// (history.parquet: a row per night × task × sampler × filter, appended and
// idempotent) and one offline page (history.html: each task × sampler over
// the nights with its 95% interval, the latest night against the previous
// and against the best, changes the paired per-problem test of compare
// finds significant marked), and gates on the latest night.
package history

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// Row is one night's accuracy of one sampler under one filter of one task.
type Row struct {
	Date    time.Time // the night's UTC date (the run's start)
	Started time.Time
	RunKey  string
	// Model is the checkpoint's name: a hub snapshot's repo id (org/name),
	// else its directory's name; ModelRevision the snapshot's revision.
	Model         string
	ModelRevision string
	// ModelSHA256 is the SHA-256 of the model files' SHA-256s, each followed
	// by a newline, in the manifest's order: one file's fingerprint for many.
	ModelSHA256 string
	Task        string
	Sampler     string
	// SamplerSpec is the canonical spec compare pairs by.
	SamplerSpec string
	Filter      string
	Primary     bool
	Accuracy    float64
	CILow       float64
	CIHigh      float64
	SE          float64
	N           int32 // problems
	Samples     int32 // responses
	// CodeRevision is the binary's VCS revision, "+modified" appended for a
	// build from a modified tree.
	CodeRevision string
	Throughput   float64 // generated tokens per second
	// RunDir is the run directory as indexed (absolute): compare reads it
	// for the paired tests. Report is its report.html.
	RunDir string
	Report string
}

// key identifies a row: indexing a run again (after rescore) replaces its rows.
func (r Row) key() [4]string { return [4]string{r.RunKey, r.Task, r.Sampler, r.Filter} }

// rowsOf turns a run's accuracies into history rows.
func rowsOf(a *model.RunAccuracies) []Row {
	dir, err := filepath.Abs(a.Dir)
	if err != nil {
		dir = a.Dir
	}
	name, rev := reports.ModelName(a.Model)
	code := a.CodeRevision
	if a.CodeModified {
		code += "+modified"
	}
	var out []Row
	for _, s := range a.Samplers {
		for _, f := range s.Filters {
			out = append(out, Row{
				Date: a.Started.UTC().Truncate(24 * time.Hour), Started: a.Started.UTC(), RunKey: a.RunKey,
				Model: name, ModelRevision: rev, ModelSHA256: combinedSHA(a.ModelFiles),
				Task: a.Task, Sampler: s.Label, SamplerSpec: s.Spec, Filter: f.Filter, Primary: f.Filter == a.PrimaryFilter,
				Accuracy: f.Mean, CILow: f.CILow, CIHigh: f.CIHigh, SE: f.SE, N: int32(f.N), Samples: int32(f.Samples),
				CodeRevision: code, Throughput: a.Throughput, RunDir: dir, Report: filepath.Join(dir, "report.html"),
			})
		}
	}
	return out
}

func combinedSHA(files []string) string {
	if len(files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// merge adds rows to old, a new row replacing an old one with its key, and
// sorts them by start, then task, sampler and filter in their first-seen order.
func merge(old, add []Row) []Row {
	last := map[[4]string]int{} // a run given twice in one call counts once
	for i, r := range add {
		last[r.key()] = i
	}
	out := slices.DeleteFunc(slices.Clone(old), func(r Row) bool { _, fresh := last[r.key()]; return fresh })
	for i, r := range add {
		if last[r.key()] == i {
			out = append(out, r)
		}
	}
	seen := map[string]int{}
	rank := func(s string) int {
		if i, ok := seen[s]; ok {
			return i
		}
		seen[s] = len(seen)
		return seen[s]
	}
	for _, r := range out {
		rank(r.Task)
		rank(r.Sampler)
		rank(r.Filter)
	}
	slices.SortStableFunc(out, func(a, b Row) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.RunKey, b.RunKey), cmp.Compare(rank(a.Task), rank(b.Task)),
			cmp.Compare(rank(a.Sampler), rank(b.Sampler)), cmp.Compare(rank(a.Filter), rank(b.Filter)))
	})
	return out
}
