package runreport

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
)

// maxStep is the last generation step the entropy curves track; later tokens
// count in the last step.
const maxStep = 4096

// maxStrategies bounds the distinct strategy labels tracked per response; more
// are lumped into "other".
const maxStrategies = 15

type respKey struct {
	runID           string
	problem, repeat int32
}

// traceAgg is one streaming pass over traces.arrow: everything the report draws
// from per-token data, in memory proportional to responses, not tokens.
type traceAgg struct {
	results   []reports.ResultRow
	respIndex map[respKey]int
	sampler   []int // response → sampler index
	correct   []bool

	density []*histogram
	// curve sums and counts per sampler, [0] wrong, [1] correct, by step.
	curveSum [][2][]float64
	curveN   [][2][]int64

	strategyID  map[string]int
	strategies  []string
	perSampler  [][]int64 // sampler → strategy → tokens
	metricSum   [][maxStrategies + 1][len(model.TokenMetrics)]float64
	metricN     [][maxStrategies + 1][len(model.TokenMetrics)]int64
	perResponse [][maxStrategies + 1]int32 // response → strategy → tokens
	tokens      []int32                    // response → tokens seen

	detail map[int]*model.Tokens
	// lookup cache: trace rows of one response are contiguous.
	last    respKey
	lastIdx int
	// orphans counts trace rows that match no result row.
	orphans int64
}

// correct scores a response under the report's primary filter.
func newTraceAgg(results []reports.ResultRow, samplers []string, detail map[int]*model.Tokens, correct func(*reports.ResultRow) bool) *traceAgg {
	idx := map[string]int{}
	for i, s := range samplers {
		idx[s] = i
	}
	a := &traceAgg{
		results: results, respIndex: make(map[respKey]int, len(results)),
		sampler: make([]int, len(results)), correct: make([]bool, len(results)),
		density:    make([]*histogram, len(samplers)),
		curveSum:   make([][2][]float64, len(samplers)),
		curveN:     make([][2][]int64, len(samplers)),
		strategyID: map[string]int{}, perSampler: make([][]int64, len(samplers)),
		metricSum:   make([][maxStrategies + 1][len(model.TokenMetrics)]float64, len(samplers)),
		metricN:     make([][maxStrategies + 1][len(model.TokenMetrics)]int64, len(samplers)),
		perResponse: make([][maxStrategies + 1]int32, len(results)),
		tokens:      make([]int32, len(results)),
		detail:      detail, lastIdx: -1,
	}
	for i := range results {
		r := &results[i]
		a.respIndex[respKey{r.RunID, r.ProblemID, r.Repeat}] = i
		a.sampler[i] = idx[r.Sampler]
		a.correct[i] = correct(r)
	}
	for s := range samplers {
		a.density[s] = newHistogram()
		a.perSampler[s] = make([]int64, maxStrategies+1)
		for k := range 2 {
			a.curveSum[s][k] = make([]float64, maxStep+1)
			a.curveN[s][k] = make([]int64, maxStep+1)
		}
	}
	return a
}

