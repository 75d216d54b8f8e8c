package eval

// Filter pipelines, lm-eval style (lm_eval/filters/*.py): a task's
// filter_list entry is a chain of functions over one doc's responses (all its
// repeats, in order). The functions are package hooks' registered filters.

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/hooks"
)

// Pipeline is one compiled filter_list entry.
type Pipeline struct {
	Name  string
	steps []hooks.FilterFunc
}

// CompilePipeline builds a pipeline from its task data.
func CompilePipeline(p datasets.FilterPipeline) (*Pipeline, error) {
	return compilePipeline(p, "", nil)
}

// compilePipeline also compiles Python filter steps, through py.
func compilePipeline(p datasets.FilterPipeline, task string, py PythonHooks) (*Pipeline, error) {
	out := &Pipeline{Name: p.Name}
	for i, s := range p.Steps {
		var f hooks.FilterFunc
		var err error
		switch {
		case s.Python != nil && py != nil:
			f, err = py.Filter(task, *s.Python, s.Params)
		case s.Python != nil:
			err = errNoPython(task, "filter "+s.Python.Function)
		default:
			f, err = s.Compile()
		}
		if err != nil {
			return nil, fmt.Errorf("filter %s step %d (%s): %w", p.Name, i, s.Function, err)
		}
		out.steps = append(out.steps, f)
	}
	return out, nil
}

// Apply runs the pipeline on one doc's responses. The result has one answer
// per response while every step keeps the list, or one answer for the doc
// once a step (take_first, majority_vote + take_first) reduced it.
func (p *Pipeline) Apply(responses []string, doc datasets.Doc) (answers []string, perDoc bool, err error) {
	v := hooks.Values{Items: responses}
	for _, f := range p.steps {
		if v, err = f(v, doc); err != nil {
			return nil, false, fmt.Errorf("filter %s: %w", p.Name, err)
		}
	}
	return v.Items, v.Single, nil
}
