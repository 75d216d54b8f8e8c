package textmetrics

import "fmt"

// CorpusStatistic is one of lm-eval's corpus metrics as sacrebleu computes
// it: per-segment sufficient statistics, summed over the corpus, then one
// score. A paired test resamples which system each segment's statistics
// come from without scoring any text again (sacrebleu's significance
// module does the same).
type CorpusStatistic struct {
	// Segments are the statistics of each item, after lm-eval's
	// _sacreformat (references cut to the item with the fewest).
	Segments func(items []Item) ([][]float64, error)
	// Score is the corpus score of the summed statistics.
	Score func(sum []float64) float64
}

// LMEvalStatistic returns the statistic of lm-eval's "bleu", "chrf" or "ter":
// Score of the summed Segments is LMEvalBLEU, LMEvalCHRF or LMEvalTER.
func LMEvalStatistic(name string) (CorpusStatistic, bool) {
	switch name {
	case "bleu":
		b := DefaultBLEU()
		return CorpusStatistic{
			Segments: segmentsOf(func(hyp string, refs []string) ([]float64, error) {
				return floats(b.segmentStats(b.preprocess(hyp), refs))
			}),
			Score: func(sum []float64) float64 { return b.fromStats(ints(sum)).Score },
		}, true
	case "chrf":
		c := DefaultCHRF()
		return CorpusStatistic{
			Segments: segmentsOf(func(hyp string, refs []string) ([]float64, error) { return floats(c.segmentStats(hyp, refs)) }),
			Score:    func(sum []float64) float64 { return c.fScore(ints(sum)) },
		}, true
	case "ter":
		return CorpusStatistic{Segments: segmentsOf(terSegment), Score: terScore}, true
	}
	return CorpusStatistic{}, false
}

// segmentsOf applies a segment statistic to every item, after lm-eval's
// _sacreformat.
func segmentsOf(stats func(hyp string, refs []string) ([]float64, error)) func([]Item) ([][]float64, error) {
	return func(items []Item) ([][]float64, error) {
		hyps, refs := sacreformat(items)
		segs := segmentRefs(refs)
		if len(hyps) == 0 || len(segs) == 0 {
			return nil, ErrNoSegments
		}
		out := make([][]float64, min(len(hyps), len(segs)))
		for i := range out {
			s, err := stats(hyps[i], segs[i])
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			out[i] = s
		}
		return out, nil
	}
}

// floats is an integer statistic as segmentsOf wants it.
func floats(xs []int) ([]float64, error) {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out, nil
}

// ints turns summed integer statistics back into ints (the sums of whole
// numbers below 2^53 are exact in float64).
func ints(xs []float64) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = int(x)
	}
	return out
}

// Sum adds segment statistics (in segment order).
func Sum(segs [][]float64) []float64 {
	if len(segs) == 0 {
		return nil
	}
	sum := make([]float64, len(segs[0]))
	for _, s := range segs {
		for j, x := range s {
			sum[j] += x
		}
	}
	return sum
}
