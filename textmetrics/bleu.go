package textmetrics

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// BLEU holds sacrebleu's BLEU options. The zero value is not ready: use
// DefaultBLEU, which is what sacrebleu.corpus_bleu(hyps, refs) uses and what
// lm-eval's "bleu" aggregation calls.
type BLEU struct {
	// Tokenize is "13a" or "none" (sacrebleu's other tokenizers are not
	// implemented; lm-eval never asks for them).
	Tokenize string
	// Smooth is "exp", "none", "floor" or "add-k"; SmoothValue < 0 takes
	// sacrebleu's default for the method (floor 0.1, add-k 1).
	Smooth         string
	SmoothValue    float64
	MaxOrder       int
	EffectiveOrder bool
}

// DefaultBLEU is sacrebleu.corpus_bleu's defaults: 13a tokenisation, exp
// smoothing, n-grams up to 4, no effective order, case kept.
func DefaultBLEU() BLEU { return BLEU{Tokenize: "13a", Smooth: "exp", SmoothValue: -1, MaxOrder: 4} }

// BLEUScore is a corpus BLEU score with its sufficient statistics.
type BLEUScore struct {
	Score          float64 // 0-100
	Counts, Totals []int   // matched and hypothesis n-grams per order
	Precisions     []float64
	BP             float64
	SysLen, RefLen int
}

// ErrNoSegments is returned for an empty corpus (sacrebleu raises too).
var ErrNoSegments = errors.New("no hypotheses or references to score")

// Corpus scores hyps against refs, sacrebleu's layout: refs[k] is the k-th
// reference stream, refs[k][i] a reference of hyps[i]. As sacrebleu (zip),
// the streams are cut to the shortest one and hyps to the number of
// segments.
func (b BLEU) Corpus(hyps []string, refs [][]string) (BLEUScore, error) {
	if err := b.check(); err != nil {
		return BLEUScore{}, err
	}
	segs := segmentRefs(refs)
	if len(hyps) == 0 || len(segs) == 0 {
		return BLEUScore{}, ErrNoSegments
	}
	stats := make([]int, 2+2*b.MaxOrder)
	for i := 0; i < len(hyps) && i < len(segs); i++ {
		s := b.segmentStats(b.preprocess(hyps[i]), segs[i])
		for j := range stats {
			stats[j] += s[j]
		}
	}
	return b.fromStats(stats), nil
}

func (b BLEU) check() error {
	switch b.Tokenize {
	case "13a", "none":
	default:
		return fmt.Errorf("bleu: tokenizer %q is not implemented (13a, none)", b.Tokenize)
	}
	switch b.Smooth {
	case "exp", "none", "floor", "add-k":
	default:
		return fmt.Errorf("bleu: smooth method %q: want exp, none, floor or add-k", b.Smooth)
	}
	if b.MaxOrder < 1 {
		return fmt.Errorf("bleu: max n-gram order %d: want at least 1", b.MaxOrder)
	}
	return nil
}

// segmentRefs turns reference streams into per-segment reference lists
// (Python's zip(*refs): as many segments as the shortest stream).
func segmentRefs(refs [][]string) [][]string {
	if len(refs) == 0 {
		return nil
	}
	n := len(refs[0])
	for _, s := range refs {
		n = min(n, len(s))
	}
	out := make([][]string, n)
	for i := range out {
		for _, s := range refs {
			out[i] = append(out[i], s[i])
		}
	}
	return out
}

func (b BLEU) preprocess(s string) string {
	s = pyRStrip(s)
	if b.Tokenize == "13a" {
		return Tokenize13a(s)
	}
	return s
}

// wordNgrams counts every n-gram of order 1..maxOrder of the whitespace
// tokens of line (sacrebleu's extract_all_word_ngrams); tokens hold no
// whitespace, so joining them with a space is a faithful key.
func wordNgrams(line string, maxOrder int) (map[string]int, int) {
	toks := pyFields(line)
	counts := make(map[string]int, len(toks)*maxOrder)
	for n := 1; n <= maxOrder; n++ {
		for i := 0; i+n <= len(toks); i++ {
			counts[strings.Join(toks[i:i+n], " ")]++
		}
	}
	return counts, len(toks)
}

