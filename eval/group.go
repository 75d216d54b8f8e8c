package eval

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/reports"
)

// GroupResults is group_results.json: lm-eval's "groups" and "group_subtasks"
// sections. A group entry is keyed "group|run_id" like a task's entry in
// results.json: each sampler × seed run is aggregated on its own, from the
// per-task entries of the same run (repeats pooled as they are there).
type GroupResults struct {
	Groups   map[string]RunSummary `json:"groups"`
	Subtasks map[string][]string   `json:"group_subtasks"`
	Order    []string              `json:"run_order"`
}

// AggregateGroup computes the aggregate_metric_list of group `name` and of
// every subgroup under it, as lm-eval's Group.aggregate does: for each
// metric and filter, the mean of the leaf tasks' scores, weighted by their
// sample counts when weight_by_size, with lm-eval's pooled standard error.
// Task results are read from out/<task>/results.json; a task without one,
// or without the score, is left out of that aggregate with a warning (as in
// lm-eval). It returns nil when no group in the tree aggregates anything.
func AggregateGroup(ix *datasets.Index, name, out string) (*GroupResults, error) {
	res := &GroupResults{Groups: map[string]RunSummary{}, Subtasks: map[string][]string{}}
	taskResults := map[string]*ResultsJSON{}
	var walkErr error
	var visit func(name string, stack []string)
	visit = func(name string, stack []string) {
		e, ok := ix.Lookup(name)
		if !ok || e.Kind != datasets.KindGroup || slices.Contains(stack, name) {
			return
		}
		defer func() { // subgroups after their parent, as lm-eval's table lists them
			for _, m := range e.Members {
				visit(m, append(stack, name))
			}
		}()
		if len(e.Aggregates) == 0 {
			return
		}
		// A member not indexed here counts as a task: it may have run from
		// another --include-path, and without results it is left out below.
		leaves, _, err := ix.Leaves(name)
		if err != nil {
			walkErr = fmt.Errorf("group %s: %w", name, err)
			return
		}
		res.Subtasks[name] = leaves
		for _, t := range leaves {
			if _, read := taskResults[t]; read {
				continue
			}
			var rj ResultsJSON
			path := filepath.Join(out, t, ResultsJSONFile)
			switch err := readJSON(path, &rj); {
			case errors.Is(err, fs.ErrNotExist):
				slog.Warn("group aggregate: task has no results; left out", "group", name, "task", t, "file", path)
				taskResults[t] = nil
			case err != nil:
				walkErr = fmt.Errorf("group %s: read %s: %w", name, path, err)
			default:
				taskResults[t] = &rj
			}
		}
		aggregateOne(res, name, e.Aggregates, leaves, taskResults)
	}
	visit(name, nil)
	if walkErr != nil {
		return nil, walkErr
	}
	if len(res.Groups) == 0 {
		return nil, nil
	}
	return res, nil
}

// taskRun is one task's results.json entry for one run.
type taskRun struct {
	summary RunSummary
	n       int
}

func aggregateOne(res *GroupResults, group string, aggs []datasets.AggregateMetric, leaves []string, results map[string]*ResultsJSON) {
	// runs[runID][task]: the order of run ids is that of the first task listing them.
	var runIDs []string
	runs := map[string]map[string]taskRun{}
	for _, t := range leaves {
		rj := results[t]
		if rj == nil {
			continue
		}
		for _, key := range rj.Order {
			runID := strings.TrimPrefix(key, t+"|")
			if runs[runID] == nil {
				runs[runID] = map[string]taskRun{}
				runIDs = append(runIDs, runID)
			}
			runs[runID][t] = taskRun{rj.Results[key], rj.NSamples[key]}
		}
	}
	for _, runID := range runIDs {
		byTask := runs[runID]
		rs := RunSummary{"alias": group}
		var keys []string
		counts := map[string]int{}
		total := 0
		for _, t := range leaves {
			if r, ok := byTask[t]; ok {
				total += r.n
				if rs["sampler"] == nil {
					rs["sampler"], rs["seed"] = r.summary["sampler"], r.summary["seed"]
				}
			}
		}
		for _, a := range aggs {
			filters := a.Filters
			if filters == nil {
				filters = discoverFilters(a.Metric, leaves, byTask)
			}
			for _, f := range filters {
				k := reports.KeyOf(a.Metric, f)
				mean, se, n, ok := aggregateKey(k, a.WeightBySize, leaves, byTask)
				if !ok {
					slog.Warn("group aggregate: no task reports the score", "group", group, "score", k, "run", runID)
					continue
				}
				rs[string(k)], rs[k.Stderr()] = jsonNum(mean), jsonNum(se)
				counts[string(k)] = n
				keys = append(keys, string(k))
			}
		}
		if len(keys) == 0 {
			continue
		}
		rs["score_keys"], rs["sample_len"], rs["sample_count"] = keys, total, counts
		key := group + "|" + runID
		res.Groups[key] = rs
		res.Order = append(res.Order, key)
	}
}

// discoverFilters lists the filters the tasks report `metric` with, sorted
// (lm-eval's _discover_filters_for_metric).
func discoverFilters(metric string, leaves []string, byTask map[string]taskRun) []string {
	var out []string
	for _, t := range leaves {
		for k := range byTask[t].summary {
			f, ok := strings.CutPrefix(k, metric+",")
			if ok && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// aggregateKey is one group score: lm-eval's aggregate_subtask_metrics (the
// mean of the task means, weighted by sample count or not) and
// pooled_sample_stderr over the tasks that report it. The standard error is
// NaN (null in JSON, lm-eval's "N/A") when a task has none.
func aggregateKey(k reports.ScoreKey, weightBySize bool, leaves []string, byTask map[string]taskRun) (mean, se float64, n int, ok bool) {
	var sum, weights, pooledVar float64
	tasks := 0
	seOK := true
	for _, t := range leaves {
		r, present := byTask[t]
		v, isNum := r.summary[string(k)].(float64)
		if !present || !isNum {
			continue
		}
		w := 1.0
		if weightBySize {
			w = float64(r.n)
		}
		sum += v * w
		weights += w
		n += r.n
		tasks++
		if s, has := r.summary[k.Stderr()].(float64); has {
			pooledVar += float64(r.n-1) * s * s * float64(r.n)
		} else {
			seOK = false
		}
	}
	if tasks == 0 || weights == 0 {
		return 0, 0, 0, false
	}
	se = math.NaN()
	if seOK && n > tasks {
		se = math.Sqrt(pooledVar / float64(n-tasks) / float64(n))
	}
	return sum / weights, se, n, true
}

// WriteGroupResults aggregates the group cfg.Task ran as into
// out/group_results.json and returns it; nil (and no file) when the group
// (or tag) defines no aggregate_metric_list.
func WriteGroupResults(cfg Config, out string) (*GroupResults, error) {
	ix, err := datasets.NewIndex(cfg.IncludePaths...)
	if err != nil {
		return nil, err
	}
	res, err := AggregateGroup(ix, cfg.Task, out)
	if err != nil || res == nil {
		return nil, err
	}
	if err := writeJSONAtomic(filepath.Join(out, GroupResultsFile), res); err != nil {
		return nil, fmt.Errorf("write %s: %w", GroupResultsFile, err)
	}
	return res, nil
}
