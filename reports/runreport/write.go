package runreport

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/figures"
	"github.com/entropix-eval/entropix-eval/reports/html"
	"github.com/entropix-eval/entropix-eval/reports/latex"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// Build computes a run directory's report and writes summary.arrow,
// comparisons.arrow, figures/, tables/ and report.html into it. Each file is
// written atomically; report.html comes last, so its presence means the rest
// is up to date.
func Build(dir string, opt Options) (*model.Report, error) {
	rep, err := Compute(dir, opt)
	if err != nil {
		return nil, err
	}
	return rep, Write(dir, rep)
}

// Write writes the files of a computed report into dir.
func Write(dir string, rep *model.Report) error {
	if err := reports.WriteSummary(filepath.Join(dir, SummaryFile), rep.Summary); err != nil {
		return err
	}
	if err := reports.WriteComparisons(filepath.Join(dir, ComparisonsFile), rep.Comparisons); err != nil {
		return err
	}
	figs, err := writeFigures(filepath.Join(dir, FiguresDir), rep)
	if err != nil {
		return err
	}
	if err := writeTables(filepath.Join(dir, TablesDir), rep); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, HTMLFile), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := html.Render(bw, rep, figs); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// writeFigures writes every figure as SVG and PDF and returns the SVGs for the
// page. A figure that cannot be drawn (say, a sampler without tokens) is left
// out with a note rather than failing the report.
func writeFigures(dir string, rep *model.Report) (html.Figures, error) {
	var out html.Figures
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return out, fmt.Errorf("figures: %w", err)
	}
	if p, err := figures.Accuracy(rep.Samplers, 0); err == nil {
		svg, err := figures.Save(p, dir, "accuracy")
		if err != nil {
			return out, err
		}
		out.Accuracy = &html.Figure{Title: "Strict accuracy with 95% Wilson intervals (figures/accuracy.svg, .pdf)", SVG: svg}
	} else {
		rep.Notes = append(rep.Notes, err.Error())
	}
	for i, d := range rep.Density {
		name := fmt.Sprintf("density-%d-%s", i+1, figures.Slug(d.Sampler))
		p, err := figures.Density(d)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
			continue
		}
		svg, err := figures.Save(p, dir, name)
		if err != nil {
			return out, err
		}
		out.Density = append(out.Density, html.Figure{Title: d.Sampler + " (figures/" + name + ".svg, .pdf)", SVG: svg})
	}
	for i, c := range rep.Curves {
		name := fmt.Sprintf("entropy-steps-%d-%s", i+1, figures.Slug(c.Sampler))
		p, err := figures.EntropyCurves(c)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
			continue
		}
		svg, err := figures.Save(p, dir, name)
		if err != nil {
			return out, err
		}
		out.Curves = append(out.Curves, html.Figure{Title: c.Sampler + " (figures/" + name + ".svg, .pdf)", SVG: svg})
	}
	return out, nil
}

func writeTables(dir string, rep *model.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tables: %w", err)
	}
	for name, write := range map[string]func(io.Writer, *model.Report) error{
		"accuracy.tex": latex.AccuracyTable, "paired.tex": latex.ComparisonTable,
	} {
		var b bytes.Buffer
		if err := write(&b, rep); err != nil {
			return fmt.Errorf("tables/%s: %w", name, err)
		}
		if err := figures.WriteFileAtomic(filepath.Join(dir, name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
