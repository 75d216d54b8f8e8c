package datasets

// The structured sections of a task config, each read into the Task's own
// types with lm-eval's defaults and inheritance: fewshot_config,
// generation_kwargs, filter_list and metric_list.

import (
	"fmt"
	"github.com/entropix-eval/entropix-eval/hooks"
	"slices"
	"strings"
)

// fewshot builds fewshot_config with lm-eval's inheritance from the task.
func (g *getter) fewshot(t *Task) FewshotConfig {
	fc := FewshotConfig{Sampler: SamplerRandom, Split: t.FewshotSplit, DocToText: t.DocToText, DocToTarget: t.DocToTarget,
		GenPrefix: t.GenPrefix, TargetDelimiter: t.TargetDelimiter, FewshotDelimiter: t.FewshotDelimiter}
	v, ok := g.rc.Keys["fewshot_config"]
	if !ok || v == nil {
		return fc
	}
	m, ok := v.(map[string]any)
	if !ok {
		g.fail("fewshot_config", "want a mapping")
		return fc
	}
	for _, key := range sortedKeys(m) {
		if _, isFn := m[key].(pyFunction); isFn && g.python && (key == "process_docs" || key == "samples") {
			continue // the bridge runs it (Task.PythonHooks)
		}
		if !slices.Contains(fewshotKeys, key) {
			g.fail("fewshot_config", "%s is not supported (supported: %s)", key, strings.Join(fewshotKeys, ", "))
			return fc
		}
	}
	if s, ok := m["sampler"].(string); ok {
		switch Sampler(s) {
		case SamplerRandom, SamplerFirstN:
			fc.Sampler = Sampler(s)
		default:
			g.fail("fewshot_config", "sampler %q: want default or first_n", s)
		}
	}
	if s, ok := m["split"].(string); ok {
		fc.Split = s
	}
	str := func(key string, dst *string) {
		if s, ok := m[key].(string); ok {
			*dst = s
		}
	}
	str("target_delimiter", &fc.TargetDelimiter)
	str("fewshot_delimiter", &fc.FewshotDelimiter)
	if s, ok := m["doc_to_text"].(string); ok {
		fc.DocToText = NewTemplate("fewshot_config.doc_to_text", s)
	}
	if t, ok := g.portTemplate("fewshot_config.doc_to_text", "fewshot_config.doc_to_text"); ok {
		fc.DocToText = t
	}
	if s, ok := m["doc_to_target"].(string); ok {
		fc.DocToTarget = NewTemplate("doc_to_target", s)
	}
	if t, ok := g.portTemplate("fewshot_config.doc_to_target", "doc_to_target"); ok {
		fc.DocToTarget = t
	}
	if s, ok := m["gen_prefix"].(string); ok {
		fc.GenPrefix = NewTemplate("fewshot_config.gen_prefix", s)
	}
	if _, ok := m["doc_to_choice"]; ok {
		g.fail("fewshot_config", "doc_to_choice is not supported")
	}
	if u, ok := g.ports["fewshot_config.samples"]; ok {
		rows := u.Port.Samples()
		fc.Samples, fc.SampleColumns = rows.Docs, rows.Columns
		return fc
	}
	if s, ok := m["samples"]; ok && s != nil && !isFunction(s) {
		list, ok := s.([]any)
		if !ok {
			g.fail("fewshot_config", "samples: want a list of mappings")
			return fc
		}
		for i, e := range list {
			d, ok := e.(map[string]any)
			if !ok {
				g.fail("fewshot_config", "samples[%d]: want a mapping, got %s", i, kindOf(e))
				return fc
			}
			fc.Samples = append(fc.Samples, d)
		}
	}
	return fc
}

