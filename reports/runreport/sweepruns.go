package runreport

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// SweepRunOf reads one run directory of a sweep for the sweep's figure and
// tables: each sampler's accuracy under the primary filter (the sweep's
// primary_filter, else the task's first), pooled over seeds and repeats as
// the run's report pools them, with its temperature and family from the
// manifest. modelName names the model in the sweep's tables.
func SweepRunOf(dir, modelName string) (model.SweepRun, error) {
	r, err := loadRun(dir)
	if err != nil {
		return model.SweepRun{}, err
	}
	scores, err := scoresOf(r.results)
	if err != nil {
		return model.SweepRun{}, fmt.Errorf("run directory %s: %w", dir, err)
	}
	out := model.SweepRun{Model: modelName, Task: r.task()}
	if len(r.results) == 0 {
		return out, nil
	}
	if out.PrimaryFilter, err = scores.primaryFilter(r.manifest.Config.PrimaryFilter); err != nil {
		return model.SweepRun{}, fmt.Errorf("run directory %s: %w", dir, err)
	}
	for _, label := range r.samplerOrder() {
		p, ok := scores.groups[reports.SamplerFilter{Sampler: label, Filter: out.PrimaryFilter}]
		if !ok {
			continue
		}
		acc, err := reports.ClusteredAccuracyOf(p)
		if err != nil {
			return model.SweepRun{}, fmt.Errorf("run directory %s: sampler %q: %w", dir, label, err)
		}
		family, temp := r.familyOf(label)
		out.Samplers = append(out.Samplers, model.SweepSampler{Label: label, Family: family, Temperature: temp, Accuracy: acc})
	}
	return out, nil
}

// familyOf returns a sampler's family (its name and settings but temperature)
// and temperature in effect (NaN when greedy or none), from its manifest entry;
// a sampler the manifest does not describe is its own family.
func (r *run) familyOf(label string) (string, float64) {
	for _, s := range r.manifest.Samplers {
		if s.Label != label {
			continue
		}
		var spec, desc map[string]any
		if json.Unmarshal(s.Spec, &spec) != nil {
			break
		}
		_ = json.Unmarshal(s.Description, &desc) // a string description has no fields
		temp := math.NaN()
		if t, ok := desc["temperature"].(float64); ok {
			temp = t
		} else if t, ok := spec["temperature"].(float64); ok {
			temp = t
		}
		if greedy, _ := desc["greedy"].(bool); greedy {
			temp = math.NaN()
		}
		name, _ := spec["name"].(string)
		var keys []string
		for k := range spec {
			if k != "name" && k != "label" && k != "temperature" {
				keys = append(keys, k)
			}
		}
		switch {
		case name == "":
			return label, temp
		case len(keys) == 0:
			return name, temp
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + "=" + paramText(spec[k])
		}
		return name + "(" + strings.Join(parts, ",") + ")", temp
	}
	return label, math.NaN()
}

func paramText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
