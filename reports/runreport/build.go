// Package runreport turns a run directory's Arrow files into its report:
// summary.arrow, comparisons.arrow, report.html, figures/ (SVG and PDF) and
// tables/ (LaTeX). Compare pairs two run directories for a regression gate.
package runreport

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/figures"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// DefaultTokenBudget is how many generated tokens get per-token detail
// (colouring, hover metrics) in report.html. At about 40 bytes a token this
// keeps the page near 6 MiB of token data, which a browser opens at once;
// responses beyond it are shown as plain text.
const DefaultTokenBudget = 150_000

// Options configure a report.
type Options struct {
	// Baseline is the sampler the others are compared with; default "greedy"
	// when the run has it, else the first sampler.
	Baseline string
	// Paired configures the paired bootstrap (resamples, level, seed) and the
	// Monte-Carlo sign-flip test.
	Paired reports.PairedOptions
	// PrimaryFilter is the filter whose comparisons form the Holm family;
	// default the sweep's primary_filter, else the task's first filter.
	PrimaryFilter string
	// HolmFamily is the Holm family's scope: reports.HolmTask (default: the
	// samplers on the primary filter), reports.HolmRun (every filter too) or
	// reports.HolmSweep (BuildSweep: every task of a sweep directory).
	HolmFamily string
	// FigureSize is the figures' size preset: "one-column" (3.3 in, the
	// default) or "two-column" (6.8 in).
	FigureSize string
	// TableLabel prefixes the LaTeX tables' \label keys (tab:<TableLabel>-accuracy,
	// ...); default "entropix".
	TableLabel string
	// TokenBudget caps the tokens with per-token detail in report.html; 0 means
	// DefaultTokenBudget, negative means none.
	TokenBudget int
	// Now stamps the report; nil means time.Now.
	Now func() time.Time
	// NoParquet leaves out the Parquet copies of summary.arrow and
	// comparisons.arrow (and removes stale ones).
	NoParquet bool
}

func (o Options) tokenBudget() int {
	switch {
	case o.TokenBudget == 0:
		return DefaultTokenBudget
	case o.TokenBudget < 0:
		return 0
	}
	return o.TokenBudget
}

// Compute reads a run directory and computes every number of its report,
// without writing anything.
func Compute(dir string, opt Options) (*model.Report, error) {
	r, err := loadRun(dir)
	if err != nil {
		return nil, err
	}
	groups := groupBySampler(r.results, r.samplerOrder())
	scores, err := scoresOf(r)
	if err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	rep := &model.Report{RunDir: dir, Task: r.task(), Manifest: r.manifestView(), Notes: r.notes,
		Filters: scores.filters, AnswerFilters: reports.AnswerFilters(r.results), Throughput: r.throughput(), Provenance: r.provenance, FewShot: r.fewShot(), TableLabel: opt.TableLabel, FigureSize: opt.FigureSize}
	if opt.FigureSize != "" {
		if _, err := figures.SizeNamed(opt.FigureSize); err != nil {
			return nil, err
		}
	}
	if rep.PrimaryFilter, err = scores.primaryFilter(cmp.Or(opt.PrimaryFilter, r.manifest.Config.PrimaryFilter)); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	rep.Generated = time.Now().UTC()
	if opt.Now != nil {
		rep.Generated = opt.Now()
	}
	if rep.Summary, err = summaryRows(groups); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	labels := make([]string, len(groups))
	for i, g := range groups {
		labels[i] = g.label
		s, err := samplerSummary(g, scores, rep.Summary)
		if err != nil {
			return nil, fmt.Errorf("run directory %s: %w", dir, err)
		}
		s.Entropix = r.isEntropix(g.label)
		s.Thresholds = r.thresholds(g.label)
		rep.Samplers = append(rep.Samplers, s)
	}
	addCorpusAggregated(rep, r.corpus)
	if rep.Baseline, err = chooseBaseline(groups, opt.Baseline); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	if err := addCorpusTests(rep, dir, opt.Paired.Bootstrap.Seed); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	// The bootstrap and the pass over traces.arrow are the two slow parts and
	// share nothing: run them side by side.
	type comparisons struct {
		rows  []reports.ComparisonRow
		notes []string
		err   error
	}
	done := make(chan comparisons, 1)
	go func() {
		rows, notes, err := comparisonRows(scores, labels, rep.Baseline, rep.PrimaryFilter, opt.Paired)
		if err == nil {
			err = holmWithinRun(rows, opt.HolmFamily, rep.Task, dir, reportAlpha)
		}
		done <- comparisons{rows, notes, err}
	}()
	order := browserOrder(r.results, labels)
	// A response counts as correct under the primary score key.
	correct := func(res *reports.ResultRow) bool { return res.Correct(reports.Filter(rep.PrimaryFilter)) }
	detail, note := selectDetail(r.results, order, opt.tokenBudget(), correct)
	agg := newTraceAgg(r.results, labels, detail, correct)
	found, traceErr := agg.readTraces(tracesPath(dir))
	c := <-done
	if c.err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, c.err)
	}
	if traceErr != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, traceErr)
	}
	rep.Comparisons = c.rows
	rep.Notes = append(rep.Notes, c.notes...)
	rep.HasTraces = found
	if !found {
		rep.Notes = append(rep.Notes, "traces.arrow is missing: no per-token sections.")
		note = "The run has no traces.arrow, so responses are shown as plain text."
		detail = nil
	}
	if n := agg.note(); n != "" {
		rep.Notes = append(rep.Notes, n)
	}
	rep.TokenNote = note
	if found {
		for i := range rep.Samplers {
			// Without a manifest entry, the decisions tell an Entropix sampler.
			rep.Samplers[i].Entropix = rep.Samplers[i].Entropix || agg.decidesBeyondBaseline(i)
		}
		labels := make([]string, len(rep.Samplers))
		thresholds := make([]*model.Thresholds, len(rep.Samplers))
		for i, s := range rep.Samplers {
			labels[i], thresholds[i] = s.Label, s.Thresholds
		}
		rep.Density = sharedDensities(agg.density, labels, thresholds)
		var yMax float64
		for i, s := range rep.Samplers {
			c := agg.curve(i, s.Label)
			for _, pt := range append(c.Correct, c.Wrong...) {
				yMax = max(yMax, pt.Mean)
			}
			rep.Curves = append(rep.Curves, c)
			if s.Entropix {
				rep.Strategies = append(rep.Strategies, agg.strategyStats(i, s.Label))
			}
		}
		for i := range rep.Curves {
			rep.Curves[i].YMax = yMax
		}
	}
	rep.Problems = problemsOf(r, order, detail, rep.AnswerFilters, rep.Filters)
	rep.Header, rep.Warnings = r.header(rep), r.warnings(rep)
	return rep, nil
}

