package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/entropix-eval/entropix-eval/reports/runreport"
)

// runMatrix runs a sweep that lists models or tasks: every model × task is
// checked first (a typo in the last cell fails before the first runs), then
// each runs into out/<model>/<task> as its own sweep would, one after
// another; a cell already finished is only re-read, so the same command
// resumes the matrix. --shard i/n applies to every cell (merge merges the
// cells' shards). The sweep's figure and tables come last.
func runMatrix(ctx context.Context, cfg eval.Config, rf *runFlags, stdout, stderr io.Writer) error {
	cells, err := eval.ExpandMatrix(cfg)
	if err != nil {
		return fmt.Errorf("%w: invalid sweep:\n%w", errUsage, err)
	}
	var errs []error
	for i := range cells {
		if cells[i].Config, err = prepareSweep(cells[i].Config, rf, stderr); err != nil {
			errs = append(errs, fmt.Errorf("%s × %s: %w", cells[i].Model, cells[i].Task, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := eval.WriteSweepIndex(cfg.Out, cfg.Name, cells); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sweep %s: %d models × tasks into %s\n", cfg.Name, len(cells), cfg.Out)
	for i, c := range cells {
		fmt.Fprintf(stdout, "\n[%d/%d] %s × %s → %s\n", i+1, len(cells), c.Model, c.Task, c.Config.Out)
		if err := eval.ClaimDir(filepath.Dir(c.Config.Out)); err != nil {
			return err
		}
		if err := runSweepTasks(ctx, c.Config, rf, stdout); err != nil {
			return fmt.Errorf("%s × %s: %w", c.Model, c.Task, err)
		}
	}
	if cfg.Shard != "" {
		return nil // the merge writes the sweep's figure and tables
	}
	return writeMatrixFigures(cfg.Out, stdout)
}

// cellRuns lists the run directories of a sweep's cell: the cell's own, or
// its group members' (run directories one level down), by name.
func cellRuns(sweepDir string, c eval.Cell) ([]string, error) {
	dir := filepath.Join(sweepDir, filepath.FromSlash(c.Dir))
	if isRunDir(dir) {
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sweep %s: cell %s: %w", sweepDir, c.Dir, err)
	}
	var out []string
	for _, e := range entries {
		if sub := filepath.Join(dir, e.Name()); e.IsDir() && isRunDir(sub) {
			out = append(out, sub)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sweep %s: cell %s holds no run directory (no %s)", sweepDir, c.Dir, eval.ManifestFile)
	}
	return out, nil
}

func isRunDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, eval.ManifestFile))
	return err == nil
}

// writeMatrixFigures writes a finished matrix sweep's figure (accuracy vs
// temperature per sampler family, per model × task) and its model × sampler
// tables per task, beside sweep.json.
func writeMatrixFigures(dir string, stdout io.Writer) error {
	ix, err := eval.ReadSweepIndex(dir)
	if err != nil {
		return err
	}
	var runs []model.SweepRun
	for _, c := range ix.Cells {
		dirs, err := cellRuns(dir, c)
		if err != nil {
			return err
		}
		modelName, _, _ := strings.Cut(c.Dir, "/")
		for _, d := range dirs {
			r, err := runreport.SweepRunOf(d, modelName)
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
	}
	files, err := runreport.WriteSweep(dir, runs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nsweep figures and tables in %s: %s\n", dir, strings.Join(files, ", "))
	return nil
}

// mergeMatrix merges the shards of a matrix sweep (run --shard i/n --out
// OUT/shard-i of a sweep listing models or tasks) cell by cell into out: each
// run directory, a group's members and its group_results.json, sweep.json,
// then the sweep's figure and tables.
func mergeMatrix(out string, shards []string, o eval.Outputs, stdout io.Writer) error {
	var ix eval.SweepIndex
	for i, s := range shards {
		got, err := eval.ReadSweepIndex(s)
		if err != nil {
			return fmt.Errorf("merge: %s is not a shard of a matrix sweep like %s: %w", s, shards[0], err)
		}
		if i == 0 {
			ix = got
		} else if !slices.EqualFunc(got.Cells, ix.Cells, func(a, b eval.Cell) bool { return a.Model == b.Model && a.Task == b.Task && a.Dir == b.Dir }) {
			return fmt.Errorf("merge: %s and %s list different models × tasks (%s)", shards[0], s, eval.SweepIndexFile)
		}
	}
	if err := eval.WriteSweepIndex(out, ix.Name, ix.Cells); err != nil {
		return err
	}
	for _, c := range ix.Cells {
		first, err := cellRuns(shards[0], c)
		if err != nil {
			return err
		}
		cellOut := filepath.Join(out, filepath.FromSlash(c.Dir))
		if err := eval.ClaimDir(filepath.Dir(cellOut)); err != nil {
			return err
		}
		grouped := len(first) > 1 || first[0] != filepath.Join(shards[0], filepath.FromSlash(c.Dir))
		if grouped {
			if err := eval.ClaimDir(cellOut); err != nil {
				return err
			}
		}
		var merged []string
		for _, run := range first {
			rel, err := filepath.Rel(shards[0], run)
			if err != nil {
				return err
			}
			merged = append(merged, filepath.Join(out, rel))
			ins := make([]string, len(shards))
			for i, s := range shards {
				ins[i] = filepath.Join(s, rel)
			}
			fmt.Fprintf(stdout, "\nmerge %s\n", filepath.ToSlash(rel))
			if err := eval.Merge(filepath.Join(out, rel), ins, o); err != nil {
				return err
			}
		}
		if grouped {
			m, err := eval.ReadManifest(merged[0])
			if err != nil {
				return err
			}
			cfg := m.Config
			cfg.Task = c.Task
			if err := writeGroupSummary(stdout, cfg, cellOut); err != nil {
				return err
			}
		}
	}
	return writeMatrixFigures(out, stdout)
}