// readTraces streams path into a; it returns false when the file does not exist.
func (a *traceAgg) readTraces(path string) (bool, error) {
	tr, err := reports.OpenTraces(path)
	if err != nil {
		if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	defer tr.Close()
	for tr.Next() {
		row := tr.Row()
		a.add(&row)
	}
	if err := tr.Err(); err != nil {
		return true, err
	}
	return true, nil
}

func (a *traceAgg) add(t *reports.TraceRow) {
	k := respKey{t.RunID, t.ProblemID, t.Repeat}
	i := a.lastIdx
	if i < 0 || k != a.last {
		var ok bool
		if i, ok = a.respIndex[k]; !ok {
			a.orphans++
			a.lastIdx = -1
			return
		}
		a.last, a.lastIdx = k, i
	}
	s := a.sampler[i]
	a.density[s].add(t.Entropy, t.Varentropy)
	step := min(int(max(t.Step, 0)), maxStep)
	c := 0
	if a.correct[i] {
		c = 1
	}
	if isFinite(t.Entropy) {
		a.curveSum[s][c][step] += t.Entropy
		a.curveN[s][c][step]++
	}
	id := a.strategy(string(t.Strategy))
	a.perSampler[s][id]++
	a.perResponse[i][id]++
	// NaN marks an attention statistic the run did not compute.
	for m, v := range [len(model.TokenMetrics)]float64{
		t.Entropy, t.Varentropy, t.AttnEntropy, t.AttnVarentropy, t.Agreement, t.InteractionStrength,
	} {
		if isFinite(v) {
			a.metricSum[s][id][m] += v
			a.metricN[s][id][m]++
		}
	}
	a.tokens[i]++
	if d := a.detail[i]; d != nil {
		d.Text = append(d.Text, t.Text)
		d.Entropy = append(d.Entropy, t.Entropy)
		d.Varentropy = append(d.Varentropy, t.Varentropy)
		d.AttnEntropy = append(d.AttnEntropy, t.AttnEntropy)
		d.Strategy = append(d.Strategy, string(t.Strategy))
	}
}

func (a *traceAgg) strategy(name string) int {
	if id, ok := a.strategyID[name]; ok {
		return id
	}
	if len(a.strategies) == maxStrategies {
		return maxStrategies // "other"
	}
	id := len(a.strategies)
	a.strategyID[name] = id
	a.strategies = append(a.strategies, name)
	return id
}

func (a *traceAgg) strategyName(id int) string {
	if id < len(a.strategies) {
		return a.strategies[id]
	}
	return "other"
}

// decidesBeyondBaseline says whether sampler s made any decision other than
// the baselines' (greedy, sample).
func (a *traceAgg) decidesBeyondBaseline(s int) bool {
	for id, n := range a.perSampler[s] {
		if n == 0 {
			continue
		}
		switch a.strategyName(id) {
		case "greedy", "sample", "":
		default:
			return true
		}
	}
	return false
}

// shareBins are the groups of "how often a strategy fired in a response".
var shareBins = []struct {
	label     string
	low, high float64
}{
	{"never", 0, 0}, {"≤ 5%", 0, 0.05}, {"5–20%", 0.05, 0.20}, {"20–50%", 0.20, 0.50}, {"> 50%", 0.50, 1},
}

// strategyStats summarises the Entropix sampler with index s.
func (a *traceAgg) strategyStats(s int, label string) model.StrategyStats {
	st := model.StrategyStats{Sampler: label}
	for _, n := range a.perSampler[s] {
		st.Tokens += n
	}
	if st.Tokens == 0 {
		return st
	}
	for id, n := range a.perSampler[s] {
		if n > 0 {
			sh := model.StrategyShare{Strategy: a.strategyName(id), Tokens: n, Share: float64(n) / float64(st.Tokens)}
			for m := range sh.Means {
				sh.Means[m] = math.NaN()
				if c := a.metricN[s][id][m]; c > 0 {
					sh.Means[m] = a.metricSum[s][id][m] / float64(c)
				}
			}
			st.Shares = append(st.Shares, sh)
		}
	}
	sortShares(st.Shares)
	for _, sh := range st.Shares {
		id := a.strategyIDOf(sh.Strategy)
		for _, b := range shareBins {
			var n, right int
			for i := range a.results {
				if a.sampler[i] != s || a.tokens[i] == 0 {
					continue
				}
				share := float64(a.perResponse[i][id]) / float64(a.tokens[i])
				in := share > b.low && share <= b.high
				if b.high == 0 {
					in = share == 0
				}
				if in {
					n++
					if a.correct[i] {
						right++
					}
				}
			}
			if n > 0 {
				st.ByFrequency = append(st.ByFrequency, model.FrequencyBin{
					Strategy: sh.Strategy, Label: b.label, Low: b.low, High: b.high,
					Responses: n, Accuracy: float64(right) / float64(n),
				})
			}
		}
	}
	return st
}

func (a *traceAgg) strategyIDOf(name string) int {
	if id, ok := a.strategyID[name]; ok {
		return id
	}
	return maxStrategies
}

func sortShares(s []model.StrategyShare) {
	slices.SortStableFunc(s, func(a, b model.StrategyShare) int { return cmp.Compare(b.Tokens, a.Tokens) })
}

// curve turns sampler s's step sums into at most maxPoints points, merging
// neighbouring steps, and drops steps with fewer than minTokens tokens, whose
// means are noise.
func (a *traceAgg) curve(s int, label string) model.EntropyCurve {
	const maxPoints, minTokens = 128, 5
	last := 0
	for k := range 2 {
		for step, n := range a.curveN[s][k] {
			if n > 0 {
				last = max(last, step)
			}
		}
	}
	width := max(1, (last+maxPoints)/maxPoints)
	out := model.EntropyCurve{Sampler: label}
	for k := range 2 {
		var pts []model.CurvePoint
		for lo := 0; lo <= last; lo += width {
			var sum float64
			var n int64
			for step := lo; step < min(lo+width, last+1); step++ {
				sum += a.curveSum[s][k][step]
				n += a.curveN[s][k][step]
			}
			if n >= minTokens {
				pts = append(pts, model.CurvePoint{Step: lo, Mean: sum / float64(n), N: n})
			}
		}
		if k == 0 {
			out.Wrong = pts
		} else {
			out.Correct = pts
		}
	}
	return out
}

// traceNote describes trace rows that matched no response.
func (a *traceAgg) note() string {
	if a.orphans == 0 {
		return ""
	}
	return fmt.Sprintf("%d trace rows belong to no response in %s and were ignored.", a.orphans, ResultsFile)
}

func tracesPath(dir string) string { return filepath.Join(dir, TracesFile) }
