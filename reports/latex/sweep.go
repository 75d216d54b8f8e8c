package latex

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// SweepTable writes a sweep's model × sampler table for one task: a row per
// sampler (in the sweep's order), a column per model, each cell the accuracy
// (%) ± SE over problems under the run's primary filter (seeds and repeats
// averaged within a problem, as in each run's accuracy table), the best of
// each model in bold; "--" where a model did not run the sampler. source names
// the sweep's directory in the file's comment.
func SweepTable(w io.Writer, source, task string, runs []model.SweepRun, opt Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("sweep table of %s: no runs", task)
	}
	labels, cell := SweepGrid(runs)
	best := make([]float64, len(runs))
	n := 0
	filters := map[string]bool{}
	for j, r := range runs {
		best[j] = math.Inf(-1)
		filters[r.PrimaryFilter] = true
		for _, s := range r.Samplers {
			best[j] = max(best[j], s.Accuracy.Mean)
			n = max(n, s.Accuracy.N)
		}
	}
	var b strings.Builder
	filter := runs[0].PrimaryFilter
	if len(filters) > 1 {
		filter = "each run's primary filter"
	}
	caption := fmt.Sprintf("%s: accuracy (\\%%) $\\pm$ SE over $n = %d$ problems by model and sampler (%s; seeds and repeats averaged within each problem). Best of each model in bold.",
		Escape(task), n, Escape(filter))
	head := []string{"Sampler"}
	for _, r := range runs {
		head = append(head, stacked(r.Model))
	}
	header(&b, &model.Report{RunDir: source}, caption, opt.label("sweep-"+task), labelColumn+strings.Repeat("r", len(runs)), len(runs) > 3)
	b.WriteString(strings.Join(head, " & ") + " \\\\\n\\midrule\n")
	for i, l := range labels {
		cells := []string{label(l)}
		for j := range runs {
			s, ok := cell(i, j)
			if !ok {
				cells = append(cells, "--")
				continue
			}
			c := num(s.Accuracy.Mean, false)
			if s.Accuracy.Mean == best[j] {
				c = `\textbf{` + c + `}`
			}
			if !math.IsNaN(s.Accuracy.SE) {
				c += `\,{\scriptsize$\pm$` + num(s.Accuracy.SE, false) + `}`
			}
			cells = append(cells, c)
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	footer(&b, len(runs) > 3)
	_, err := io.WriteString(w, b.String())
	return err
}

// SweepGrid lays out runs of one task as a sampler × model grid: the sampler
// labels in first-seen order, and the cell of label i and run j (false where
// run j has no such sampler). The LaTeX and Markdown tables share it.
func SweepGrid(runs []model.SweepRun) ([]string, func(i, j int) (model.SweepSampler, bool)) {
	var labels []string
	row := map[string]int{}
	cells := make([]map[int]model.SweepSampler, len(runs))
	for j, r := range runs {
		cells[j] = map[int]model.SweepSampler{}
		for _, s := range r.Samplers {
			i, ok := row[s.Label]
			if !ok {
				i = len(labels)
				row[s.Label] = i
				labels = append(labels, s.Label)
			}
			cells[j][i] = s
		}
	}
	return labels, func(i, j int) (model.SweepSampler, bool) {
		s, ok := cells[j][i]
		return s, ok
	}
}
