package textmetrics

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// TER parameters of sacrebleu's lib_ter (Tercom's).
const (
	terMaxShiftSize       = 10
	terMaxShiftDist       = 50
	terBeamWidth          = 25
	terMaxShiftCandidates = 1000
	terInfinity           = int64(1e16)
)

// LMEvalTER is lm-eval's "ter" aggregation: sacrebleu.corpus_ter(preds,
// refs).score with its defaults (lower-cased, whitespace-collapsed words; no
// punctuation removal or normalisation), over the corpus, formatted as
// LMEvalBLEU. It is an error rate: lower is better.
func LMEvalTER(items []Item) (float64, error) {
	segs, err := segmentsOf(terSegment)(items)
	if err != nil {
		return 0, err
	}
	return terScore(Sum(segs)), nil
}

// terSegment is one segment's [edits, reference length]: the fewest edits
// over its references and their mean length.
func terSegment(hyp string, refs []string) ([]float64, error) {
	h := pyFields(terTokenize(hyp))
	best, sumLen := terInfinity, 0
	for _, r := range refs {
		e, n, err := translationEditRate(h, pyFields(terTokenize(r)))
		if err != nil {
			return nil, err
		}
		sumLen += n
		best = min(best, e)
	}
	return []float64{float64(best), float64(sumLen) / float64(len(refs))}, nil
}

// terScore is sacrebleu's TER._compute_score_from_stats on summed
// [edits, reference length].
func terScore(sum []float64) float64 {
	edits, refLen := sum[0], sum[1]
	switch {
	case refLen > 0:
		return 100 * (edits / refLen)
	case edits > 0:
		return 100 // empty references, non-empty hypotheses
	}
	return 0
}

// terTokenize is sacrebleu's TercomTokenizer with its defaults, after the
// metric's rstrip: lower case, whitespace collapsed.
func terTokenize(s string) string {
	return strings.Join(pyFields(pyLower(pyRStrip(s))), " ")
}

// translationEditRate is sacrebleu's translation_edit_rate: the number of
// edits (shifts found greedily, then the beam edit distance) and the
// reference length. sacrebleu caches rows of the edit distance by
// hypothesis prefix; every hypothesis here has the same length, so the
// cached rows equal recomputed ones and the cache only saves time.
func translationEditRate(hyp, ref []string) (int64, int, error) {
	if len(ref) == 0 {
		return int64(len(hyp)), 0, nil
	}
	shifts := int64(0)
	words, checked := hyp, 0
	for {
		delta, shifted, n, err := terShift(words, ref, checked)
		if err != nil {
			return 0, 0, err
		}
		checked = n
		if checked >= terMaxShiftCandidates || delta <= 0 {
			break
		}
		shifts++
		words = shifted
	}
	d, _, err := beamEditDistance(words, ref)
	return shifts + d, len(ref), err
}

// terCandidate orders shifts as sacrebleu's tuple does: largest gain, then
// longest, earliest start, earliest target, then the shifted words.
type terCandidate struct {
	gain   int64
	length int
	start  int // -start_h
	target int // -idx
	words  []string
}

func (a terCandidate) greater(b terCandidate) bool {
	switch {
	case a.gain != b.gain:
		return a.gain > b.gain
	case a.length != b.length:
		return a.length > b.length
	case a.start != b.start:
		return a.start > b.start
	case a.target != b.target:
		return a.target > b.target
	}
	return slices.Compare(a.words, b.words) > 0
}

// terShift is sacrebleu's _shift: the shift that lowers the edit distance
// most, with Tercom's filters on which shifts are tried.
func terShift(words, ref []string, checked int) (int64, []string, int, error) {
	pre, trace, err := beamEditDistance(words, ref)
	if err != nil {
		return 0, nil, 0, err
	}
	align, refErr, hypErr := terAlignment(flipTrace(trace))
	var best *terCandidate
	for _, p := range shiftedPairs(words, ref) {
		if sumRange(hypErr, p.h, p.h+p.n) == 0 || sumRange(refErr, p.r, p.r+p.n) == 0 {
			continue
		}
		if p.h <= align[p.r] && align[p.r] < p.h+p.n {
			continue
		}
		prev := -1
	targets:
		for off := -1; off < p.n; off++ {
			var idx int
			switch k := p.r + off; {
			case k == -1:
				idx = 0
			case k < len(align):
				idx = align[k] + 1
			default:
				break targets // past the reference
			}
			if idx == prev {
				continue
			}
			prev = idx
			shifted := performShift(words, p.h, p.n, idx)
			d, _, err := beamEditDistance(shifted, ref)
			if err != nil {
				return 0, nil, 0, err
			}
			c := terCandidate{gain: pre - d, length: p.n, start: -p.h, target: -idx, words: shifted}
			checked++
			if best == nil || c.greater(*best) {
				best = &c
			}
		}
		if checked >= terMaxShiftCandidates {
			break
		}
	}
	if best == nil {
		return 0, words, checked, nil
	}
	return best.gain, best.words, checked, nil
}

