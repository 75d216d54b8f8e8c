package runreport

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
// docs both scored, when each ran one seed (every seed resamples the same
// docs; a test over several has no standard design here).
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
	base, baseOK := oneSeed(pairs, rep.Baseline)
	for i := range rep.Samplers {
		s := &rep.Samplers[i]
		if s.Label == rep.Baseline {
			continue
		}
		sys, sysOK := oneSeed(pairs, s.Label)
		for j := range s.CorpusAggregated {
			a := &s.CorpusAggregated[j]
			if !slices.Contains(keys, a.Key) {
				continue
			}
			if !sysOK || !baseOK {
				a.NoTest = "no paired test: several seeds"
				continue
			}
			t, err := corpusTest(reports.ScoreKey(a.Key).Metric(), sys[a.Key], base[a.Key], seed)
			if err != nil {
				return fmt.Errorf("%s vs %s, %s: %w", s.Label, rep.Baseline, a.Key, err)
			}
			a.Test = &t
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s vs %s Δ %+.2f (%.2f vs %.2f), p = %s (paired approximate randomization, %s over %d docs).",
				a.Key, s.Label, rep.Baseline, t.Delta, t.SystemScore, t.BaselineScore, reports.FormatP(t.P), trialsText(t), t.Docs))
		}
	}
	return nil
}

// trialsText says how many swap patterns a test scored.
func trialsText(t reports.CorpusTest) string {
	if t.Method == reports.CorpusARExact {
		return fmt.Sprintf("exact: all %d patterns", t.Trials)
	}
	return fmt.Sprintf("%d random patterns", t.Trials)
}

// corpusTest runs the paired test on the docs both systems scored, in doc order.
func corpusTest(metric string, sys, base map[int]textmetrics.Item, seed uint64) (reports.CorpusTest, error) {
	var docs []int
	for d := range sys {
		if _, ok := base[d]; ok {
			docs = append(docs, d)
		}
	}
	slices.Sort(docs)
	a, b := make([]textmetrics.Item, len(docs)), make([]textmetrics.Item, len(docs))
	for i, d := range docs {
		a[i], b[i] = sys[d], base[d]
	}
	cm, _ := hooks.LookupCorpusMetric(metric)
	st := cm.Statistic
	sa, err := st.Segments(a)
	if err != nil {
		return reports.CorpusTest{}, err
	}
	sb, err := st.Segments(b)
	if err != nil {
		return reports.CorpusTest{}, err
	}
	return reports.PairedAR(sa, sb, st.Score, reports.DefaultARTrials, seed)
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
	return fmt.Sprintf("%s %s vs %s: %.2f → %.2f (Δ %+.2f), p = %s (paired approximate randomization, %s over %d docs)",
		c.Key, c.B, c.A, t.BaselineScore, t.SystemScore, t.Delta, reports.FormatP(t.P), trialsText(t), t.Docs)
}

// compareCorpus tests each corpus metric of each sampler pair across two
// runs, where the sampler ran one seed in each.
func compareCorpus(dirA, dirB string, pairs []samplerPair, seed uint64) ([]CorpusComparison, error) {
	keysA, _, err := corpusAggregated(dirA)
	if err != nil {
		return nil, err
	}
	keysB, _, err := corpusAggregated(dirB)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, k := range keysB {
		if _, ok := hooks.LookupCorpusMetric(reports.ScoreKey(k).Metric()); ok && slices.Contains(keysA, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pa, err := corpusPairs(dirA, keys)
	if err != nil {
		return nil, err
	}
	pb, err := corpusPairs(dirB, keys)
	if err != nil {
		return nil, err
	}
	var out []CorpusComparison
	for _, p := range pairs {
		a, okA := oneSeed(pa, p.A)
		b, okB := oneSeed(pb, p.B)
		if !okA || !okB {
			continue
		}
		for _, k := range keys {
			t, err := corpusTest(reports.ScoreKey(k).Metric(), b[k], a[k], seed)
			if err != nil {
				return nil, fmt.Errorf("compare %s, %s vs %s: %w", k, p.B, p.A, err)
			}
			out = append(out, CorpusComparison{Key: k, A: p.A, B: p.B, Test: t})
		}
	}
	return out, nil
}

// oneSeed is a sampler's per-key doc items when it ran exactly one seed.
func oneSeed(pairs map[string]map[uint64]map[string]map[int]textmetrics.Item, label string) (map[string]map[int]textmetrics.Item, bool) {
	if len(pairs[label]) != 1 {
		return nil, false
	}
	for _, v := range pairs[label] {
		return v, true
	}
	return nil, false
}
