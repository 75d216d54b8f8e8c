package runreport

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/figures"
	"github.com/entropix-eval/entropix-eval/reports/html"
	"github.com/entropix-eval/entropix-eval/reports/latex"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"gonum.org/v1/plot"
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
	return rep, write(dir, rep, !opt.NoParquet)
}

// Write writes the files of a computed report into dir, with the Parquet
// copies of its Arrow files.
func Write(dir string, rep *model.Report) error { return write(dir, rep, true) }

// write writes the report's files, with Parquet copies when parquet is set.
func write(dir string, rep *model.Report, parquet bool) error {
	if err := reports.WriteSummary(filepath.Join(dir, SummaryFile), rep.Summary, reports.WithProvenance(rep.Provenance)); err != nil {
		return err
	}
	if err := reports.WriteComparisons(filepath.Join(dir, ComparisonsFile), rep.Comparisons, rep.Provenance); err != nil {
		return err
	}
	for _, name := range []string{SummaryFile, ComparisonsFile} {
		path := filepath.Join(dir, name)
		if parquet {
			if err := reports.WriteParquetCopy(path); err != nil {
				return err
			}
		} else if err := os.Remove(reports.ParquetPath(path)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	figs, err := writeFigures(filepath.Join(dir, FiguresDir), rep)
	if err != nil {
		return err
	}
	if err := writeTables(filepath.Join(dir, TablesDir), rep); err != nil {
		return err
	}
	// The atomic writer buffers, so the page's many small writes stay cheap.
	return reports.WriteFileAtomic(filepath.Join(dir, HTMLFile), func(w io.Writer) error {
		return html.Render(w, rep, figs)
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
	size := figures.OneColumn
	if rep.FigureSize != "" {
		var err error
		if size, err = figures.SizeNamed(rep.FigureSize); err != nil {
			return out, err
		}
	}
	// draw saves one figure; ok is false when it could not be drawn (noted).
	draw := func(p *plot.Plot, drawErr error, name, title string) (fig html.Figure, ok bool, err error) {
		if drawErr != nil {
			rep.Notes = append(rep.Notes, drawErr.Error())
			return fig, false, nil
		}
		svg, err := figures.Save(p, dir, name, size)
		if err != nil {
			return fig, false, err
		}
		return html.Figure{Title: title + " (figures/" + name + ".svg, .pdf)", SVG: svg}, true, nil
	}
	if len(rep.Comparisons) > 0 {
		p, err := figures.Forest(rep.Comparisons, rep.PrimaryFilter)
		fig, ok, err := draw(p, err, "forest", "Difference from "+rep.Baseline+" ("+rep.PrimaryFilter+", 95% CI)")
		if err != nil {
			return out, err
		}
		if ok {
			out.Forest = &fig
		}
	}
	if len(rep.Filters) > 0 { // only corpus-aggregated scores: no per-problem accuracy to draw
		primary := max(0, slices.Index(rep.Filters, rep.PrimaryFilter))
		p, err := figures.Accuracy(rep.Samplers, primary)
		fig, ok, err := draw(p, err, "accuracy", "Accuracy ("+rep.PrimaryFilter+") with 95% CI over problems")
		if err != nil {
			return out, err
		}
		if ok {
			out.Accuracy = &fig
		}
	}
	for i, d := range rep.Density {
		p, err := figures.Density(d)
		fig, ok, err := draw(p, err, fmt.Sprintf("density-%d-%s", i+1, figures.Slug(d.Sampler)), d.Sampler)
		if err != nil {
			return out, err
		}
		if ok {
			out.Density = append(out.Density, fig)
		}
	}
	for i, c := range rep.Curves {
		p, err := figures.EntropyCurves(c)
		fig, ok, err := draw(p, err, fmt.Sprintf("entropy-steps-%d-%s", i+1, figures.Slug(c.Sampler)), c.Sampler)
		if err != nil {
			return out, err
		}
		if ok {
			out.Curves = append(out.Curves, fig)
		}
	}
	return out, nil
}

func writeTables(dir string, rep *model.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tables: %w", err)
	}
	for name, write := range map[string]func(io.Writer, *model.Report) error{
		"accuracy.tex": func(w io.Writer, r *model.Report) error {
			return latex.AccuracyTable(w, r, latex.Options{Label: rep.TableLabel})
		},
		"paired.tex": func(w io.Writer, r *model.Report) error {
			return latex.ComparisonTable(w, r, latex.Options{Label: rep.TableLabel})
		},
		"paired-secondary.tex": func(w io.Writer, r *model.Report) error {
			return latex.SecondaryTable(w, r, latex.Options{Label: rep.TableLabel})
		},
		"results.md": WriteMarkdown,
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
