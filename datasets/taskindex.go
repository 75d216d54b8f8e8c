package datasets

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/internal/suggest"
	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// builtinTasks are the task files compiled into the binary: lm-eval's GSM8K
// family (tasks/gsm8k/LICENSE), exemplars inline.
//
//go:embed tasks
var builtinTasks embed.FS

// Entry kinds in a task index.
const (
	KindTask  = "task"
	KindGroup = "group"
	KindTag   = "tag"
)

// Entry is one name a run can ask for: a task, a group (its `task` list) or a
// tag (every task that lists it).
type Entry struct {
	Name string
	Kind string
	// File is the YAML that defines it (for a tag, the first file naming it)
	// and Source where that file came from: "builtin", an --include-path
	// directory, or "file" (--task FILE.yaml).
	File, Source string
	// Members are the task, group or tag names a group or tag runs, in order.
	Members []string
	// Aggregates is a group's aggregate_metric_list.
	Aggregates []AggregateMetric
	// Err says why a file could not be indexed (a YAML error); the entry is
	// listed so the user sees it, and refused when asked for.
	Err error

	fsys fs.FS
	path string
	root string // how paths in fsys are shown: the include directory, "builtin:", "/"
}

// Index finds tasks by name across the built-in tasks and include paths, as
// lm-eval's TaskManager does.
type Index struct {
	entries map[string]*Entry
	// PythonHooks builds tasks with `!function` hooks for the Python bridge
	// (--python-hooks) instead of refusing them; with Python set, a task's
	// prompt-side hooks are bound to it for a run (the rest is refused).
	PythonHooks bool
	Python      PythonRunner
}

// NewIndex indexes the built-in tasks and then each include path (a
// directory searched recursively for *.yaml files, like lm-eval's
// --include_path); a later source replaces an earlier one's name.
func NewIndex(includePaths ...string) (*Index, error) {
	ix := &Index{entries: map[string]*Entry{}}
	sub, err := fs.Sub(builtinTasks, "tasks")
	if err != nil {
		return nil, err
	}
	if err := ix.addTree(sub, "builtin", "builtin:"); err != nil {
		return nil, err
	}
	for _, dir := range includePaths {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, fmt.Errorf("--include-path: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("--include-path %s: not a directory (use --task for one file)", dir)
		}
		if err := ix.addTree(taskFS{os.DirFS(dir)}, dir, dir); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

func (ix *Index) addTree(fsys fs.FS, source, display string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("index %s: %w", display, err)
		}
		if d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return nil
		}
		ix.addFile(fsys, p, source, display)
		return nil
	})
}

// AddFile indexes one task file given on the command line (--task FILE.yaml)
// and returns the names it defines.
func (ix *Index) AddFile(path string) ([]string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	names := ix.addFile(taskFS{}, filepath.ToSlash(abs), "file", "")
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: defines no task or group", path)
	}
	if e := ix.entries[names[0]]; e.Err != nil {
		return nil, e.Err
	}
	return names, nil
}

