package lmevalout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports"
)

// run is one sampler × seed of a run directory: one lm-eval evaluation.
type run struct {
	m         *eval.Manifest
	task      map[string]any
	info      eval.SamplerInfo
	seed      uint64
	modelName string
	dateID    string
	results   map[string]any
	samples   []map[string]any
	original  int
}

// write writes the run's results and samples files into out.
func (r run) write(out string) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	name := r.m.Task.Name
	docs := docLines(r.samples)
	samples, err := r.sampleLines(docs)
	if err != nil {
		return nil, err
	}
	samplesPath := filepath.Join(out, "samples_"+name+"_"+r.dateID+".jsonl")
	var buf bytes.Buffer
	var hashes strings.Builder
	for _, s := range samples {
		b, err := marshal(s, "")
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		hashes.WriteString(s["doc_hash"].(string) + s["prompt_hash"].(string) + s["target_hash"].(string))
	}
	if err := eval.WriteFileAtomic(samplesPath, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return nil, err
	}
	if r.m.Config.Repeats > 1 {
		// results.json tallies every repeat; lm-eval scores each doc once.
		r.results = docResults(samples)
	}
	res := r.resultsJSON(len(docs), HashString(hashes.String()))
	b, err := marshal(res, "  ")
	if err != nil {
		return nil, err
	}
	resultsPath := filepath.Join(out, "results_"+r.dateID+".json")
	if err := eval.WriteFileAtomic(resultsPath, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
		return nil, err
	}
	return []string{resultsPath, samplesPath}, nil
}