// browserOrder sorts response indices by problem, then sampler order, seed and
// repeat.
func browserOrder(results []reports.ResultRow, labels []string) []int {
	rank := map[string]int{}
	for i, l := range labels {
		rank[l] = i
	}
	order := make([]int, len(results))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &results[i], &results[j]
		return cmp.Or(cmp.Compare(a.ProblemID, b.ProblemID), cmp.Compare(rank[a.Sampler], rank[b.Sampler]),
			cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.Repeat, b.Repeat))
	})
	return order
}

// selectDetail picks whole problems whose responses fit the token budget, the
// most interesting first: problems where the samplers disagree (their shares of
// correct responses under the primary filter differ), then problems every
// sampler got wrong, then the rest, each group in problem order. It says in
// words what was left out.
func selectDetail(results []reports.ResultRow, order []int, budget int, correct func(*reports.ResultRow) bool) (map[int]*model.Tokens, string) {
	type group struct {
		rows     []int
		tokens   int64
		interest int // 0 disagree, 1 all wrong, 2 other
	}
	var groups []group
	for start := 0; start < len(order); {
		end := start
		g := group{}
		right, total := map[string]int{}, map[string]int{}
		for end < len(order) && results[order[end]].ProblemID == results[order[start]].ProblemID {
			r := &results[order[end]]
			g.tokens += int64(max(r.GenTokens, 0))
			total[r.Sampler]++
			if correct(r) {
				right[r.Sampler]++
			}
			end++
		}
		g.rows = order[start:end]
		g.interest = 2
		anyRight, share := false, -1.0
		for s, n := range total {
			x := float64(right[s]) / float64(n)
			anyRight = anyRight || right[s] > 0
			if share >= 0 && x != share {
				g.interest = 0
			}
			share = x
		}
		if g.interest != 0 && !anyRight {
			g.interest = 1
		}
		groups = append(groups, g)
		start = end
	}
	slices.SortStableFunc(groups, func(a, b group) int { return cmp.Compare(a.interest, b.interest) })
	detail := map[int]*model.Tokens{}
	var used int64
	covered := 0
	for _, g := range groups {
		if used+g.tokens > int64(budget) {
			continue
		}
		used += g.tokens
		covered++
		for _, i := range g.rows {
			detail[i] = &model.Tokens{}
		}
	}
	if covered == len(groups) {
		return detail, ""
	}
	return detail, fmt.Sprintf("Token-level detail (colouring, hover metrics and the token timeline) is embedded for %d of %d problems "+
		"(%d tokens, the report's token budget), chosen by interest: problems where the samplers disagree first, then problems all got wrong. "+
		"The other problems show their responses as plain text. Every token is in traces.arrow; rebuild with a larger --token-budget to embed more.",
		covered, len(groups), used)
}

func problemsOf(r *run, order []int, detail map[int]*model.Tokens, answerFilters, scoreKeys []string) []model.Problem {
	var out []model.Problem
	for _, i := range order {
		res := &r.results[i]
		if len(out) == 0 || out[len(out)-1].ID != res.ProblemID {
			t := r.questions[res.ProblemID]
			out = append(out, model.Problem{ID: res.ProblemID, Question: t.Question, Prompt: t.Prompt, Target: res.Target})
		}
		p := &out[len(out)-1]
		p.Responses = append(p.Responses, model.Response{
			Sampler: res.Sampler, Seed: res.Seed, Repeat: res.Repeat, Text: res.Response,
			Answers: answersOf(res, answerFilters), Correct: correctOf(res, scoreKeys),
			Finish: string(res.FinishReason), GenTokens: res.GenTokens, Tokens: detail[i],
		})
	}
	return out
}

// answersOf lists a row's answer under each filter, "" where it has none.
func answersOf(r *reports.ResultRow, filters []string) []string {
	out := make([]string, len(filters))
	for i, f := range filters {
		out[i], _ = r.Answer(f)
	}
	return out
}

// correctOf lists whether the row scored 1 under each score key.
func correctOf(r *reports.ResultRow, keys []string) []bool {
	out := make([]bool, len(keys))
	for i, k := range keys {
		out[i] = r.Correct(reports.ScoreKey(k))
	}
	return out
}