// generation reads generation_kwargs: until (default: the few-shot
// delimiter, as lm-eval), max_gen_toks (default 256), the rest recorded.
func (g *getter) generation(t *Task) ([]string, int, map[string]any) {
	until, maxNew := []string{t.FewshotDelimiter}, DefaultMaxNewTokens
	v, ok := g.rc.Keys["generation_kwargs"]
	if !ok || v == nil {
		return until, maxNew, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		g.fail("generation_kwargs", "want a mapping")
		return until, maxNew, nil
	}
	switch u := m["until"].(type) {
	case nil:
	case string:
		until = []string{u}
	case []any:
		until = nil
		for _, e := range u {
			s, ok := e.(string)
			if !ok {
				g.fail("generation_kwargs", "until: want strings, got %s", kindOf(e))
				return nil, 0, nil
			}
			until = append(until, s)
		}
	default:
		g.fail("generation_kwargs", "until: want a string or a list")
	}
	if x, ok := m["max_gen_toks"]; ok {
		i, ok := x.(int64)
		if !ok || i < 1 {
			g.fail("generation_kwargs", "max_gen_toks: want a positive integer")
		}
		maxNew = int(i)
	}
	return until, maxNew, m
}

func (g *getter) filters() []FilterPipeline {
	v, ok := g.rc.Keys["filter_list"]
	if !ok || v == nil {
		// lm-eval's default for generate_until: one "none" pipeline, take_first.
		return []FilterPipeline{{Name: "none", Steps: []FilterStep{{Function: "take_first"}}}}
	}
	list, ok := v.([]any)
	if !ok {
		g.fail("filter_list", "want a list of {name, filter}")
		return nil
	}
	var out []FilterPipeline
	for i, e := range list {
		m, ok := e.(map[string]any)
		name, _ := m["name"].(string)
		steps, _ := m["filter"].([]any)
		if !ok || name == "" || steps == nil {
			g.fail("filter_list", "entry %d: want {name, filter: [...]}", i)
			return nil
		}
		p := FilterPipeline{Name: name}
		for j, s := range steps {
			sm, ok := s.(map[string]any)
			if ok && g.python {
				if step, ok := g.pythonFilterStep(i, j, sm); ok {
					p.Steps = append(p.Steps, step)
					continue
				}
			}
			if !ok {
				g.fail("filter_list", "%s step %d: want {function, ...}", name, j)
				return nil
			}
			step := FilterStep{Params: map[string]any{}}
			var params []string
			switch fn := sm["function"].(type) {
			case pyFunction:
				u, ok := g.ports[fmt.Sprintf("filter_list[%d].filter[%d].function", i, j)]
				if !ok {
					return nil // resolvePorts recorded the blocker
				}
				ref := u.Ref
				step.Function, step.Port, params = ref.Function, &ref, u.Port.Filter.Params
			case string:
				f, known := hooks.LookupFilter(fn)
				if !known {
					g.block("filter_list", "filter "+fn, "%s step %d: function %q is not supported (supported: %s)", name, j, fn, strings.Join(hooks.FilterNames(), ", "))
					return nil
				}
				step.Function, params = fn, f.Params
			default:
				g.fail("filter_list", "%s step %d: want a function name", name, j)
				return nil
			}
			fn := step.Function
			for _, key := range sortedKeys(sm) {
				if key == "function" {
					continue
				}
				if !slices.Contains(params, key) {
					g.fail("filter_list", "%s step %d (%s): argument %s is not supported", name, j, fn, key)
					return nil
				}
				step.Params[key] = sm[key]
			}
			p.Steps = append(p.Steps, step)
		}
		if slices.ContainsFunc(out, func(f FilterPipeline) bool { return f.Name == name }) {
			g.fail("filter_list", "two pipelines named %q", name)
			return nil
		}
		out = append(out, p)
	}
	return out
}

