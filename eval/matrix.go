package eval

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/entropix-eval/entropix-eval/internal/safepath"
)

// SweepIndexFile sits at the top of a matrix sweep's out and lists its cells,
// so merge, the sweep figure and history find every run directory without
// walking the tree.
const SweepIndexFile = "sweep.json"

// Cell is one model × task of a sweep matrix: a sweep of its own, run into
// Dir (relative to the matrix's out).
type Cell struct {
	// Model and Task are as the sweep file wrote them (a directory or a hub id;
	// a task, group or task file).
	Model string `json:"model"`
	Task  string `json:"task"`
	// Dir is <model name>/<task name>, slash-separated.
	Dir    string `json:"dir"`
	Config Config `json:"-"`
}

// ExpandMatrix turns a matrix sweep into its cells, models outermost, each
// cell's Config the sweep one would write by hand for that model and task
// (model and task set, models and tasks empty, out OUT/<model>/<task>), so
// the runs are the same whichever way they were written.
func ExpandMatrix(c Config) ([]Cell, error) {
	var errs []error
	if len(c.Models) > 0 && c.Model != "" {
		errs = append(errs, errors.New("models: and model: both given; list every model under models"))
	}
	if len(c.Tasks) > 0 && c.Task != "" {
		errs = append(errs, errors.New("tasks: and task: both given; list every task under tasks"))
	}
	if c.Out == "" {
		errs = append(errs, errors.New("out: required (the sweep's directory; each model × task runs into out/<model>/<task>)"))
	}
	models, modelDirs, err := matrixNames("models", c.Models, c.Model, modelDirName)
	errs = append(errs, err)
	tasks, taskDirs, err := matrixNames("tasks", c.Tasks, c.Task, taskDirName)
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	cells := make([]Cell, 0, len(models)*len(tasks))
	for i, m := range models {
		for j, t := range tasks {
			cfg := c
			cfg.Models, cfg.Tasks = nil, nil
			cfg.Model, cfg.Task = m, t
			cfg.Out = filepath.Join(c.Out, modelDirs[i], taskDirs[j])
			cells = append(cells, Cell{Model: m, Task: t, Dir: modelDirs[i] + "/" + taskDirs[j], Config: cfg})
		}
	}
	return cells, nil
}

// matrixNames returns a matrix axis (the list, else the one value) with each
// entry's directory name, refusing empty entries, repeats and two entries
// that would share a directory.
func matrixNames(key string, list []string, one string, dirName func(string) string) ([]string, []string, error) {
	if len(list) == 0 {
		if one == "" {
			return nil, nil, fmt.Errorf("%s: required (or %s)", key, strings.TrimSuffix(key, "s"))
		}
		list = []string{one}
	}
	var errs []error
	dirs := make([]string, len(list))
	byDir := map[string]int{}
	for i, v := range list {
		dirs[i] = dirName(v)
		if err := safepath.Name(key, dirs[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s[%d]: %w", key, i, err))
			continue
		}
		if j, dup := byDir[dirs[i]]; dup {
			errs = append(errs, fmt.Errorf("%s[%d] %q and %s[%d] %q would both run into the directory %s; list each once, or rename one", key, j, list[j], key, i, v, dirs[i]))
		}
		byDir[dirs[i]] = i
	}
	return list, dirs, errors.Join(errs...)
}

// modelDirName is the last element of a model directory or hub id as written.
func modelDirName(model string) string {
	return filepath.Base(strings.TrimRight(filepath.ToSlash(model), "/"))
}

// taskDirName is a task's name, or a task file's name without its extension.
func taskDirName(task string) string {
	if IsTaskFile(task) {
		return strings.TrimSuffix(filepath.Base(task), filepath.Ext(task))
	}
	return task
}

// SweepIndex is sweep.json.
type SweepIndex struct {
	Name  string `json:"name,omitempty"`
	Cells []Cell `json:"cells"`
}

// WriteSweepIndex claims out for a matrix sweep and writes its sweep.json.
func WriteSweepIndex(out string, name string, cells []Cell) error {
	if err := ClaimDir(out); err != nil {
		return err
	}
	return writeJSONAtomic(filepath.Join(out, SweepIndexFile), SweepIndex{Name: name, Cells: cells})
}

// ReadSweepIndex reads dir's sweep.json; an error wrapping os.ErrNotExist when
// dir is not a matrix sweep's out.
func ReadSweepIndex(dir string) (SweepIndex, error) {
	var ix SweepIndex
	if err := readJSON(filepath.Join(dir, SweepIndexFile), &ix); err != nil {
		return SweepIndex{}, err
	}
	for i, c := range ix.Cells {
		for _, part := range strings.Split(c.Dir, "/") {
			if err := safepath.Name("cell", part); err != nil {
				return SweepIndex{}, fmt.Errorf("%s: cells[%d]: %w", filepath.Join(dir, SweepIndexFile), i, err)
			}
		}
	}
	return ix, nil
}
