package loglik

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// The output types this package scores (datasets' names).
const (
	MultipleChoice = datasets.OutputMultipleChoice
	LogLikelihood  = datasets.OutputLoglikelihood
	Rolling        = datasets.OutputRolling
)

// Result is one request's answer: its log-likelihood and whether every
// continuation token was the argmax (lm-eval's (logprob, is_greedy)).
type Result struct {
	LogProb float64 `json:"logprob"`
	Greedy  bool    `json:"is_greedy"`
}

// NoGold is lm-eval's gold index for a target that names no choice.
const NoGold = -100

// Doc is one evaluated document's requests and what its metrics read.
type Doc struct {
	OutputType string    `json:"output_type"`
	Requests   []Request `json:"requests"`
	// Choices and Gold (multiple_choice): the choice texts, and the index of
	// the right one (NoGold when the target names none).
	Choices []string `json:"choices,omitempty"`
	Gold    int      `json:"gold"`
	// MutualInfo (multiple_choice with acc_mutual_info): the second half of
	// Requests are the choices without context.
	MutualInfo bool `json:"mutual_info,omitempty"`
	// Words and Bytes of doc_to_target (loglikelihood_rolling): the weights
	// of word_perplexity and of byte_perplexity / bits_per_byte.
	Words int `json:"words,omitempty"`
	Bytes int `json:"bytes,omitempty"`
}

// NewRolling is a loglikelihood_rolling doc of text: one request, the whole
// text, weighted by its words (re.split(r"\s+", text)) and UTF-8 bytes.
func NewRolling(text string) Doc {
	return Doc{OutputType: Rolling, Requests: []Request{{Continuation: text}}, Words: CountWords(text), Bytes: len(text)}
}

// CountWords is lm-eval's count_words: len(re.split(r"\s+", doc)), empty
// pieces at either end included.
func CountWords(s string) int {
	n, inSpace := 1, false
	for _, r := range s {
		sp := pyIsSpace(r)
		if sp && !inSpace {
			n++
		}
		inSpace = sp
	}
	return n
}

// Value is one metric's per-doc value: lm-eval's process_results item. For
// perplexity and the weighted aggregations it is the doc's log-likelihood,
// Weight its words or bytes; for brier_score the doc's squared error.
type Value struct {
	Metric string
	Value  float64
	Weight float64
}

// Pred is the multiple_choice prediction: the argmax of the log-likelihoods
// (the first of equal ones, as np.argmax).
func (d *Doc) Pred(res []Result) int {
	lls := d.conditional(res)
	return argmax(len(lls), func(i int) float64 { return lls[i].LogProb })
}

func (d *Doc) conditional(res []Result) []Result {
	if d.MutualInfo {
		return res[:len(d.Choices)]
	}
	return res
}

// Score computes the doc's values of metrics from its requests' results, in
// metrics order, as process_results does.
func (d *Doc) Score(metrics []string, res []Result) ([]Value, error) {
	if len(res) != len(d.Requests) {
		return nil, fmt.Errorf("%d results for %d requests", len(res), len(d.Requests))
	}
	out := make([]Value, 0, len(metrics))
	for _, m := range metrics {
		if err := datasets.CheckScoreMetric(d.OutputType, m); err != nil {
			return nil, err
		}
		v, err := d.value(m, res)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func (d *Doc) value(metric string, res []Result) (Value, error) {
	switch d.OutputType {
	case LogLikelihood:
		if metric == "perplexity" {
			return Value{metric, res[0].LogProb, 1}, nil
		}
		return Value{metric, b2f(res[0].Greedy), 1}, nil
	case Rolling:
		w := d.Bytes
		if datasets.ScoreMetrics[metric].Weight == "words" {
			w = d.Words
		}
		return Value{metric, res[0].LogProb, float64(w)}, nil
	}
	lls := d.conditional(res)
	if len(lls) != len(d.Choices) {
		return Value{}, fmt.Errorf("%d results for %d choices", len(lls), len(d.Choices))
	}
	pick := func(score func(i int) float64) Value {
		return Value{metric, b2f(argmax(len(lls), score) == d.Gold), 1}
	}
	switch metric {
	case "acc":
		return pick(func(i int) float64 { return lls[i].LogProb }), nil
	case "acc_norm": // character length: Python's len(str) counts code points
		return pick(func(i int) float64 { return lls[i].LogProb / float64(utf8.RuneCountInString(d.Choices[i])) }), nil
	case "acc_bytes":
		return pick(func(i int) float64 { return lls[i].LogProb / float64(len(d.Choices[i])) }), nil
	case "acc_mutual_info":
		if !d.MutualInfo {
			return Value{}, errors.New("the doc has no unconditional requests")
		}
		uncond := res[len(d.Choices):]
		return pick(func(i int) float64 { return lls[i].LogProb - uncond[i].LogProb }), nil
	case "exact_match":
		if d.Gold == NoGold {
			return Value{metric, 0, 1}, nil
		}
		return Value{metric, b2f(lls[d.Gold].Greedy), 1}, nil
	case "brier_score":
		if d.Gold < 0 || d.Gold >= len(lls) {
			return Value{}, fmt.Errorf("gold index %d outside the %d choices", d.Gold, len(lls))
		}
		p := Softmax(logProbs(lls))
		var s float64
		for i, v := range p {
			if i == d.Gold {
				v -= 1
			}
			s += v * v
		}
		return Value{metric, s, 1}, nil
	}
	return Value{}, fmt.Errorf("unknown metric %q", metric)
}

// Softmax is lm-eval's utils.softmax: e^(x−max) / Σ e^(x−max), the sum taken as
// numpy's np.sum takes it (pairwiseSum), so the probabilities are numpy's bits
// wherever math.Exp and the C library's exp agree (within 2 ulps elsewhere).
func Softmax(x []float64) []float64 {
	maxv := math.Inf(-1)
	for _, v := range x {
		maxv = math.Max(maxv, v)
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Exp(v - maxv)
	}
	z := pairwiseSum(out)
	for i := range out {
		out[i] /= z
	}
	return out
}

func logProbs(res []Result) []float64 {
	out := make([]float64, len(res))
	for i, r := range res {
		out[i] = r.LogProb
	}
	return out
}

// pairwiseSum is numpy's pairwise summation of a contiguous float64 array
// (numpy/core/src/umath/loops_utils.h, pairwise_sum_DOUBLE): under 8 values in
// order; up to 128 in eight interleaved partial sums combined as a tree, the rest
// in order; beyond, the two halves (the first a multiple of 8) summed apart.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		var s float64
		for _, x := range a {
			s += x
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	}
	half := n / 2
	half -= half % 8
	return pairwiseSum(a[:half]) + pairwiseSum(a[half:])
}

// argmax is np.argmax over n values: the first index of the largest (a NaN
// wins, as numpy's does).
func argmax(n int, v func(int) float64) int {
	best := 0
	for i := 0; i < n; i++ {
		x := v(i)
		if math.IsNaN(x) {
			return i
		}
		if x > v(best) {
			best = i
		}
	}
	return best
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
