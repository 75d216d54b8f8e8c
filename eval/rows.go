package eval

import (
	"cmp"
	"fmt"
	"slices"
)

// ResultRow is one row of results.arrow: one problem × run × repeat. Column names
// are DESIGN.md's.
type ResultRow struct {
	RunID             string
	Sampler           string
	Seed              uint64
	ProblemID         string
	ProblemIndex      int
	Repeat            int
	PromptHash        string
	Target            string
	Response          string
	ExtractedStrict   string
	ExtractedFlexible string
	CorrectStrict     bool
	CorrectFlexible   bool
	CorrectNumeric    bool
	PromptTokens      int
	GenTokens         int
	FinishReason      string
	LatencyMS         float64
}

// TraceRow is one row of traces.arrow: one generated token.
type TraceRow struct {
	RunID        string
	Task         string
	ProblemID    string
	ProblemIndex int
	Repeat       int
	Step         int
	// Token is a named field, not embedded: embedding would promote TraceStep's
	// positional MarshalJSON to the whole row.
	Token TraceStep
}

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
		gr, err := g.Grade(m.Task.Name, r.Response, p.Target)
		if err != nil {
			return nil, fmt.Errorf("grade %+v: %w", r.ItemKey, err)
		}
		out = append(out, gradedRecord{Record: r, Job: m.Jobs[ji], Problem: p, Grade: gr})
	}
	if want := len(m.Jobs) * len(problems); len(out) != want {
		return nil, fmt.Errorf("%d of %d items are finished", len(out), want)
	}
	slices.SortFunc(out, func(a, b gradedRecord) int {
		return cmp.Or(cmp.Compare(jobOrder[keyOf(a.Job)], jobOrder[keyOf(b.Job)]), cmp.Compare(a.ProblemIndex, b.ProblemIndex))
	})
	return out, nil
}

type jobKey struct {
	Sampler string
	Seed    uint64
	Repeat  int
}

func keyOf(j Job) jobKey { return jobKey{j.Sampler, j.Seed, j.Repeat} }

func resultRows(grs []gradedRecord) []ResultRow {
	rows := make([]ResultRow, len(grs))
	for i, g := range grs {
		rows[i] = ResultRow{
			RunID: g.Job.RunID(), Sampler: g.Job.Sampler, Seed: g.Job.Seed, ProblemID: g.ProblemID,
			ProblemIndex: g.ProblemIndex, Repeat: g.Repeat, PromptHash: g.PromptHash, Target: g.Problem.Target, Response: g.Response,
			ExtractedStrict: g.Grade.ExtractedStrict, ExtractedFlexible: g.Grade.ExtractedFlexible,
			CorrectStrict: g.Grade.CorrectStrict, CorrectFlexible: g.Grade.CorrectFlexible,
			CorrectNumeric: g.Grade.CorrectNumeric, PromptTokens: g.PromptTokens, GenTokens: g.GenTokens,
			FinishReason: g.FinishReason, LatencyMS: g.LatencyMS,
		}
	}
	return rows
}

func traceRows(task string, grs []gradedRecord) []TraceRow {
	n := 0
	for _, g := range grs {
		n += len(g.Trace)
	}
	rows := make([]TraceRow, 0, n)
	for _, g := range grs {
		for step, t := range g.Trace {
			rows = append(rows, TraceRow{RunID: g.Job.RunID(), Task: task, ProblemID: g.ProblemID, ProblemIndex: g.ProblemIndex, Repeat: g.Repeat, Step: step, Token: t})
		}
	}
	return rows
}
