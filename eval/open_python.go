package eval

import (
	"context"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// StartPython starts, through backends, the interpreter a sweep's
// PythonHooks asks for and gives it to the task's preparation
// (cfg.PythonRunner); stop ends it, and interp describes it for the manifest.
// Without PythonHooks it starts nothing.
func StartPython(ctx context.Context, backends Backends, cfg *Config) (stop func(), interp string, err error) {
	if !cfg.PythonHooks {
		return func() {}, "", nil
	}
	runner, interp, stopRunner, err := backends.Python(ctx, cfg.Python)
	if err != nil {
		return nil, "", err
	}
	cfg.PythonRunner = runner
	return func() {
		cfg.PythonRunner = nil
		stopRunner()
	}, interp, nil
}

// DefaultOutputs grades as lm-eval does and writes the Arrow files with
// package reports.
func DefaultOutputs() Outputs {
	return Outputs{Grader: NewLMEvalGrader(), Arrow: ReportsArrow{}}
}

// PythonOutputs are the default outputs, their grader running the task's
// Python scoring hooks through the run's interpreter when it has any.
func PythonOutputs(cfg Config, task *datasets.Task) Outputs {
	o := DefaultOutputs()
	if py, ok := cfg.PythonRunner.(PythonHooks); ok && task.GradesInPython() {
		g := NewLMEvalGrader()
		g.Python = py
		o.Grader = g
	}
	return o
}
