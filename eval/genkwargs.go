package eval

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// SamplerFromGenKwargs maps lm-eval generation kwargs (--gen_kwargs, or a task's
// generation_kwargs without its until) to one sampler, as lm-eval's HF model
// decodes with them: temperature 0 or do_sample false is greedy, whatever else is
// set; otherwise the truncations given, each off when not given (as vLLM, not
// HF's generation_config defaults). It returns max_gen_toks too (0: not set).
func SamplerFromGenKwargs(kw map[string]any) (sampler.Spec, int, error) {
	params := map[string]any{}
	doSample, maxNew := true, 0
	for _, k := range slices.Sorted(maps.Keys(kw)) {
		v := kw[k]
		var err error
		switch k {
		case "temperature", "top_p", "min_p":
			var f float64
			if f, err = genKwargNumber(v); err == nil {
				params[k] = f
			}
		case "top_k":
			var f float64
			if f, err = genKwargNumber(v); err == nil && f != float64(int(f)) {
				err = fmt.Errorf("want an integer")
			}
			params[k] = f
		case "do_sample":
			b, ok := v.(bool)
			if !ok {
				err = fmt.Errorf("want true or false")
			}
			doSample = b
		case "max_gen_toks", "max_new_tokens":
			var f float64
			if f, err = genKwargNumber(v); err == nil && (f < 1 || f != float64(int(f))) {
				err = fmt.Errorf("want a positive integer")
			}
			maxNew = int(f)
		default:
			return sampler.Spec{}, 0, fmt.Errorf("key %s is not supported (temperature, top_k, top_p, min_p, do_sample, max_gen_toks)", k)
		}
		if err != nil {
			return sampler.Spec{}, 0, fmt.Errorf("%s=%v: %w", k, v, err)
		}
	}
	if t, ok := params["temperature"]; !doSample || (ok && t == 0.0) {
		return sampler.Spec{Name: "greedy"}, maxNew, nil
	}
	if len(params) == 0 {
		return sampler.Spec{Name: "temperature"}, maxNew, nil
	}
	return sampler.Spec{Name: "combined", Params: params}, maxNew, nil
}

func genKwargNumber(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("want a number")
}

// TaskDefaultSampler is the sampler a run uses when none is given: what the
// task's generation_kwargs say, as lm-eval decodes a task with its own
// generation_kwargs when --gen_kwargs is not given. Every task of a group must
// agree. A task that names neither do_sample nor temperature leaves decoding to
// the model's generation_config in lm-eval, which is not followed here: the
// error asks for a sampler. It also returns how the choice reads, for the log.
func TaskDefaultSampler(cfg Config, tasks []string) (sampler.Spec, string, error) {
	ix, err := datasets.NewIndex(cfg.IncludePaths...)
	if err != nil {
		return sampler.Spec{}, "", err
	}
	ix.PythonHooks = cfg.PythonHooks // generation_kwargs only: the hooks are not run here
	var spec sampler.Spec
	var because []string
	for i, name := range tasks {
		var t *datasets.Task
		if IsTaskFile(name) {
			c := cfg
			c.Task = name
			t, err = ResolveTask(c)
		} else {
			t, err = ix.Task(name)
		}
		if err != nil {
			return sampler.Spec{}, "", err
		}
		s, why, err := taskSampler(t)
		if err != nil {
			return sampler.Spec{}, "", err
		}
		if i > 0 && s.DisplayLabel() != spec.DisplayLabel() {
			return sampler.Spec{}, "", fmt.Errorf("no sampler given, and tasks %s and %s decode differently (%s, %s): give --sampler", tasks[0], name, spec.DisplayLabel(), s.DisplayLabel())
		}
		spec = s
		because = append(because, name+": "+why)
	}
	if len(because) > 3 {
		because = append(because[:3], fmt.Sprintf("and %d more", len(because)-3))
	}
	return spec, strings.Join(because, "; "), nil
}

// taskSampler reads one task's generation_kwargs.
func taskSampler(t *datasets.Task) (sampler.Spec, string, error) {
	if datasets.IsScoredOutput(t.OutputType) {
		// It stands in for validation only: a scored run has one job and no sampler.
		return sampler.Spec{Name: "greedy"}, t.OutputType + " scores given continuations, no sampler runs", nil
	}
	kw := maps.Clone(t.Generation)
	delete(kw, "until")
	delete(kw, "max_gen_toks") // the task's budget, applied as the run's default anyway
	_, hasSample := kw["do_sample"]
	_, hasTemp := kw["temperature"]
	if !hasSample && !hasTemp {
		return sampler.Spec{}, "", fmt.Errorf("no sampler given, and task %s's generation_kwargs set neither do_sample nor temperature (lm-eval then decodes as the model's generation_config says): give --sampler, e.g. --sampler greedy", t.Name)
	}
	s, _, err := SamplerFromGenKwargs(kw)
	if err != nil {
		return sampler.Spec{}, "", fmt.Errorf("task %s: generation_kwargs: %w; give --sampler", t.Name, err)
	}
	parts := make([]string, 0, len(kw))
	for _, k := range slices.Sorted(maps.Keys(kw)) {
		parts = append(parts, fmt.Sprintf("%s: %v", k, kw[k]))
	}
	return s, "generation_kwargs {" + strings.Join(parts, ", ") + "} → " + s.DisplayLabel(), nil
}