// segmentStats is [hyp_len, ref_len, correct..., total...] for one
// hypothesis: reference n-gram counts are the maximum over the references,
// and the reference length is the closest one (the shorter on a tie).
func (b BLEU) segmentStats(hyp string, refs []string) []int {
	refMax := map[string]int{}
	var refLens []int
	for i, r := range refs {
		counts, n := wordNgrams(b.preprocess(r), b.MaxOrder)
		refLens = append(refLens, n)
		if i == 0 {
			refMax = counts
			continue
		}
		for g, c := range counts {
			refMax[g] = max(refMax[g], c)
		}
	}
	hypCounts, hypLen := wordNgrams(hyp, b.MaxOrder)
	closest, diff := -1, -1
	for _, l := range refLens {
		d := hypLen - l
		if d < 0 {
			d = -d
		}
		if diff == -1 || d < diff || (d == diff && l < closest) {
			closest, diff = l, d
		}
	}
	out := make([]int, 2+2*b.MaxOrder)
	out[0], out[1] = hypLen, closest
	for g, c := range hypCounts {
		n := strings.Count(g, " ")
		out[2+b.MaxOrder+n] += c
		if rc, ok := refMax[g]; ok {
			out[2+n] += min(c, rc)
		}
	}
	return out
}

// fromStats is sacrebleu's BLEU.compute_bleu, operation for operation.
func (b BLEU) fromStats(stats []int) BLEUScore {
	maxN := b.MaxOrder
	sysLen, refLen := stats[0], stats[1]
	s := BLEUScore{SysLen: sysLen, RefLen: refLen, Counts: append([]int(nil), stats[2:2+maxN]...),
		Totals: append([]int(nil), stats[2+maxN:]...), Precisions: make([]float64, maxN), BP: 1}
	if sysLen < refLen {
		s.BP = 0
		if sysLen > 0 {
			s.BP = math.Exp(1 - float64(refLen)/float64(sysLen))
		}
	}
	anyCorrect := false
	for _, c := range s.Counts {
		anyCorrect = anyCorrect || c != 0
	}
	if !anyCorrect {
		return s
	}
	smoothValue := b.SmoothValue
	if smoothValue < 0 {
		smoothValue = map[string]float64{"floor": 0.1, "add-k": 1}[b.Smooth]
	}
	correct, total := make([]float64, maxN), make([]float64, maxN)
	for i := range maxN {
		correct[i], total[i] = float64(s.Counts[i]), float64(s.Totals[i])
	}
	smoothMteval, effOrder := 1.0, maxN
	for n := 1; n <= maxN; n++ {
		if b.Smooth == "add-k" && n > 1 {
			correct[n-1] += smoothValue
			total[n-1] += smoothValue
		}
		if total[n-1] == 0 {
			break
		}
		if b.EffectiveOrder {
			effOrder = n
		}
		switch {
		case correct[n-1] != 0:
			s.Precisions[n-1] = 100 * correct[n-1] / total[n-1]
		case b.Smooth == "exp":
			smoothMteval *= 2
			s.Precisions[n-1] = 100 / (smoothMteval * total[n-1])
		case b.Smooth == "floor":
			s.Precisions[n-1] = 100 * smoothValue / total[n-1]
		}
	}
	// Python's sum() before 3.12 adds left to right, as here.
	sum := 0.0
	for _, p := range s.Precisions[:effOrder] {
		sum += flooredLog(p)
	}
	s.Score = s.BP * math.Exp(sum/float64(effOrder))
	return s
}

// flooredLog is sacrebleu's my_log: log, with 0 mapped to -9999999999.
func flooredLog(x float64) float64 {
	if x == 0 {
		return -9999999999
	}
	return math.Log(x)
}
