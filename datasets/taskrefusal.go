package datasets

import (
	"fmt"
	"strings"
)

// Blocker is one reason a task cannot run here: where it is set, the key,
// why, and a short class for tallies (`tasks --check`).
type Blocker struct {
	// Where is the YAML that set the key ("B.yaml (included by A.yaml)").
	Where, Key, Reason string
	// Class groups blockers across tasks: "process_docs hook", "metric bleu".
	Class string
	// Err is the error behind Reason, when there is one (a template over a
	// rendering limit), so errors.Is still finds it.
	Err error
}

func (b Blocker) String() string { return fmt.Sprintf("%s: key %s: %s", b.Where, b.Key, b.Reason) }

// RefusedTaskError lists every blocker of a task, not only the first, so a
// user learns at once everything the task needs.
type RefusedTaskError struct {
	Task string
	// OutputType is the task's output_type as written (generate_until when
	// absent), so tallies can tell the kinds of task apart.
	OutputType string
	Blockers   []Blocker
}

func (e *RefusedTaskError) Error() string {
	if len(e.Blockers) == 1 {
		return fmt.Sprintf("%s: %v", e.Blockers[0], ErrUnsupportedTask)
	}
	parts := make([]string, len(e.Blockers))
	for i, b := range e.Blockers {
		parts[i] = b.String()
	}
	return fmt.Sprintf("task %s has %d blockers (%v):\n  %s", e.Task, len(e.Blockers), ErrUnsupportedTask, strings.Join(parts, "\n  "))
}

func (e *RefusedTaskError) Unwrap() []error {
	out := []error{ErrUnsupportedTask}
	for _, b := range e.Blockers {
		if b.Err != nil {
			out = append(out, b.Err)
		}
	}
	return out
}

// where names the file that set key (the including or an included file).
func (rc *rawConfig) where(key string) string {
	if o := rc.Origin[key]; o != "" && o != rc.File {
		return o + " (included by " + rc.File + ")"
	}
	return rc.File
}
