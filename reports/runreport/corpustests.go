package runreport

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/reports/model"
	"github.com/entropix-eval/entropix-eval/rundir"
	"github.com/entropix-eval/entropix-eval/textmetrics"
)

// corpusPairs reads samples.jsonl's [reference, response] values of the
// corpus-metric keys: per sampler, seed and key, doc id → item.
func corpusPairs(dir string, keys []string) (map[string]map[uint64]map[string]map[int]textmetrics.Item, error) {
	f, err := os.Open(filepath.Join(dir, rundir.SamplesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[uint64]map[string]map[int]textmetrics.Item{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for line := 1; sc.Scan(); line++ {
		var s map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", rundir.SamplesFile, line, err)
		}
		var sampler string
		var seed uint64
		var doc int
		if json.Unmarshal(s["sampler"], &sampler) != nil || json.Unmarshal(s["seed"], &seed) != nil || json.Unmarshal(s["doc_id"], &doc) != nil {
			return nil, fmt.Errorf("%s line %d: no sampler, seed or doc_id", rundir.SamplesFile, line)
		}
		for _, k := range keys {
			raw, ok := s[k]
			if !ok {
				continue
			}
			var pair []any
			if err := json.Unmarshal(raw, &pair); err != nil {
				return nil, fmt.Errorf("%s line %d: %s: %w", rundir.SamplesFile, line, k, err)
			}
			items, err := textmetrics.ItemsFromPairs([]any{pair})
			if err != nil {
				return nil, fmt.Errorf("%s line %d: %s: %w", rundir.SamplesFile, line, k, err)
			}
			bySeed := out[sampler]
			if bySeed == nil {
				bySeed = map[uint64]map[string]map[int]textmetrics.Item{}
				out[sampler] = bySeed
			}
			if bySeed[seed] == nil {
				bySeed[seed] = map[string]map[int]textmetrics.Item{}
			}
			if bySeed[seed][k] == nil {
				bySeed[seed][k] = map[int]textmetrics.Item{}
			}
			bySeed[seed][k][doc] = items[0]
		}
	}
	return out, sc.Err()
}

// addCorpusTests gives each sampler's corpus-metric scores (bleu, chrf, ter)
// a paired approximate randomization test against the baseline's on the
// docs both scored, when both ran as many seeds (paired in seed order; the
// scores are the seeds' means).
func addCorpusTests(rep *model.Report, dir string, seed uint64) error {
	var keys []string
	for _, k := range rep.CorpusAggregated {
		if _, ok := hooks.LookupCorpusMetric(reports.ScoreKey(k).Metric()); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	pairs, err := corpusPairs(dir, keys)
	if err != nil || pairs == nil {
		return err
	}
	base := seedRuns(pairs, rep.Baseline)
	for i := range rep.Samplers {
		s := &rep.Samplers[i]
		if s.Label == rep.Baseline {
			continue
		}
		sys := seedRuns(pairs, s.Label)
		for j := range s.CorpusAggregated {
			a := &s.CorpusAggregated[j]
			if !slices.Contains(keys, a.Key) {
				continue
			}
			if len(sys) != len(base) {
				a.NoTest = fmt.Sprintf("no paired test: %d and %d seeds", len(sys), len(base))
				continue
			}
			t, err := corpusTest(a.Key, sys, base, seed)
			if err != nil {
				return fmt.Errorf("%s vs %s, %s: %w", s.Label, rep.Baseline, a.Key, err)
			}
			a.Test = &t
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s vs %s Δ %+.2f (%.2f vs %.2f), p = %s (paired approximate randomization, %s).",
				a.Key, s.Label, rep.Baseline, t.Delta, t.SystemScore, t.BaselineScore, reports.FormatP(t.P), trialsText(t)))
		}
	}
	return nil
}

// trialsText says how many swap patterns a test scored, over how many docs
// and seeds.
func trialsText(t reports.CorpusTest) string {
	over := fmt.Sprintf("%d docs", t.Docs)
	if t.Runs > 1 {
		over += fmt.Sprintf(" × %d seeds", t.Runs)
	}
	if t.Method == reports.CorpusARExact {
		return fmt.Sprintf("exact: all %d patterns over %s", t.Trials, over)
	}
	return fmt.Sprintf("%d random patterns over %s", t.Trials, over)
}

// corpusTest runs the paired test of one score key on the docs both systems
// scored in every seed, in doc order, seeds paired in order.
func corpusTest(key string, sys, base []map[string]map[int]textmetrics.Item, seed uint64) (reports.CorpusTest, error) {
	if len(sys) == 0 || len(sys) != len(base) {
		return reports.CorpusTest{}, fmt.Errorf("%d and %d seeds: want as many", len(sys), len(base))
	}
	var docs []int
	for d := range sys[0][key] {
		everywhere := true
		for r := range sys {
			_, okA := sys[r][key][d]
			_, okB := base[r][key][d]
			everywhere = everywhere && okA && okB
		}
		if everywhere {
			docs = append(docs, d)
		}
	}
	slices.Sort(docs)
	cm, _ := hooks.LookupCorpusMetric(reports.ScoreKey(key).Metric())
	stats := func(side []map[string]map[int]textmetrics.Item) ([][][]float64, error) {
		out := make([][][]float64, len(side))
		for r, run := range side {
			items := make([]textmetrics.Item, len(docs))
			for i, d := range docs {
				items[i] = run[key][d]
			}
			segs, err := cm.Statistic.Segments(items)
			if err != nil {
				return nil, err
			}
			out[r] = segs
		}
		return out, nil
	}
	sa, err := stats(sys)
	if err != nil {
		return reports.CorpusTest{}, err
	}
	sb, err := stats(base)
	if err != nil {
		return reports.CorpusTest{}, err
	}
	return reports.PairedAR(sa, sb, cm.Statistic.Score, reports.DefaultARTrials, seed)
}

// CorpusComparison is a corpus metric of sampler B (new run) against
// sampler A (reference run) on the docs both scored.
type CorpusComparison struct {
	Key  string // "metric,filter"
	A, B string
	Test reports.CorpusTest
}

// Line is the comparison as one line of compare's text output.
func (c CorpusComparison) Line() string {
	t := c.Test
	return fmt.Sprintf("%s %s vs %s: %.2f → %.2f (Δ %+.2f), p = %s (paired approximate randomization, %s)",
		c.Key, c.B, c.A, t.BaselineScore, t.SystemScore, t.Delta, reports.FormatP(t.P), trialsText(t))
}

// compareCorpus tests each corpus metric of each sampler pair across two
// runs, where the sampler ran as many seeds in each.
func compareCorpus(a, b *run, pairs []samplerPair, seed uint64) ([]CorpusComparison, error) {
	var keys []string
	for _, k := range b.corpus.keys {
		if _, ok := hooks.LookupCorpusMetric(reports.ScoreKey(k).Metric()); ok && slices.Contains(a.corpus.keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pa, err := corpusPairs(a.dir, keys)
	if err != nil {
		return nil, err
	}
	pb, err := corpusPairs(b.dir, keys)
	if err != nil {
		return nil, err
	}
	var out []CorpusComparison
	for _, p := range pairs {
		ra, rb := seedRuns(pa, p.A), seedRuns(pb, p.B)
		if len(ra) == 0 || len(ra) != len(rb) {
			continue
		}
		for _, k := range keys {
			t, err := corpusTest(k, rb, ra, seed)
			if err != nil {
				return nil, fmt.Errorf("compare %s, %s vs %s: %w", k, p.B, p.A, err)
			}
			out = append(out, CorpusComparison{Key: k, A: p.A, B: p.B, Test: t})
		}
	}
	return out, nil
}

// seedRuns are a sampler's per-key doc items, one map per seed in seed order.
func seedRuns(pairs map[string]map[uint64]map[string]map[int]textmetrics.Item, label string) []map[string]map[int]textmetrics.Item {
	seeds := slices.Sorted(maps.Keys(pairs[label]))
	out := make([]map[string]map[int]textmetrics.Item, len(seeds))
	for i, s := range seeds {
		out[i] = pairs[label][s]
	}
	return out
}
