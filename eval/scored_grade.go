package eval

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/reports"
)

// scoredFilter is the filter every scored metric is reported under: lm-eval's
// default pipeline "none" (take_first), the only one scored tasks have.
const scoredFilter = "none"

// gradeAll grades the records of a run: a scored task's from their request
// results, a generative task's through the grader. A scored record's Grade
// holds the metrics whose per-doc value is a 0/1 outcome (acc, acc_norm, …),
// which results.arrow, the reports' statistics and compare pair by problem;
// the others (a doc's log-likelihood for perplexity, its squared error for
// brier_score) only exist aggregated over docs, in results.json and lm-eval's
// files, and per doc in samples.jsonl.
func gradeAll(task TaskSpec, grs []gradedRecord, g Grader) error {
	if task.OutputType == "" {
		return gradeGroups(task, grs, g)
	}
	for i := range grs {
		vals, err := scoredValues(task, &grs[i])
		if err != nil {
			return err
		}
		gr := &grs[i]
		gr.Grade = Grade{Answers: []reports.Answer{{Filter: scoredFilter, Answer: gr.Response}}}
		for j, v := range vals {
			if task.Metrics[j].Aggregation == datasets.AggMean {
				gr.Grade.Scores = append(gr.Grade.Scores, reports.Score{Metric: v.Metric, Filter: scoredFilter, Value: v.Value})
			}
		}
	}
	return nil
}

// HasRowScores says whether a task's result rows carry scores: a generative
// task's always do, a scored task's when one of its metrics is a per-doc 0/1
// outcome (a loglikelihood_rolling task's perplexities are not).
func HasRowScores(task TaskSpec) bool {
	if task.OutputType == "" {
		return true
	}
	for _, m := range task.Metrics {
		if m.Aggregation == datasets.AggMean {
			return true
		}
	}
	return false
}

// scoredValues are a record's per-doc metric values (process_results).
func scoredValues(task TaskSpec, gr *gradedRecord) ([]loglik.Value, error) {
	d := gr.Problem.Scoring
	if d == nil {
		return nil, fmt.Errorf("journal item %+v: its problem has no loglikelihood requests", gr.ItemKey)
	}
	names := make([]string, len(task.Metrics))
	for i, m := range task.Metrics {
		names[i] = m.Metric
	}
	vals, err := d.Score(names, gr.Scores)
	if err != nil {
		return nil, fmt.Errorf("grade %+v: %w", gr.ItemKey, err)
	}
	return vals, nil
}

// scoredAggregates replaces each run's means in out by lm-eval's aggregation
// of each metric (perplexity, weighted perplexities, bits per byte, Brier
// score; the mean for the rest) and its standard error.
func scoredAggregates(m *Manifest, grs []gradedRecord, out ResultsJSON) error {
	byRun := map[string][][]loglik.Value{}
	for i := range grs {
		vals, err := scoredValues(m.Task, &grs[i])
		if err != nil {
			return err
		}
		key := m.Task.Name + "|" + grs[i].Job.RunID()
		byRun[key] = append(byRun[key], vals)
	}
	var keys []string
	for _, spec := range m.Task.Metrics {
		keys = append(keys, string(reports.KeyOf(spec.Metric, scoredFilter)))
	}
	for key, docs := range byRun {
		rs := out.Results[key]
		rs["score_keys"] = keys
		for j, spec := range m.Task.Metrics {
			col := make([]loglik.Value, len(docs))
			for i, d := range docs {
				col[i] = d[j]
			}
			v, se, err := loglik.Aggregate(spec.Aggregation, col, loglik.BootstrapIters)
			if err != nil {
				return fmt.Errorf("task %s: %s: %w", m.Task.Name, spec.Metric, err)
			}
			k := reports.KeyOf(spec.Metric, scoredFilter)
			rs[string(k)], rs[k.Stderr()] = jsonNum(v), jsonNum(se)
		}
		delete(rs, keyTruncatedGen)
	}
	return nil
}

// scoredSampleFields are a scored record's samples.jsonl additions: its
// requests (lm-eval's arguments) and results (resps, [logprob, is_greedy]).
func scoredSampleFields(task TaskSpec, g gradedRecord, line map[string]any) error {
	d := g.Problem.Scoring
	if d == nil {
		return nil
	}
	vals, err := scoredValues(task, &g)
	if err != nil {
		return err
	}
	weights := map[string]float64{}
	for _, v := range vals { // every metric, the aggregated-only ones included
		line[string(reports.KeyOf(v.Metric, scoredFilter))] = v.Value
		if datasets.ScoreMetrics[v.Metric].Weight != "" {
			weights[v.Metric] = v.Weight
		}
	}
	if len(weights) > 0 {
		line["weights"] = weights
	}
	args := make([][]string, len(d.Requests))
	for i, r := range d.Requests {
		args[i] = []string{r.Context, r.Continuation}
		if d.OutputType == datasets.OutputRolling {
			args[i] = []string{r.Continuation}
		}
	}
	resps := make([][]any, len(g.Scores))
	for i, s := range g.Scores {
		resps[i] = []any{s.LogProb, s.Greedy}
	}
	line["arguments"], line["resps"], line["output_type"] = args, resps, d.OutputType
	if d.OutputType == datasets.OutputMultipleChoice {
		line["gold"] = d.Gold // lm-eval's gold index (-100: none), which brier_score's item holds
	}
	delete(line, "finish_reason")
	delete(line, "gen_tokens")
	return nil
}