// showPath is how a path inside a source's file system is printed.
func showPath(root, p string) string {
	if path.IsAbs(p) {
		return filepath.FromSlash(p)
	}
	if strings.HasSuffix(root, ":") {
		return root + p
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// addFile indexes one file and returns the names it defined.
func (ix *Index) addFile(fsys fs.FS, p, source, root string) []string {
	display := showPath(root, p)
	rc, err := loadRawConfig(fsys, p)
	if err != nil {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		ix.entries[name] = &Entry{Name: name, Kind: KindTask, File: display, Source: source, Err: err}
		return []string{name}
	}
	rc.File = display
	switch t := rc.Keys["task"].(type) {
	case string:
		e := &Entry{Name: t, Kind: KindTask, File: display, Source: source, fsys: fsys, path: p, root: root}
		ix.entries[t] = e
		tags := tagNames(rc.Keys["tag"])
		if g, ok := rc.Keys["group"]; ok { // lm-eval < 0.4.3 spelled tags "group"
			tags = append(tags, tagNames(g)...)
		}
		for _, tag := range tags {
			ix.addTagMember(tag, t, display, source)
		}
		return []string{t}
	case []any:
		name, _ := rc.Keys["group"].(string)
		if name == "" {
			return nil
		}
		return ix.addGroup(name, t, rc.Keys["aggregate_metric_list"], display, source)
	}
	return nil
}

func (ix *Index) addGroup(name string, members []any, aggregates any, display, source string) []string {
	e := &Entry{Name: name, Kind: KindGroup, File: display, Source: source}
	if aggs, err := parseAggregates(aggregates); err != nil {
		e.Err = fmt.Errorf("%s: group %s: %w", display, name, err)
	} else {
		e.Aggregates = aggs
	}
	names := []string{name}
	for _, m := range members {
		switch x := m.(type) {
		case string:
			e.Members = append(e.Members, x)
		case map[string]any: // an inline subgroup
			sub, _ := x["group"].(string)
			list, _ := x["task"].([]any)
			if sub == "" {
				continue
			}
			names = append(names, ix.addGroup(sub, list, x["aggregate_metric_list"], display, source)...)
			e.Members = append(e.Members, sub)
		}
	}
	ix.entries[name] = e
	return names
}

func (ix *Index) addTagMember(tag, task, display, source string) {
	e, ok := ix.entries[tag]
	if !ok || e.Kind != KindTag {
		e = &Entry{Name: tag, Kind: KindTag, File: display, Source: source}
		ix.entries[tag] = e
	}
	if !slices.Contains(e.Members, task) {
		e.Members = append(e.Members, task)
	}
}

func tagNames(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Entries lists every indexed name, sorted.
func (ix *Index) Entries() []*Entry {
	out := make([]*Entry, 0, len(ix.entries))
	for _, k := range sortedKeys(ix.entries) {
		out = append(out, ix.entries[k])
	}
	return out
}

// Lookup returns the entry of a name.
func (ix *Index) Lookup(name string) (*Entry, bool) {
	e, ok := ix.entries[name]
	return e, ok
}

// Task loads and builds the task called name.
func (ix *Index) Task(name string) (*Task, error) {
	e, ok := ix.entries[name]
	if !ok {
		return nil, usage.Errorf("unknown task %q%s (`entropix-eval tasks` lists them; --include-path DIR or --task FILE.yaml add more)", name, suggest.Hint(name, slices.Sorted(maps.Keys(ix.entries))))
	}
	if e.Err != nil {
		return nil, e.Err
	}
	if e.Kind != KindTask {
		return nil, fmt.Errorf("%s is a %s of %d tasks, not one task", name, e.Kind, len(e.Members))
	}
	rc, err := loadRawConfig(e.fsys, e.path)
	if err != nil {
		return nil, err
	}
	rc.File = e.File
	if e.Source != "builtin" && e.Source != "file" {
		rc.Root = e.root
	}
	rc.fsys, rc.fsOrigin = e.fsys, maps.Clone(rc.Origin)
	for k, o := range rc.Origin {
		rc.Origin[k] = showPath(e.root, o)
	}
	t, err := buildTask(rc, ix.PythonHooks)
	if err != nil {
		return nil, err
	}
	if ix.PythonHooks && ix.Python != nil && len(t.PythonHooks) > 0 {
		if err := bindPython(t, ix.Python); err != nil {
			return nil, err
		}
	}
	t.Source = e.Source
	t.Tags = append(t.Tags, tagNames(rc.Keys["group"])...)
	return t, nil
}

// Expand resolves a task, group or tag name to its task names, depth first
// in the order the group lists them. Members that are not indexed are all
// named in the error, as are cycles.
func (ix *Index) Expand(name string) ([]string, error) {
	out, missing, err := ix.Leaves(name)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if len(missing) == 1 && missing[0] == name {
			_, err := ix.Task(name)
			return nil, err
		}
		return nil, fmt.Errorf("%s: %d member tasks are not indexed: %s (add their files with --include-path)", name, len(missing), strings.Join(missing, ", "))
	}
	return out, nil
}

// Leaves lists the tasks under a task, group or tag name, depth first in the
// order the groups list them and each once, as lm-eval expands a group. A
// member the index does not hold is listed as a task (its file may be
// elsewhere) and also returned in missing; a cycle, or a group whose YAML
// failed to load, is an error.
func (ix *Index) Leaves(name string) (leaves, missing []string, err error) {
	var walk func(n string, stack []string) error
	walk = func(n string, stack []string) error {
		if slices.Contains(stack, n) {
			return fmt.Errorf("group cycle: %s", strings.Join(append(stack, n), " → "))
		}
		e, ok := ix.entries[n]
		if ok && e.Kind == KindGroup && e.Err != nil {
			return e.Err
		}
		if !ok || e.Kind == KindTask {
			if !slices.Contains(leaves, n) {
				leaves = append(leaves, n)
				if !ok {
					missing = append(missing, n)
				}
			}
			return nil
		}
		for _, m := range e.Members {
			if err := walk(m, append(stack, n)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(name, nil); err != nil {
		return nil, nil, err
	}
	return leaves, missing, nil
}

var builtinIndex = sync.OnceValues(func() (*Index, error) { return NewIndex() })

// LookupTask builds a built-in task.
func LookupTask(name string) (*Task, error) {
	ix, err := builtinIndex()
	if err != nil {
		return nil, err
	}
	return ix.Task(name)
}

// TaskNames lists the built-in tasks, sorted.
func TaskNames() []string {
	ix, err := builtinIndex()
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ix.Entries() {
		if e.Kind == KindTask {
			out = append(out, e.Name)
		}
	}
	return out
}
