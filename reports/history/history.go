package history

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

// Options configure Update.
type Options struct {
	// Compare's gate settings: the paired test, its Holm family and alpha.
	Compare runreport.CompareOptions
}

// History is the table after an update and what it says about each series.
type History struct {
	Rows []Row
	// Series are the model × task × sampler lines over the nights, in the
	// order their first rows appear.
	Series []*Series
	// Regressions name the latest night's significant drops against the
	// night before it (compare's gate), one sentence each.
	Regressions []string
	Notes       []string
}

// Series is one model × task × sampler under the primary filter, night by night.
type Series struct {
	Model, Task, Sampler, Filter string
	Points                       []Row
	// Previous and Best compare the latest night with the night before it and
	// with the best earlier night; nil where there is none or it failed (see
	// History.Notes).
	Previous, Best *Change
}

// Change is the latest night against an earlier one, by compare's paired test.
type Change struct {
	Against Row
	Row     reports.ComparisonRow
	// Significant: the Holm-adjusted p is below alpha; Delta's sign says which way.
	Significant bool
}

// Update indexes runDirs into out/history.parquet (rows of a run indexed
// before are replaced, so indexing a night twice changes nothing) and returns
// the whole table with each series' latest changes.
func Update(out string, runDirs []string, opt Options) (*History, error) {
	if opt.Compare.Alpha == 0 {
		opt.Compare.Alpha = 0.05
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	path := filepath.Join(out, ParquetFile)
	old, err := readParquet(path)
	if err != nil {
		return nil, err
	}
	var add []Row
	var notes []string
	for _, d := range runDirs {
		a, err := runreport.Accuracies(d)
		if err != nil {
			return nil, err
		}
		if a.RunKey == "" || a.Started.IsZero() {
			return nil, fmt.Errorf("history: %s: the manifest names no run key or start; rescore the run first", d)
		}
		add = append(add, rowsOf(a)...)
		if len(a.CorpusAggregated) > 0 {
			notes = append(notes, fmt.Sprintf("%s (task %s): %s are computed over the corpus (no per-problem accuracy) and are not indexed: history holds per-problem accuracies only",
				d, a.Task, strings.Join(a.CorpusAggregated, ", ")))
		}
	}
	h := &History{Rows: merge(old, add), Notes: notes}
	if err := writeParquet(path, h.Rows); err != nil {
		return nil, err
	}
	h.analyse(opt.Compare)
	return h, nil
}

// analyse builds the series and compares each model × task's latest night
// with the previous one and each series' latest point with its best earlier.
func (h *History) analyse(opt runreport.CompareOptions) {
	bySeries := map[[4]string]*Series{}
	for _, r := range h.Rows {
		if !r.Primary {
			continue
		}
		k := [4]string{r.Model, r.Task, r.Sampler, r.Filter}
		s := bySeries[k]
		if s == nil {
			s = &Series{Model: r.Model, Task: r.Task, Sampler: r.Sampler, Filter: r.Filter}
			bySeries[k] = s
			h.Series = append(h.Series, s)
		}
		s.Points = append(s.Points, r)
	}
	// One compare per pair of nights: its Holm family is that pair's samplers,
	// as `entropix-eval compare` would form it.
	compared := map[[2]string]*runreport.Comparison{}
	comparison := func(a, b Row) *runreport.Comparison {
		k := [2]string{a.RunDir, b.RunDir}
		if c, ok := compared[k]; ok {
			return c
		}
		c, err := runreport.Compare(a.RunDir, b.RunDir, opt)
		which := fmt.Sprintf("%s %s %s against %s", b.Model, b.Task, b.Date.Format("2006-01-02"), a.Date.Format("2006-01-02"))
		if err != nil {
			h.Notes = append(h.Notes, fmt.Sprintf("%s: not tested: %v", which, err))
		} else {
			for _, n := range c.Notes {
				h.Notes = append(h.Notes, which+": "+n)
			}
		}
		compared[k] = c
		return c
	}
	change := func(c *runreport.Comparison, against Row, sampler string) *Change {
		if c == nil {
			return nil
		}
		for _, r := range c.Rows {
			if r.Sampler == sampler && r.Primary {
				sig := r.PHolm.Valid && r.PHolm.V < c.Alpha
				return &Change{Against: against, Row: r, Significant: sig}
			}
		}
		return nil
	}
	gated := map[[2]string]bool{}
	for _, s := range h.Series {
		n := len(s.Points)
		if n < 2 {
			continue
		}
		latest, prev := s.Points[n-1], s.Points[n-2]
		c := comparison(prev, latest)
		s.Previous = change(c, prev, s.Sampler)
		if k := [2]string{prev.RunDir, latest.RunDir}; c != nil && !gated[k] {
			gated[k] = true
			if err := c.Err(); err != nil {
				h.Regressions = append(h.Regressions, fmt.Sprintf("%s %s, %s vs %s: %v", latest.Model, latest.Task,
					latest.Date.Format("2006-01-02"), prev.Date.Format("2006-01-02"), err))
			}
		}
		best := slices.MaxFunc(s.Points[:n-1], func(a, b Row) int {
			return cmp.Or(cmp.Compare(a.Accuracy, b.Accuracy), b.Started.Compare(a.Started)) // ties: the earliest
		})
		if best.RunKey == prev.RunKey {
			s.Best = s.Previous
		} else {
			s.Best = change(comparison(best, latest), best, s.Sampler)
		}
	}
}

// RegressionError is the gate's failure: the latest night dropped significantly.
type RegressionError struct{ msg string }

func (e *RegressionError) Error() string { return e.msg }

// Gate returns a *RegressionError naming every significant drop of the latest
// nights against the nights before them, or nil.
func (h *History) Gate() error {
	if len(h.Regressions) == 0 {
		return nil
	}
	return &RegressionError{"the latest night dropped significantly: " + strings.Join(h.Regressions, "; ")}
}

// IsRegression says whether err is the gate's failure.
func IsRegression(err error) bool {
	var r *RegressionError
	return errors.As(err, &r)
}

// span is the lowest and highest value a series' band reaches.
func (s *Series) span() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		for _, v := range []float64{p.Accuracy, p.CILow, p.CIHigh} {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	return lo, hi
}
