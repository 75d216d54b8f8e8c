package runreport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// A sweep directory holds one run directory per task (run --task a,b or a
// group writes them side by side); its tasks × samplers can form one Holm
// family (--holm-family sweep), the family a paper's claims across tasks
// need (Dror et al. 2018).

// IsRunDir says whether dir holds a run's results.arrow.
func IsRunDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ResultsFile))
	return err == nil
}

// SweepTasks lists the run directories directly under dir, by name.
func SweepTasks(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sweep directory: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && IsRunDir(filepath.Join(dir, e.Name())) {
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds neither %s nor run directories with one", dir, ResultsFile)
	}
	return out, nil
}

// sweepFamily names the one family of a sweep directory.
func sweepFamily(dir string) string {
	return reports.HolmSweep + ":" + filepath.Base(filepath.Clean(dir))
}

// holmAcrossSweep Holm-adjusts the primary rows of every task as one family.
func holmAcrossSweep(rows [][]reports.ComparisonRow, dir string, alpha float64) error {
	var all []*reports.ComparisonRow
	for _, rs := range rows {
		for i := range rs {
			all = append(all, &rs[i])
		}
	}
	name := sweepFamily(dir)
	return reports.AssignHolm(all, func(r *reports.ComparisonRow) string {
		if r.Primary {
			return name
		}
		return ""
	}, alpha)
}

// BuildSweep computes the report of every task under a sweep directory, with
// their primary comparisons Holm-adjusted as one family, and writes each into
// its task's directory. lock, when not nil, is held around each task's
// computing and writing.
func BuildSweep(dir string, opt Options, lock func(taskDir string) (unlock func(), err error)) ([]*model.Report, error) {
	tasks, err := SweepTasks(dir)
	if err != nil {
		return nil, err
	}
	var unlocks []func()
	defer func() {
		for _, u := range unlocks {
			u()
		}
	}()
	reps := make([]*model.Report, len(tasks))
	rows := make([][]reports.ComparisonRow, len(tasks))
	for i, task := range tasks {
		taskDir := filepath.Join(dir, task)
		if lock != nil {
			unlock, err := lock(taskDir)
			if err != nil {
				return nil, err
			}
			unlocks = append(unlocks, unlock)
		}
		if reps[i], err = Compute(taskDir, opt); err != nil {
			return nil, err
		}
		rows[i] = reps[i].Comparisons
	}
	if err := holmAcrossSweep(rows, dir, reportAlpha); err != nil {
		return nil, err
	}
	for i, task := range tasks {
		if err := Write(filepath.Join(dir, task), reps[i]); err != nil {
			return nil, err
		}
	}
	return reps, nil
}

// Comparisons are one or more tasks' comparisons: one for two run
// directories, one per common task for two sweep directories.
type Comparisons struct {
	Tasks []*Comparison
	// Notes name tasks present in one sweep only.
	Notes []string
}

// CompareDirs compares two run directories (Compare), or two sweep
// directories task by task (tasks pair by directory name). With
// HolmFamily sweep the common tasks' primary rows form one family.
func CompareDirs(dirA, dirB string, opt CompareOptions) (*Comparisons, error) {
	if IsRunDir(dirA) || IsRunDir(dirB) {
		c, err := Compare(dirA, dirB, opt)
		if err != nil {
			return nil, err
		}
		return &Comparisons{Tasks: []*Comparison{c}}, nil
	}
	tasksA, err := SweepTasks(dirA)
	if err != nil {
		return nil, err
	}
	tasksB, err := SweepTasks(dirB)
	if err != nil {
		return nil, err
	}
	out := &Comparisons{}
	for _, t := range tasksB {
		if !slices.Contains(tasksA, t) {
			out.Notes = append(out.Notes, fmt.Sprintf("task %s is only in %s: not compared.", t, dirB))
			continue
		}
		c, err := Compare(filepath.Join(dirA, t), filepath.Join(dirB, t), opt)
		if err != nil {
			return nil, err
		}
		c.Name = t
		out.Tasks = append(out.Tasks, c)
	}
	for _, t := range tasksA {
		if !slices.Contains(tasksB, t) {
			out.Notes = append(out.Notes, fmt.Sprintf("task %s is only in %s: not compared.", t, dirA))
		}
	}
	if len(out.Tasks) == 0 {
		return nil, fmt.Errorf("compare: sweeps %s and %s share no task", dirA, dirB)
	}
	if opt.HolmFamily == reports.HolmSweep {
		rows := make([][]reports.ComparisonRow, len(out.Tasks))
		for i, c := range out.Tasks {
			rows[i] = c.Rows
		}
		if err := holmAcrossSweep(rows, dirB, out.Tasks[0].Alpha); err != nil {
			return nil, err
		}
		for _, c := range out.Tasks {
			c.findRegressions()
		}
	}
	return out, nil
}

// WriteTable prints every task's table.
func (cs *Comparisons) WriteTable(w io.Writer) error {
	for i, c := range cs.Tasks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if err := c.WriteTable(w); err != nil {
			return err
		}
	}
	for _, n := range cs.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// MarshalJSON is the rows with comparisons.arrow's column names: an array for
// one task, an object of arrays keyed by task directory for a sweep.
func (cs *Comparisons) MarshalJSON() ([]byte, error) {
	if len(cs.Tasks) == 1 {
		return reports.MarshalComparisonsJSON(cs.Tasks[0].Rows)
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, c := range cs.Tasks {
		if i > 0 {
			b.WriteString(",")
		}
		rows, err := reports.MarshalComparisonsJSON(c.Rows)
		if err != nil {
			return nil, err
		}
		key, err := json.Marshal(c.Name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "\n%s: %s", key, strings.TrimSuffix(string(rows), "\n"))
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// Err is the gate over every task: nil, or a *RegressionError naming each drop.
func (cs *Comparisons) Err() error {
	var msgs []string
	for _, c := range cs.Tasks {
		var drop *RegressionError
		if err := c.Err(); errors.As(err, &drop) {
			msgs = append(msgs, c.Name+": "+drop.msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	if len(cs.Tasks) == 1 {
		return cs.Tasks[0].Err()
	}
	return &RegressionError{strings.Join(msgs, "; ")}
}
