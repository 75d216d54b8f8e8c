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

// Accuracies reads a run directory's identity (run key, start, model files,
// code revision, throughput) and every sampler's accuracy under every filter,
// pooled over seeds and repeats as the run's report pools them, for a sweep's
// tables and the history of nightly runs. It reads results.arrow and the
// manifest only.
func Accuracies(dir string) (*model.RunAccuracies, error) {
	r, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	scores, err := scoresOf(r)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	m := r.manifest
	out := &model.RunAccuracies{Dir: dir, Task: r.task(), RunKey: m.RunKey, Model: m.Config.Model, Started: m.Started,
		CodeRevision: m.Code.Revision, CodeModified: m.Code.Modified, Throughput: r.throughput(), CorpusAggregated: r.corpus.keys}
	for _, f := range m.Provenance.Model {
		out.ModelFiles = append(out.ModelFiles, f.SHA256)
	}
	if len(r.results) == 0 {
		return out, nil
	}
	if out.PrimaryFilter, err = scores.primaryFilter(m.Config.PrimaryFilter); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	specs := r.canonicalSpecs()
	for _, label := range r.samplerOrder() {
		s := model.SamplerAccuracies{Label: label, Spec: specs[label]}
		s.Family, s.Temperature = r.familyOf(label)
		for _, f := range scores.filters {
			p, ok := scores.groups[reports.SamplerFilter{Sampler: label, Filter: f}]
			if !ok {
				continue
			}
			acc, err := reports.ClusteredAccuracyOf(p)
			if err != nil {
				return nil, fmt.Errorf("run directory %s: sampler %q filter %q: %w", dir, label, f, err)
			}
			s.Filters = append(s.Filters, model.FilterAccuracy{Filter: f, ClusteredAccuracy: acc})
		}
		if len(s.Filters) > 0 {
			out.Samplers = append(out.Samplers, s)
		}
	}
	return out, nil
}

// SweepRunOf is Accuracies under the primary filter, as a sweep's figure and
// tables show a run; modelName names the model in them.
func SweepRunOf(dir, modelName string) (model.SweepRun, error) {
	a, err := Accuracies(dir)
	if err != nil {
		return model.SweepRun{}, err
	}
	out := model.SweepRun{Model: modelName, Task: a.Task, PrimaryFilter: a.PrimaryFilter}
	for _, s := range a.Samplers {
		for _, f := range s.Filters {
			if f.Filter == a.PrimaryFilter {
				out.Samplers = append(out.Samplers, model.SweepSampler{Label: s.Label, Family: s.Family, Temperature: s.Temperature, Accuracy: f.ClusteredAccuracy})
			}
		}
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
		if json.Unmarshal(specJSON(s.Spec), &spec) != nil {
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
