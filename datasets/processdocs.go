package datasets

// process_docs as lm-eval runs it: ConfigurableTask.__init__ processes the
// few-shot pool's split first (fewshot_docs(), even for a 0-shot run), then
// the evaluated split; every later access goes through the datasets cache
// (Dataset.map on unchanged input returns the first result), so each split is
// processed once, in that order, with Python's global random seeded 0
// (simple_evaluate's random_seed) for ports that draw from it (GPQA's shuffle).

import (
	"fmt"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// LMEvalRandomSeed is simple_evaluate's random_seed: random.seed(0) before
// any task is built.
const LMEvalRandomSeed = 0

// docProcessor applies a task's process_docs to its splits, each once.
type docProcessor struct {
	task *Task
	env  hooks.DocsEnv
	done map[string]*Dataset
}

func newDocProcessor(t *Task) *docProcessor {
	return &docProcessor{task: t, env: hooks.DocsEnv{Random: NewPyRandom(LMEvalRandomSeed)}, done: map[string]*Dataset{}}
}

// process returns split's docs after process_docs (ds itself without one).
// Problems keep their source row; Index and ID become the position in the
// processed split, the doc id lm-eval uses.
func (p *docProcessor) process(split string, ds *Dataset) (*Dataset, error) {
	if p.task.ProcessDocs == nil {
		return ds, nil
	}
	if out, ok := p.done[split]; ok {
		return out, nil
	}
	in := hooks.Rows{Docs: make([]map[string]any, len(ds.Problems))}
	var cols Fields
	for i, pr := range ds.Problems {
		in.Docs[i] = pr.Doc
		if i == 0 {
			cols = pr.Columns
		}
	}
	in.Columns = cols.Names()
	rows, err := p.task.ProcessDocs.Apply(in, p.env)
	if err != nil {
		return nil, fmt.Errorf("task %s: split %s: %s: %w", p.task.Name, split, p.task.ProcessDocs.Ref, err)
	}
	out := &Dataset{Files: ds.Files, Problems: make([]Problem, len(rows.Docs))}
	fields := append(Fields(nil), cols...)
	for _, n := range rows.Columns {
		if _, ok := cols.find(n); !ok {
			fields = append(fields, Field{Name: n})
		}
	}
	for i, d := range rows.Docs {
		j := i
		if rows.Source != nil {
			j = rows.Source[i]
		}
		pr := ds.Problems[j]
		pr.Index, pr.ID, pr.Doc, pr.Columns = i, fmt.Sprint(i), d, fields.forDoc(d)
		out.Problems[i] = pr
	}
	p.done[split] = out
	return out, nil
}
