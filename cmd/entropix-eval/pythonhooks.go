package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/entropix-eval/entropix-eval/backends"
	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/pyhooks"
)

// pythonHookOptions are --python-hooks and its companions.
type pythonHookOptions struct {
	enabled bool
	python  string
	timeout time.Duration
	memory  int64
}

// The usage of --python-hooks and --python, for tasks, run and score.
const (
	pythonHooksUsage = "run lm-eval task hooks (`!function` in task YAML) that have no Go port in a Python interpreter: " +
		"this runs code from the task folders (docs/python-hooks.md)"
	pythonUsage = "the Python interpreter for --python-hooks (a path, or a name on PATH; default python3)"
)

func pythonHookFlags(fs *flag.FlagSet) *pythonHookOptions {
	o := &pythonHookOptions{}
	fs.BoolVar(&o.enabled, "python-hooks", false, pythonHooksUsage)
	fs.StringVar(&o.python, "python", "python3", pythonUsage)
	fs.DurationVar(&o.timeout, "python-timeout", pyhooks.DefaultCallTimeout, "time bound of one --python-hooks call (a batch of docs)")
	fs.Int64Var(&o.memory, "python-memory", pyhooks.DefaultMemoryLimit, "address-space bound of the --python-hooks interpreter in bytes (RLIMIT_AS; -1: none)")
	return o
}

func (o pythonHookOptions) bridge() *pyhooks.Bridge {
	return pyhooks.New(pyhooks.Options{Python: o.python, CallTimeout: o.timeout, MemoryLimit: o.memory})
}

// checkPythonHooks checks, for every task that builds with Python hooks,
// that each hook's file exists and defines the function, reading the files
// with Python's ast module (no hook runs). It returns the problem per task
// name and prints which interpreter checked.
func checkPythonHooks(w io.Writer, ix *datasets.Index, o pythonHookOptions) (map[string]error, error) {
	b := o.bridge()
	defer b.Close()
	ctx := context.Background()
	in, err := b.Interpreter(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "Python hooks checked with %s (Python %s; datasets %s; lm_eval %s)\n", in.Executable, in.Version, orNone(in.Datasets), orNone(in.LMEval))
	type use struct {
		key  string
		hook pyhooks.Hook
	}
	var hooks []pyhooks.Hook
	seen := map[pyhooks.Hook]int{}
	users := map[string][]use{}
	outputTypes, files := map[string]string{}, map[string]string{}
	for _, e := range ix.Entries() {
		if e.Err != nil || e.Kind != datasets.KindTask {
			continue
		}
		t, err := ix.Task(e.Name)
		if err != nil {
			continue
		}
		for _, h := range t.PythonHooks {
			ph := pyhooks.Hook{File: h.File, Function: h.Function, Want: "function"}
			switch h.Kind {
			case "filter":
				ph.Want = "class"
			case "registry_filter":
				ph.Want = "registry_filter"
			case "fewshot_samples":
				ph.Want = "" // a function, or a list assigned to the name
			}
			if _, ok := seen[ph]; !ok {
				seen[ph] = len(hooks)
				hooks = append(hooks, ph)
			}
			users[e.Name] = append(users[e.Name], use{h.Key, ph})
			outputTypes[e.Name], files[e.Name] = t.OutputType, t.File
		}
	}
	problems, err := b.Check(ctx, hooks)
	if err != nil {
		return nil, err
	}
	out := map[string]error{}
	for task, hs := range users {
		var blockers []datasets.Blocker
		for _, h := range hs {
			if p := problems[seen[h.hook]]; p != nil {
				blockers = append(blockers, datasets.Blocker{Where: files[task], Key: h.key, Reason: p.Error() + " (--python-hooks)", Class: "python hook check"})
			}
		}
		if blockers != nil {
			out[task] = &datasets.RefusedTaskError{Task: task, OutputType: outputTypes[task], Blockers: blockers}
		}
	}
	return out, nil
}

func orNone(s string) string {
	if s == "" {
		return "not installed"
	}
	return s
}

// startPython starts the interpreter score's and rescore's --python-hooks
// names (eval.StartPython; run's starts in eval.Open).
func startPython(ctx context.Context, cfg *eval.Config) (stop func(), interp string, err error) {
	return eval.StartPython(ctx, backends.Builtin, cfg)
}

// regradeFlags are rescore's and merge's --python-hooks and --python: a
// run graded with Python hooks is graded again through them, each hook file
// checked against the hash the run recorded.
func regradeFlags(fs *flag.FlagSet) *eval.Config {
	py := &eval.Config{}
	fs.BoolVar(&py.PythonHooks, "python-hooks", false, pythonHooksUsage+"; for a run graded with Python hooks, each hook file is checked against the hash the run recorded")
	fs.StringVar(&py.Python, "python", "", pythonUsage)
	return py
}

// pythonGrading starts the interpreter --python-hooks asks for and, when it
// did, gives o a grader that runs a task's Python scoring hooks through it.
func pythonGrading(py *eval.Config, o *eval.Outputs) (stop func(), err error) {
	stop, _, err = startPython(context.Background(), py)
	if err != nil {
		return nil, err
	}
	if h, ok := py.PythonRunner.(eval.PythonHooks); ok {
		g := eval.NewLMEvalGrader()
		g.Python = h
		o.Grader = g
	}
	return stop, nil
}
