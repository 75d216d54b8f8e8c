package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/entropix-eval/entropix-eval/datasets"
)

func init() {
	register(command{
		name:    "tasks",
		summary: "list the tasks, groups and tags a run can name, with the file each comes from",
		examples: []string{
			`entropix-eval tasks`,
			`entropix-eval tasks gsm8k_cot`,
			`entropix-eval tasks --include-path my_tasks --check`,
			`entropix-eval tasks --include-path lm_eval/tasks --check --python-hooks`,
		},
		run: func(ctx context.Context, args []string) error {
			return runTasks(args, os.Stdout, os.Stderr)
		},
	})
}

func runTasks(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tasks", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var includes, files []string
	fs.Func("include-path", "directory of lm-eval task YAML files to add (repeatable)", func(s string) error {
		includes = append(includes, s)
		return nil
	})
	fs.Func("task", "a task FILE.yaml to add (repeatable)", func(s string) error {
		files = append(files, s)
		return nil
	})
	check := fs.Bool("check", false, "build every task and report the ones this harness refuses, and why")
	py := pythonHookFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: entropix-eval tasks [--include-path DIR]... [--task FILE.yaml]... [--check] [NAME]\n\n"+
			"Lists the built-in tasks and those under the include paths, with their source.\n"+
			"With NAME, shows that task's configuration, or a group's or tag's tasks.")
		printFlags(fs, fs.Output())
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ix, err := datasets.NewIndex(includes...)
	if err != nil {
		return err
	}
	ix.PythonHooks = py.enabled
	for _, f := range files {
		if _, err := ix.AddFile(f); err != nil {
			return err
		}
	}
	switch fs.NArg() {
	case 0:
		return listTasks(stdout, ix, *check, *py)
	case 1:
		return showTask(stdout, ix, fs.Arg(0))
	}
	return fmt.Errorf("%w: tasks takes at most one name", errUsage)
}

func listTasks(w io.Writer, ix *datasets.Index, check bool, py pythonHookOptions) error {
	var hookErrs map[string]error
	if check && py.enabled {
		var err error
		if hookErrs, err = checkPythonHooks(w, ix, py); err != nil {
			return err
		}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tSOURCE\tFILE")
	var refused []string
	var tally blockerTally
	bridged := 0
	for _, e := range ix.Entries() {
		kind := e.Kind
		switch {
		case e.Err != nil:
			kind = "broken"
		case e.Kind != datasets.KindTask:
			kind = fmt.Sprintf("%s (%d)", e.Kind, len(e.Members))
		case check:
			t, err := ix.Task(e.Name)
			if err == nil && hookErrs[e.Name] != nil {
				err = hookErrs[e.Name]
			}
			tally.add(t, err)
			switch {
			case err != nil:
				kind = "refused"
				refused = append(refused, fmt.Sprintf("%s: %v", e.Name, err))
			case len(t.PythonHooks) > 0:
				kind, bridged = "python", bridged+1
				if len(t.Ports) > 0 {
					kind = fmt.Sprintf("python, %d port%s", len(t.Ports), map[bool]string{true: "s"}[len(t.Ports) > 1])
				}
			case len(t.Ports) > 0:
				kind = fmt.Sprintf("task (%d port%s)", len(t.Ports), map[bool]string{true: "s"}[len(t.Ports) > 1])
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, kind, e.Source, e.File)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range refused {
		fmt.Fprintln(w, r)
	}
	if check {
		tally.print(w)
		if py.enabled {
			fmt.Fprintf(w, "%d accepted tasks run Python hooks (--python-hooks)\n", bridged)
		}
	}
	return nil
}

// blockerTally counts, over the generate_until tasks, the accepted ones and
// each class of blocker (a task with several counts once per class).
type blockerTally struct {
	generate, accepted int
	classes            map[string]int
	sole               map[string]int
}

func (b *blockerTally) add(t *datasets.Task, err error) {
	var re *datasets.RefusedTaskError
	if err != nil && !errors.As(err, &re) {
		b.generate++ // broken YAML or a missing include: counted as refused
		b.count([]string{"not loadable"})
		return
	}
	if err == nil {
		if t.OutputType == datasets.OutputGenerateUntil {
			b.generate++
			b.accepted++
		}
		return
	}
	if re.OutputType != datasets.OutputGenerateUntil {
		return
	}
	var classes []string
	for _, bl := range re.Blockers {
		if !slices.Contains(classes, bl.Class) {
			classes = append(classes, bl.Class)
		}
	}
	b.generate++
	b.count(classes)
}

func (b *blockerTally) count(classes []string) {
	if b.classes == nil {
		b.classes, b.sole = map[string]int{}, map[string]int{}
	}
	for _, c := range classes {
		b.classes[c]++
	}
	if len(classes) == 1 {
		b.sole[classes[0]]++
	}
}

func (b *blockerTally) print(w io.Writer) {
	fmt.Fprintf(w, "\naccepted %d of %d generate_until tasks; blockers of the others (tasks with it; as the only blocker):\n", b.accepted, b.generate)
	keys := slices.Collect(maps.Keys(b.classes))
	slices.SortFunc(keys, func(x, y string) int { return cmp.Or(b.classes[y]-b.classes[x], strings.Compare(x, y)) })
	for _, k := range keys {
		fmt.Fprintf(w, "  %6d %6d  %s\n", b.classes[k], b.sole[k], k)
	}
}

func showTask(w io.Writer, ix *datasets.Index, name string) error {
	e, ok := ix.Lookup(name)
	if ok && e.Kind != datasets.KindTask {
		members, err := ix.Expand(name)
		fmt.Fprintf(w, "%s: %s from %s (%s)\nmembers: %s\n", name, e.Kind, e.File, e.Source, strings.Join(e.Members, ", "))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "tasks: %s\n", strings.Join(members, ", "))
		return nil
	}
	t, err := ix.Task(name)
	if err != nil {
		if errors.Is(err, datasets.ErrUnsupportedTask) {
			return fmt.Errorf("%s is refused: %w", name, err)
		}
		return err
	}
	fmt.Fprintf(w, "%s from %s (%s)\n", t.Name, t.File, t.Source)
	for _, h := range t.PythonHooks {
		fmt.Fprintf(w, "  %-16s %s (Python, --python-hooks)\n", "hook", h)
	}
	d := t.Describe()
	for _, k := range []string{"version", "dataset_path", "dataset_name", "split", "num_fewshot", "fewshot_sampler",
		"fewshot_split", "fewshot_samples", "until", "max_gen_toks", "repeats", "filters", "metrics"} {
		fmt.Fprintf(w, "  %-16s %v\n", k, d[k])
	}
	for _, p := range t.Ports {
		fmt.Fprintf(w, "  %-16s %s\n", "port", p)
	}
	if g := t.Generation; len(g) > 0 {
		fmt.Fprintf(w, "  %-16s %v (recorded; the sweep's samplers decide decoding)\n", "generation", g)
	}
	return nil
}
