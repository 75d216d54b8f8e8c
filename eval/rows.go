package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/reports"
)

// gradedRecord is a record with its problem and grade, the input of every output file.
type gradedRecord struct {
	Record
	Job     Job
	Problem ProblemEntry
	Grade   Grade
}

// gradeRecords checks that recs are exactly the items of the manifest's jobs over
// problems, grades them, and returns them in canonical order (job, problem).
func gradeRecords(m *Manifest, problems []ProblemEntry, recs []Record, g Grader) ([]gradedRecord, error) {
	byIndex := make(map[int]ProblemEntry, len(problems))
	for _, p := range problems {
		byIndex[p.Index] = p
	}
	jobOrder := make(map[jobKey]int, len(m.Jobs))
	for i, j := range m.Jobs {
		jobOrder[keyOf(j)] = i
	}
	out := make([]gradedRecord, 0, len(recs))
	seen := make(map[ItemKey]bool, len(recs))
	for _, r := range recs {
		ji, ok := jobOrder[jobKey{r.Sampler, r.Seed, r.Repeat}]
		if !ok {
			return nil, fmt.Errorf("journal item %+v belongs to no job of this run", r.ItemKey)
		}
		p, ok := byIndex[r.ProblemIndex]
		if !ok {
			return nil, fmt.Errorf("journal item %+v names a problem this run does not have", r.ItemKey)
		}
		if p.PromptHash != r.PromptHash {
			return nil, fmt.Errorf("journal item %+v was generated from another prompt (hash %s, now %s)", r.ItemKey, r.PromptHash, p.PromptHash)
		}
		if seen[r.ItemKey] {
			continue
		}
		seen[r.ItemKey] = true
		out = append(out, gradedRecord{Record: r, Job: m.Jobs[ji], Problem: p})
	}
	if want := len(m.Jobs) * len(problems); len(out) != want {
		return nil, fmt.Errorf("%d of %d items are finished", len(out), want)
	}
	if err := gradeAll(m.Task, out, g); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b gradedRecord) int {
		return cmp.Or(cmp.Compare(jobOrder[keyOf(a.Job)], jobOrder[keyOf(b.Job)]), cmp.Compare(a.ProblemIndex, b.ProblemIndex))
	})
	return out, nil
}

// gradeGroups grades the records. With task repeats (self-consistency) the
// responses of one (sampler, seed, problem) go to the filters together, in
// repeat order, as lm-eval hands a doc's repeats to its filters; otherwise
// every response is graded on its own.
func gradeGroups(task TaskSpec, grs []gradedRecord, g Grader) error {
	type docKey struct {
		sampler string
		seed    uint64
		problem int
	}
	var groups [][]int
	if task.Repeats > 1 {
		at := map[docKey]int{}
		for i, r := range grs {
			k := docKey{r.Sampler, r.Seed, r.ProblemIndex}
			j, ok := at[k]
			if !ok {
				j = len(groups)
				at[k] = j
				groups = append(groups, nil)
			}
			groups[j] = append(groups[j], i)
		}
		for _, gr := range groups {
			slices.SortFunc(gr, func(a, b int) int { return cmp.Compare(grs[a].Repeat, grs[b].Repeat) })
		}
	} else {
		for i := range grs {
			groups = append(groups, []int{i})
		}
	}
	for _, idx := range groups {
		first := &grs[idx[0]]
		resps := make([]string, len(idx))
		for k, i := range idx {
			resps[k] = grs[i].Response
		}
		grades, err := g.Grade(task, first.Problem.Reference(), resps)
		if err != nil {
			return fmt.Errorf("grade %+v: %w", first.ItemKey, err)
		}
		if len(grades) != len(idx) {
			return fmt.Errorf("grade %+v: %d grades for %d responses", first.ItemKey, len(grades), len(idx))
		}
		for k, i := range idx {
			grs[i].Grade = grades[k]
		}
	}
	return nil
}

type jobKey struct {
	Sampler string
	Seed    uint64
	Repeat  int
}

func keyOf(j Job) jobKey { return jobKey{j.Sampler, j.Seed, j.Repeat} }

