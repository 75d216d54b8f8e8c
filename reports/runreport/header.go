package runreport

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// budgetWarnShare is the share of responses stopped by the token budget above
// which a sampler's accuracy is flagged: its answers are likely cut off.
const budgetWarnShare = 0.2

// header is what ran, in the order a reader checks it: model and its hash,
// task, shots, limit, seeds, samplers, backend, precision, date.
func (r *run) header(rep *model.Report) []model.KeyValue {
	m := r.manifest
	var kv []model.KeyValue
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, model.KeyValue{Key: k, Value: v})
		}
	}
	modelName := m.Config.Model
	if modelName != "" {
		modelName = modelName + " (" + filepath.Base(modelName) + ")"
		if i := strings.Index(m.Config.Model, "/snapshots/"); i >= 0 { // a hub cache snapshot: its revision
			modelName = filepath.Base(filepath.Dir(m.Config.Model[:i])) + " @ " + filepath.Base(m.Config.Model)
		}
	}
	if h := r.provenance.ModelSHA256; h != "" {
		modelName = strings.TrimSpace(modelName + " · sha256 " + shortHash(h))
	}
	add("model", modelName)
	add("task", rep.Task)
	if rep.FewShot >= 0 {
		add("shots", strconv.Itoa(rep.FewShot))
	} else {
		add("shots", "not recorded")
	}
	switch {
	case m.Config.Limit > 0:
		add("problems", fmt.Sprintf("%d (--limit %d)", m.Problems, m.Config.Limit))
	case m.Problems > 0:
		add("problems", strconv.Itoa(m.Problems))
	}
	if len(m.Config.Seeds) > 0 {
		seeds := make([]string, len(m.Config.Seeds))
		for i, s := range m.Config.Seeds {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		add("seeds", strings.Join(seeds, ", "))
	}
	labels := make([]string, len(rep.Samplers))
	for i, s := range rep.Samplers {
		labels[i] = s.Label
	}
	add("samplers", strings.Join(labels, ", "))
	add("backend", strings.TrimSpace(m.Backend+" "+strings.Join(m.DeviceNames, ", ")))
	precision := m.Provenance.DType
	if m.Config.MatmulPrecision != "" && m.Config.MatmulPrecision != "fp32" {
		precision += ", matmul " + m.Config.MatmulPrecision
	}
	add("precision", precision)
	if budget := r.budget(); budget > 0 {
		add("token budget", strconv.Itoa(budget))
	}
	date := timeText(&m.Started)
	if len(date) >= 10 {
		date = date[:10]
	}
	add("date", date)
	return kv
}

// budget is the generation budget in effect: the sweep's, else the task's.
func (r *run) budget() int {
	if n := r.manifest.Config.MaxNewTokens; n > 0 {
		return n
	}
	return r.manifest.Task.MaxNewTokens
}

// warnings are what makes a number not mean what it seems: prompts cut to fit
// the context, answers cut by the token budget, comparisons no test can decide.
// The page shows them above everything; the terminal prints them too.
func (r *run) warnings(rep *model.Report) []string {
	var out []string
	if st := r.manifest.Stats; st != nil && st.PromptsCut > 0 {
		w := fmt.Sprintf("%d of %d prompts were cut on the left to fit max_seq_len %d", st.PromptsCut, r.manifest.Problems, r.manifest.Config.MaxSeqLen)
		if rep.FewShot > 0 {
			w += fmt.Sprintf(": those problems ran with fewer than the %d shots the table names", rep.FewShot)
		}
		out = append(out, w+" (raise --max-seq-len, or lower --num-fewshot).")
	}
	for _, s := range rep.Samplers {
		if s.Responses > 0 && s.TruncationRate >= budgetWarnShare {
			out = append(out, fmt.Sprintf("%s: %.0f%% of responses stopped at the token budget (%d tokens), so answers may be cut off before they are given (raise --max-new-tokens).",
				s.Label, 100*s.TruncationRate, r.budget()))
		}
	}
	for _, c := range rep.Comparisons {
		if c.Primary && c.NDiffering == 0 && c.NProblems > 0 {
			out = append(out, fmt.Sprintf("%s and %s score the same on every one of the %d problems under %s: no difference can be tested (p = 1, no sensitivity to report).",
				c.Sampler, rep.Baseline, c.NProblems, c.Filter))
		}
	}
	return out
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