// marshal encodes v as Python's json.dumps(ensure_ascii=False) keeps text: no
// HTML escaping.
func marshal(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// resultsJSON is results_<date>.json: evaluator.py's results dict plus what
// EvaluationTracker.save_results_aggregated adds (task_hashes, the tracker's
// fields).
func (r run) resultsJSON(n int, taskHash string) map[string]any {
	name := r.m.Task.Name
	entry := map[string]any{"name": name, "alias": name, "sample_len": n}
	hib := map[string]any{}
	for _, k := range scoreKeys(r.results) {
		sk := reports.ScoreKey(k)
		entry[k] = numOrNA(r.results[k])
		entry[eval.StderrKey(sk)] = numOrNA(r.results[eval.StderrKey(sk)])
		hib[sk.Metric()] = true // every metric here counts correct answers
	}
	config, _ := r.task["config"].(map[string]any)
	if config == nil {
		config = map[string]any{"task": name, "output_type": "generate_until", "generation_kwargs": r.genKwargs(), "repeats": max(r.m.Config.Repeats, 1)}
	}
	out := map[string]any{
		"results":          map[string]any{name: entry},
		"group_subtasks":   map[string]any{},
		"configs":          map[string]any{name: config},
		"versions":         map[string]any{},
		"n-shot":           map[string]any{},
		"higher_is_better": map[string]any{name: hib},
		"n-samples":        map[string]any{name: map[string]int{"original": r.original, "effective": n}},
	}
	if v, ok := metadata(config)["version"]; ok {
		out["versions"].(map[string]any)[name] = v
	}
	if v, ok := config["num_fewshot"]; ok {
		out["n-shot"].(map[string]any)[name] = v
	}
	c := r.m.Config
	var limit any
	if c.Limit > 0 {
		limit = float64(c.Limit)
	}
	var gitHash any
	if rev := r.m.Code.Revision; len(rev) >= 7 {
		gitHash = rev[:7]
	}
	out["config"] = map[string]any{
		"model":              "entropix-eval",
		"model_args":         "pretrained=" + r.modelName + ",dtype=" + r.m.Provenance.DType,
		"batch_size":         r.m.BatchSize,
		"batch_sizes":        []int{},
		"device":             strings.Join(r.m.Devices, ","),
		"use_cache":          nil,
		"limit":              limit,
		"bootstrap_iters":    0, // exact_match's stderr is the closed form, as lm-eval's mean_stderr
		"gen_kwargs":         r.description(),
		"random_seed":        r.seed,
		"numpy_seed":         r.seed,
		"torch_seed":         r.seed,
		"fewshot_seed":       1234,
		"sampler":            r.info.Label,
		"sampler_order":      r.m.Provenance.SamplerOrder,
		"first_token_argmax": r.m.FirstTokenArgmax,
	}
	out["git_hash"] = gitHash
	start := r.m.Started
	end := start
	if r.m.Finished != nil {
		end = *r.m.Finished
	}
	out["date"] = unixSeconds(start)
	out["task_hashes"] = map[string]string{name: taskHash}
	out["model_source"] = "entropix-eval"
	out["model_name"] = r.modelName
	out["model_name_sanitized"] = SanitizeModelName(r.modelName)
	out["system_instruction"], out["system_instruction_sha"] = nil, nil
	if si := c.SystemInstruction; si != "" {
		out["system_instruction"], out["system_instruction_sha"] = si, HashString(si)
	}
	var multiturn any
	if c.FewshotAsMultiturn != nil {
		multiturn = *c.FewshotAsMultiturn
	}
	out["fewshot_as_multiturn"] = multiturn
	out["chat_template"], out["chat_template_sha"] = nil, nil
	if ct := r.m.Provenance.ChatTemplate; ct != "" {
		out["chat_template"], out["chat_template_sha"] = ct, HashString(ct)
	}
	out["start_time"] = unixSeconds(start)
	out["end_time"] = unixSeconds(end)
	out["total_evaluation_time_seconds"] = fmt.Sprint(end.Sub(start).Seconds())
	return out
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func metadata(config map[string]any) map[string]any {
	m, _ := config["metadata"].(map[string]any)
	return m
}

// numOrNA writes a missing standard error as lm-eval does: "N/A".
func numOrNA(v any) any {
	if f, ok := v.(float64); ok {
		return f
	}
	return "N/A"
}

// description is the sampler's canonical spec: every parameter in effect.
func (r run) description() map[string]any {
	var d map[string]any
	if json.Unmarshal(r.info.Description, &d) != nil || d == nil {
		d = map[string]any{"sampler": r.info.Label}
	}
	return d
}

// genKwargs is a request's generation kwargs (arguments' arg_1): the task's
// stop strings and budget with the sampler's parameters.
func (r run) genKwargs() map[string]any {
	g := r.description()
	g["until"] = r.m.Task.Stops
	budget := r.m.Task.MaxNewTokens
	if r.m.Config.MaxNewTokens > 0 {
		budget = r.m.Config.MaxNewTokens
	}
	g["max_gen_toks"] = budget
	return g
}

// sampleLines are samples_<task>_<date>.jsonl's lines: one per doc per filter,
// as evaluator.py logs them; docs are the run's samples grouped by docLines.
func (r run) sampleLines(docs [][]map[string]any) ([]map[string]any, error) {
	gen := r.genKwargs()
	var out []map[string]any
	for i, lines := range docs {
		s := lines[0]
		prompt, _ := s["prompt"].(string)
		target := fmt.Sprint(s["target"])
		docText, err := pyDumps(s["doc"])
		if err != nil {
			return nil, fmt.Errorf("sample %d: doc: %w", i, err)
		}
		docHash, promptHash, targetHash := HashString(docText), HashString(prompt), HashString(target)
		resps := [][]string{responses(lines)}
		byFilter := map[string][]string{}
		var filters []string
		for _, k := range scoreKeys(s) {
			metric, filter, _ := strings.Cut(k, ",")
			if _, seen := byFilter[filter]; !seen {
				filters = append(filters, filter)
			}
			byFilter[filter] = append(byFilter[filter], metric)
		}
		for _, f := range filters {
			answer, values, err := docAnswer(lines, f, byFilter[f])
			if err != nil {
				return nil, err
			}
			line := map[string]any{
				"doc_id":         s["doc_id"],
				"doc":            s["doc"],
				"target":         target,
				"arguments":      map[string]any{"gen_args_0": map[string]any{"arg_0": prompt, "arg_1": gen}},
				"resps":          resps,
				"filtered_resps": []string{answer},
				"filter":         f,
				"metrics":        byFilter[f],
				"doc_hash":       docHash,
				"prompt_hash":    promptHash,
				"target_hash":    targetHash,
			}
			for m, v := range values {
				line[m] = v
			}
			out = append(out, line)
		}
	}
	return out, nil
}