// rowIdentity is what every row of a run says about the run and its samplers
// beyond the journal: the run key, the model's name, the start date, and per
// sampler label its canonical spec and attention view.
type rowIdentity struct {
	runKey, model, date string
	specs               map[string]string
	views               map[string]attnView
}

type attnView struct {
	mode   string
	padLen int32
}

// identityOf reads a manifest's row identity. A sampler's attention view is
// the one its description names (Entropix variants), else the sweep's
// (attn_mode, pad_len; a padded view of pad_len 0 is the engine's default
// length, a masked one has no padding).
func identityOf(m *Manifest) rowIdentity {
	model, _ := reports.ModelName(m.Config.Model)
	id := rowIdentity{runKey: m.Key(), model: model, date: m.Started.UTC().Format("2006-01-02"),
		specs: map[string]string{}, views: map[string]attnView{}}
	sweep := attnView{mode: m.Config.AttnMode}
	if sweep.mode == "" {
		sweep.mode = "masked"
	}
	if sweep.mode != "masked" {
		sweep.padLen = int32(cmp.Or(m.Config.PadLen, engine.DefaultPadLen))
	}
	for _, s := range m.Samplers {
		spec, _ := json.Marshal(s.Spec)
		id.specs[s.Label] = reports.CanonicalSpec(s.Label, s.Description, spec)
		var desc struct {
			AttnMode *string `json:"attn_mode"`
			PadLen   int32   `json:"pad_len"`
		}
		view := sweep
		if json.Unmarshal(s.Description, &desc) == nil && desc.AttnMode != nil && *desc.AttnMode != "" {
			view = attnView{mode: *desc.AttnMode}
			if view.mode != "masked" {
				view.padLen = desc.PadLen
			}
		}
		id.views[s.Label] = view
	}
	return id
}

// resultRows are the results.arrow rows of graded records, in their order.
func resultRows(task string, id rowIdentity, grs []gradedRecord) ([]reports.ResultRow, error) {
	rows := make([]reports.ResultRow, len(grs))
	for i, g := range grs {
		pid, err := int32Of("problem index", g.ProblemIndex)
		if err != nil {
			return nil, err
		}
		rows[i] = reports.ResultRow{
			RunKey: id.runKey, RunID: g.Job.RunID(), Task: task, Sampler: g.Job.Sampler,
			SamplerSpec: id.specs[g.Job.Sampler], Model: id.model, Date: id.date, Seed: int64(g.Job.Seed), ProblemID: pid,
			Repeat: int32(g.Repeat), PromptHash: g.PromptHash, Target: g.Problem.Target, Response: g.Response,
			Answers: g.Grade.Answers, Scores: g.Grade.Scores,
			PromptTokens: int32(g.PromptTokens), GenTokens: int32(g.GenTokens),
			FinishReason: reports.FinishReason(g.FinishReason), LatencyMS: g.LatencyMS,
		}
	}
	return rows, nil
}

// traceRows are the traces.arrow rows of graded records: each token's record
// under its run, problem, repeat and step, with its sampler's attention view.
func traceRows(task string, id rowIdentity, grs []gradedRecord) ([]reports.TraceRow, error) {
	n := 0
	for _, g := range grs {
		n += len(g.Trace)
	}
	rows := make([]reports.TraceRow, 0, n)
	for _, g := range grs {
		pid, err := int32Of("problem index", g.ProblemIndex)
		if err != nil {
			return nil, err
		}
		v := id.views[g.Job.Sampler]
		for step, t := range g.Trace {
			rows = append(rows, reports.TraceRow{RunKey: id.runKey, RunID: g.Job.RunID(), Task: task, Sampler: g.Job.Sampler,
				AttnMode: v.mode, PadLen: v.padLen, Seed: int64(g.Job.Seed), ProblemID: pid, Repeat: int32(g.Repeat), Step: int32(step), TokenRecord: t})
		}
	}
	return rows, nil
}

func int32Of(what string, v int) (int32, error) {
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, fmt.Errorf("%s %d does not fit the int32 column", what, v)
	}
	return int32(v), nil
}
