package lmevalout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/internal/safepath"
	"github.com/entropix-eval/entropix-eval/reports"
)

// run is one sampler × seed of a run directory: one lm-eval evaluation.
type run struct {
	m         *eval.Manifest
	task      *pyjson.Dict // the manifest's task as written (its config's numbers keep their kind)
	info      eval.SamplerInfo
	seed      uint64
	modelName string
	dateID    string
	results   map[string]any
	samples   []map[string]any
	original  int
}

// write writes the run's results and samples files into out, as
// save_results_samples (json.dumps(sample, ensure_ascii=False) + "\n" a
// line) and save_results_aggregated (json.dumps(results, indent=2,
// ensure_ascii=False), no final newline) write them.
func (r run) write(out string) ([]string, error) {
	name := r.m.Task.Name
	// lm-eval puts the task name into the file name as it is; a name that is
	// not one path component would write elsewhere.
	if err := safepath.Name("task", name); err != nil {
		return nil, err
	}
	docs := docLines(r.samples)
	samples, err := r.sampleLines(docs)
	if err != nil {
		return nil, err
	}
	// Only now that there is something to write: a refused run leaves no folder.
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	samplesPath := filepath.Join(out, "samples_"+name+"_"+r.dateID+".jsonl")
	var buf bytes.Buffer
	var hashes strings.Builder
	for _, s := range samples {
		b, err := pyjson.Dumps(s)
		if err != nil {
			return nil, fmt.Errorf("samples line: %w", err)
		}
		buf.Write(b)
		buf.WriteByte('\n')
		for _, k := range []string{"doc_hash", "prompt_hash", "target_hash"} {
			h, _ := s.Get(k)
			hashes.WriteString(h.(string))
		}
	}
	if err := eval.WriteFileAtomic(samplesPath, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return nil, err
	}
	if r.m.Config.Repeats > 1 {
		// results.json tallies every repeat; lm-eval scores each doc once.
		r.results = docResults(samples)
	}
	res := r.resultsJSON(len(docs), HashString(hashes.String()))
	b, err := pyjson.DumpsIndent(res, 2)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	resultsPath := filepath.Join(out, "results_"+r.dateID+".json")
	if err := eval.WriteFileAtomic(resultsPath, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return nil, err
	}
	return []string{resultsPath, samplesPath}, nil
}