func sumRange(xs []int, from, to int) int {
	s := 0
	for i := from; i < to && i < len(xs); i++ {
		s += xs[i]
	}
	return s
}

// performShift moves words[start:start+n] to target: sacrebleu's
// _perform_shift, its three cases, with Python's slices, which clip.
func performShift(words []string, start, n, target int) []string {
	sl := func(a, b int) []string { return words[min(a, len(words)):min(max(a, b), len(words))] }
	var parts [4][]string
	switch {
	case target < start:
		parts = [4][]string{sl(0, target), sl(start, start+n), sl(target, start), sl(start+n, len(words))}
	case target > start+n:
		parts = [4][]string{sl(0, start), sl(start+n, target), sl(start, start+n), sl(target, len(words))}
	default:
		parts = [4][]string{sl(0, start), sl(start+n, n+target), sl(start, start+n), sl(n+target, len(words))}
	}
	return slices.Concat(parts[:]...)
}

type shiftPair struct{ h, r, n int }

// shiftedPairs lists (start_h, start_r, length) for every common run of up
// to 10 words starting within 50 positions of each other, every prefix of a
// run included, in sacrebleu's order.
func shiftedPairs(h, r []string) []shiftPair {
	var out []shiftPair
	for sh := range h {
		for sr := range r {
			if sr-sh > terMaxShiftDist || sh-sr > terMaxShiftDist {
				continue
			}
			for n := 0; h[sh+n] == r[sr+n] && n < terMaxShiftSize; {
				n++
				out = append(out, shiftPair{sh, sr, n})
				if sh+n == len(h) || sr+n == len(r) {
					break
				}
			}
		}
	}
	return out
}

// Edit operations of a trace.
const (
	opIns = 'i'
	opDel = 'd'
	opNop = ' '
	opSub = 's'
	opUnd = 'x'
)

func flipTrace(t []byte) []byte {
	out := slices.Clone(t)
	for i, c := range out {
		switch c {
		case opIns:
			out[i] = opDel
		case opDel:
			out[i] = opIns
		}
	}
	return out
}

// terAlignment is sacrebleu's trace_to_alignment: for each reference
// position the hypothesis position it aligns to, and the error flags.
func terAlignment(trace []byte) (align, refErr, hypErr []int) {
	posH, posR := -1, -1
	for _, op := range trace {
		switch op {
		case opNop, opSub:
			posH++
			posR++
			align = append(align, posH)
			e := 0
			if op == opSub {
				e = 1
			}
			hypErr, refErr = append(hypErr, e), append(refErr, e)
		case opIns:
			posH++
			hypErr = append(hypErr, 1)
		case opDel:
			posR++
			align = append(align, posH)
			refErr = append(refErr, 1)
		}
	}
	return align, refErr, hypErr
}

type terCell struct {
	cost int64
	op   byte
}

// beamEditDistance is sacrebleu's BeamEditDistance: the edit distance from
// ref to hyp computed in a band around the length-scaled diagonal, and the
// trace of operations (rewriting the reference into the hypothesis).
func beamEditDistance(h, ref []string) (int64, []byte, error) {
	nh, nr := len(h), len(ref)
	dist := make([][]terCell, nh+1)
	dist[0] = make([]terCell, nr+1)
	for j := range dist[0] {
		dist[0][j] = terCell{int64(j), opIns}
	}
	ratio := 1.0
	if nh > 0 {
		ratio = float64(nr) / float64(nh)
	}
	beam := terBeamWidth
	if float64(terBeamWidth) < ratio/2 {
		beam = int(math.Ceil(ratio/2 + terBeamWidth))
	}
	for i := 1; i <= nh; i++ {
		row := make([]terCell, nr+1)
		for j := range row {
			row[j] = terCell{terInfinity, opUnd}
		}
		dist[i] = row
		diag := int(math.Floor(float64(i) * ratio))
		lo, hi := max(0, diag-beam), min(nr+1, diag+beam)
		if i == nh {
			hi = nr + 1
		}
		for j := lo; j < hi; j++ {
			if j == 0 {
				row[0] = terCell{dist[i-1][0].cost + 1, opDel}
				continue
			}
			sub, subOp := int64(1), byte(opSub)
			if h[i-1] == ref[j-1] {
				sub, subOp = 0, opNop
			}
			for _, c := range [3]terCell{{dist[i-1][j-1].cost + sub, subOp}, {dist[i-1][j].cost + 1, opDel}, {row[j-1].cost + 1, opIns}} {
				if row[j].cost > c.cost {
					row[j] = c
				}
			}
		}
	}
	var trace []byte
	for i, j := nh, nr; i > 0 || j > 0; {
		op := dist[i][j].op
		trace = append(trace, op)
		switch op {
		case opSub, opNop:
			i, j = i-1, j-1
		case opIns:
			j--
		case opDel:
			i--
		default:
			return 0, nil, fmt.Errorf("ter: the edit path left the beam (unknown operation %q), as sacrebleu would fail", op)
		}
	}
	slices.Reverse(trace)
	return dist[nh][nr].cost, trace, nil
}
