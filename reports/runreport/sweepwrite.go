package runreport

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/reports/figures"
	"github.com/entropix-eval/entropix-eval/reports/latex"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// WriteSweep writes a sweep matrix's own figures and tables into dir (the
// sweep's out): figures/sweep-<model>-<task>.svg and .pdf (accuracy vs
// temperature per sampler family, for each model × task with a temperature
// grid) and, per task, tables/sweep-<task>.tex and .md (model × sampler). It
// returns the files written, relative to dir.
func WriteSweep(dir string, runs []model.SweepRun) ([]string, error) {
	var written []string
	var tasks []string
	byTask := map[string][]model.SweepRun{}
	for _, r := range runs {
		if _, ok := byTask[r.Task]; !ok {
			tasks = append(tasks, r.Task)
		}
		byTask[r.Task] = append(byTask[r.Task], r)
		if !hasTemperature(r) {
			continue
		}
		p, err := figures.AccuracyVsTemperature(r)
		if err != nil {
			return written, err
		}
		if err := os.MkdirAll(filepath.Join(dir, FiguresDir), 0o755); err != nil {
			return written, fmt.Errorf("sweep figures: %w", err)
		}
		name := "sweep-" + figures.Slug(r.Model) + "-" + figures.Slug(r.Task)
		// Two columns wide: a sweep's families and their legend are the paper's main figure.
		if _, err := figures.Save(p, filepath.Join(dir, FiguresDir), name, figures.TwoColumn); err != nil {
			return written, err
		}
		written = append(written, filepath.Join(FiguresDir, name+".svg"), filepath.Join(FiguresDir, name+".pdf"))
	}
	if len(tasks) > 0 {
		if err := os.MkdirAll(filepath.Join(dir, TablesDir), 0o755); err != nil {
			return written, fmt.Errorf("sweep tables: %w", err)
		}
	}
	for _, t := range tasks {
		name := "sweep-" + figures.Slug(t)
		var tex bytes.Buffer
		if err := latex.SweepTable(&tex, dir, t, byTask[t], latex.Options{}); err != nil {
			return written, err
		}
		for file, data := range map[string][]byte{name + ".tex": tex.Bytes(), name + ".md": []byte(sweepMarkdown(t, byTask[t]))} {
			if err := figures.WriteFileAtomic(filepath.Join(dir, TablesDir, file), data); err != nil {
				return written, err
			}
			written = append(written, filepath.Join(TablesDir, file))
		}
	}
	return written, nil
}

func hasTemperature(r model.SweepRun) bool {
	for _, s := range r.Samplers {
		if !math.IsNaN(s.Temperature) {
			return true
		}
	}
	return false
}

// sweepMarkdown is the model × sampler table of one task as Markdown: the
// accuracy (%) and its 95% interval over problems in each cell.
func sweepMarkdown(task string, runs []model.SweepRun) string {
	labels, cell := latex.SweepGrid(runs)
	head := []string{"sampler"}
	right := []bool{false}
	for _, r := range runs {
		head = append(head, mdEscape(r.Model))
		right = append(right, true)
	}
	rows := [][]string{head}
	for i, l := range labels {
		row := []string{mdEscape(l)}
		for j := range runs {
			s, ok := cell(i, j)
			if !ok {
				row = append(row, "–")
				continue
			}
			a := s.Accuracy
			c := fmt.Sprintf("%.1f", 100*a.Mean)
			if !math.IsNaN(a.CILow) && !math.IsNaN(a.CIHigh) {
				c += fmt.Sprintf(" [%.1f, %.1f]", 100*a.CILow, 100*a.CIHigh)
			}
			row = append(row, c)
		}
		rows = append(rows, row)
	}
	filter := ""
	if len(runs) > 0 {
		filter = runs[0].PrimaryFilter
	}
	return fmt.Sprintf("### %s: accuracy (%%) [95%% CI] by model and sampler (%s)\n\n", mdEscape(task), mdEscape(filter)) +
		AlignedTable(rows, right, true)
}
