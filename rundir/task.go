package rundir

import (
	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
)

// TaskSpec is what the runner and the grader need of a task besides its
// prompts. It is stored in the manifest, so a run directory is rescored with
// the filters and metrics it was run with, wherever its task file came from.
type TaskSpec struct {
	Name string `json:"name"`
	// OutputType is the task's output_type when it scores continuations
	// (multiple_choice, loglikelihood, loglikelihood_rolling); empty for
	// generate_until.
	OutputType   string   `json:"output_type,omitempty"`
	Stops        []string `json:"stops"`
	MaxNewTokens int      `json:"max_new_tokens"`
	// Filters and Metrics are the task's filter_list and metric_list.
	Filters []datasets.FilterPipeline `json:"filters,omitempty"`
	Metrics []datasets.MetricSpec     `json:"metrics,omitempty"`
	// Repeats > 1 (lm-eval's repeats, e.g. self-consistency) feeds a doc's
	// responses to the filters together; the sweep runs that many repeats.
	Repeats int `json:"repeats,omitempty"`
	// SplitSize is the evaluation split's row count before --limit (lm-eval's
	// n-samples.original).
	SplitSize int `json:"split_size,omitempty"`
	// Config is the task's result-defining configuration (datasets.Task.Describe).
	Config map[string]any `json:"config,omitempty"`
	// ProcessResults names the ported process_results that scores each
	// filtered response in place of the metric functions.
	ProcessResults *hooks.PortRef `json:"process_results,omitempty"`
	// PythonResults is a process_results run in the user's Python
	// (--python-hooks; the grader needs LMEvalGrader.Python).
	PythonResults *datasets.PythonHook `json:"python_process_results,omitempty"`
}