func (g *getter) metrics(t *Task) []MetricSpec {
	v, ok := g.rc.Keys["metric_list"]
	if !ok || v == nil {
		// lm-eval's default metric for generate_until.
		return []MetricSpec{{Metric: "exact_match", Aggregation: "mean", HigherIsBetter: true}}
	}
	list, ok := v.([]any)
	if !ok {
		g.fail("metric_list", "want a list of {metric, ...}")
		return nil
	}
	var out []MetricSpec
	// With a ported process_results, the metric names are the keys it
	// returns; the metric functions are not used.
	hookScored := g.ports["process_results"].Port != nil
	for i, e := range list {
		m, ok := e.(map[string]any)
		if ok && g.python {
			blocked := len(g.blockers)
			if ms, ok := g.pythonMetric(t, i, m); ok {
				out = append(out, ms)
				continue
			}
			if len(g.blockers) > blocked {
				return nil
			}
		}
		name, _ := m["metric"].(string)
		if !ok || name == "" {
			if _, isFn := m["metric"].(pyFunction); !isFn {
				g.fail("metric_list", "entry %d: want {metric: NAME, ...}", i)
			}
			return nil
		}
		if cm, ok := hooks.LookupCorpusMetric(name); ok && !hookScored {
			ms, ok := g.corpusMetric(cm, m)
			if !ok {
				return nil
			}
			out = append(out, ms)
			continue
		}
		if _, known := hooks.LookupMetric(name); !known && !hookScored {
			g.block("metric_list", "metric "+name, "entry %d: metric %v is not supported (supported: %s)", i, name, strings.Join(append(hooks.MetricNames(), hooks.CorpusMetricNames()...), ", "))
			return nil
		}
		ms := MetricSpec{Metric: name, Aggregation: "mean", HigherIsBetter: true}
		for _, key := range sortedKeys(m) {
			if !slices.Contains(metricKeys, key) {
				g.fail("metric_list", "%s: option %s is not supported", name, key)
				return nil
			}
		}
		if a, ok := m["aggregation"]; ok {
			s, _ := a.(string)
			if _, known := hooks.LookupAggregation(s); !known {
				if !isFunction(a) {
					g.block("metric_list", "aggregation "+hooks.PyStr(a), "%s: aggregation %v is not supported (supported: %s)", name, a, strings.Join(hooks.AggregationNames(), ", "))
				}
				return nil
			}
		}
		flag := func(key string, dst *bool) {
			if x, ok := m[key]; ok {
				b, ok := x.(bool)
				if !ok {
					g.fail("metric_list", "%s: %s: want true or false", name, key)
				}
				*dst = b
			}
		}
		flag("higher_is_better", &ms.HigherIsBetter)
		flag("ignore_case", &ms.IgnoreCase)
		flag("ignore_punctuation", &ms.IgnorePunctuation)
		flag("ignore_numbers", &ms.IgnoreNumbers)
		if r, ok := m["regexes_to_ignore"]; ok {
			list, ok := r.([]any)
			if !ok {
				g.fail("metric_list", "%s: regexes_to_ignore: want a list of patterns", name)
				return nil
			}
			for _, p := range list {
				ms.RegexesToIgnore = append(ms.RegexesToIgnore, hooks.PyStr(p))
			}
		}
		out = append(out, ms)
	}
	return out
}

// corpusMetric reads a metric_list entry naming a corpus metric (bleu, chrf,
// ter): its aggregation is its own, as lm-eval's registry pairs them, and
// it takes no per-response options (lm-eval's passthrough ignores them).
func (g *getter) corpusMetric(cm hooks.CorpusMetric, m map[string]any) (MetricSpec, bool) {
	ms := MetricSpec{Metric: cm.Name, Aggregation: cm.Name, HigherIsBetter: cm.HigherIsBetter}
	for _, key := range sortedKeys(m) {
		switch key {
		case "metric":
		case "aggregation":
			if a, _ := m[key].(string); a != cm.Name {
				g.block("metric_list", "aggregation "+hooks.PyStr(m[key]), "%s: aggregation %v is not supported (a corpus metric aggregates as %s)", cm.Name, m[key], cm.Name)
				return MetricSpec{}, false
			}
		case "higher_is_better":
			b, ok := m[key].(bool)
			if !ok {
				g.fail("metric_list", "%s: higher_is_better: want true or false", cm.Name)
				return MetricSpec{}, false
			}
			ms.HigherIsBetter = b
		default:
			g.fail("metric_list", "%s: option %s is not supported (a corpus metric takes aggregation and higher_is_better)", cm.Name, key)
			return MetricSpec{}, false
		}
	}
	return ms, true
}