// resultsJSON is results_<date>.json in lm-eval's key order: evaluator.py's
// results dict (results, group_subtasks, configs, versions, n-shot,
// higher_is_better, n-samples), simple_evaluate's config, git_hash and date,
// then what EvaluationTracker.save_results_aggregated adds: task_hashes and
// asdict(GeneralConfigTracker). Since v0.4.10 that dataclass declares no
// start_time or end_time field, so neither is written; the environment and
// tokenizer entries (pretty_env_info, tokenizer_*) describe a Python install
// and a tokenizer object we do not have, and are left out too.
func (r run) resultsJSON(n int, taskHash string) *pyjson.Dict {
	name := r.m.Task.Name
	filters, metrics := scoreOrder(r.m.Task, r.samples)
	entry := pyjson.NewDict("name", name, "alias", name, "sample_len", n)
	hib := pyjson.NewDict()
	for _, f := range filters {
		for _, m := range metrics[f] {
			k := reports.KeyOf(m, f)
			entry.Set(string(k), numOrNA(r.results[string(k)]))
			entry.Set(k.Stderr(), numOrNA(r.results[k.Stderr()]))
			hib.Set(m, higherIsBetter(r.m.Task, m))
		}
	}
	var config any = pyjson.NewDict("task", name, "output_type", "generate_until",
		"generation_kwargs", r.genKwargs(), "repeats", max(r.m.Config.Repeats, 1))
	var version, nShot any = nil, 0
	if c, ok := field(r.task, "config").(*pyjson.Dict); ok {
		config = c
		version = taskVersion(c)
		if v, ok := c.Get("num_fewshot"); ok {
			nShot = v
		}
	}
	out := pyjson.NewDict(
		"results", pyjson.NewDict(name, entry),
		"group_subtasks", pyjson.NewDict(),
		"configs", pyjson.NewDict(name, config),
		"versions", pyjson.NewDict(name, version),
		"n-shot", pyjson.NewDict(name, nShot),
		"higher_is_better", pyjson.NewDict(name, hib),
		"n-samples", pyjson.NewDict(name, pyjson.NewDict("original", r.original, "effective", n)))
	c := r.m.Config
	var limit any
	if c.Limit > 0 {
		limit = float64(c.Limit) // lm-eval's --limit is a float
	}
	var gitHash any
	if rev := r.m.Code.Revision; len(rev) >= 7 {
		gitHash = rev[:7]
	}
	out.Set("config", pyjson.NewDict(
		"model", "entropix-eval",
		"model_args", "pretrained="+r.modelName+",dtype="+r.m.Provenance.DType,
		"batch_size", r.m.BatchSize,
		"batch_sizes", []int{},
		"device", strings.Join(r.m.Devices, ","),
		"use_cache", nil,
		"limit", limit,
		"bootstrap_iters", 0, // exact_match's stderr is the closed form, as lm-eval's mean_stderr
		"gen_kwargs", r.description(),
		"random_seed", r.seed,
		"numpy_seed", r.seed,
		"torch_seed", r.seed,
		"fewshot_seed", 1234,
		// Ours, after lm-eval's keys: what a sampler sweep adds to a run.
		"sampler", r.info.Label,
		"sampler_order", r.m.Provenance.SamplerOrder,
		"first_token_argmax", r.m.FirstTokenArgmax))
	if slices.ContainsFunc(r.m.Task.Metrics, func(m datasets.MetricSpec) bool { _, ok := m.Corpus(); return ok }) {
		corpusConfig(out)
	}
	if r.m.Task.OutputType != "" {
		scoredConfig(out)
	}
	start := r.m.Started
	end := start
	if r.m.Finished != nil {
		end = *r.m.Finished
	}
	out.Set("git_hash", gitHash)
	out.Set("date", unixSeconds(start))
	out.Set("task_hashes", pyjson.NewDict(name, taskHash))
	out.Set("model_source", "entropix-eval")
	out.Set("model_name", r.modelName)
	out.Set("model_name_sanitized", SanitizeModelName(r.modelName))
	out.Set("system_instruction", nil)
	out.Set("system_instruction_sha", nil)
	if si := c.SystemInstruction; si != "" {
		out.Set("system_instruction", si).Set("system_instruction_sha", HashString(si))
	}
	var multiturn any
	if c.FewshotAsMultiturn != nil {
		multiturn = *c.FewshotAsMultiturn
	}
	out.Set("fewshot_as_multiturn", multiturn)
	out.Set("chat_template", nil)
	out.Set("chat_template_sha", nil)
	if ct := r.m.Provenance.ChatTemplate; ct != "" {
		out.Set("chat_template", ct).Set("chat_template_sha", HashString(ct))
	}
	// str(end_time - start_time): Python's str of a float is its repr.
	out.Set("total_evaluation_time_seconds", string(pyjson.AppendFloat(nil, end.Sub(start).Seconds())))
	return out
}

// higherIsBetter is the metric's metric_list higher_is_better (true unless
// the task says otherwise); true for a metric the task spec does not list,
// as every metric we score counts correct answers.
func higherIsBetter(spec eval.TaskSpec, metric string) bool {
	for _, m := range spec.Metrics {
		if m.Metric == metric {
			return m.HigherIsBetter
		}
	}
	return true
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// field is d's value under k, nil when d is nil or lacks it.
func field(d *pyjson.Dict, k string) any {
	if d == nil {
		return nil
	}
	v, _ := d.Get(k)
	return v
}

// taskVersion is the task's VERSION as lm-eval logs it: metadata.version,
// a number where the YAML scalar was one (1, 3.0), else the text; null when
// the task sets none.
func taskVersion(config *pyjson.Dict) any {
	v := field(config, "version")
	if m, ok := field(config, "metadata").(*pyjson.Dict); ok {
		if mv, ok := m.Get("version"); ok {
			v = mv
		}
	}
	s, ok := v.(string)
	if !ok {
		return v
	}
	if s == "" {
		return nil
	}
	if _, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(s)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
		return f
	}
	return s
}

// numOrNA writes a missing standard error as lm-eval does: "N/A".
func numOrNA(v any) any {
	if f, ok := v.(float64); ok {
		return f
	}
	return "N/A"
}

// description is the sampler's canonical spec in its own key order: every
// parameter in effect.
func (r run) description() *pyjson.Dict {
	if v, err := pyjson.Decode(r.info.Description); err == nil {
		if d, ok := v.(*pyjson.Dict); ok {
			return d
		}
	}
	return pyjson.NewDict("sampler", r.info.Label)
}

// genKwargs is a request's generation kwargs (arguments' arg_1): the task's
// stop strings and budget with the sampler's parameters.
func (r run) genKwargs() *pyjson.Dict {
	g := r.description()
	budget := r.m.Task.MaxNewTokens
	if r.m.Config.MaxNewTokens > 0 {
		budget = r.m.Config.MaxNewTokens
	}
	return g.Set("until", r.m.Task.Stops).Set("max_gen_toks", budget)
}
