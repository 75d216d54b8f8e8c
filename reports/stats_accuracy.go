package reports

import (
	"errors"
	"fmt"
	"math"
)

// z95 is the standard normal 0.975 quantile.
const z95 = 1.959963984540054

// Accuracy summarises per-problem scores.
type Accuracy struct {
	N    int
	Mean float64
	// SE is sd/√n with the sample (n−1) standard deviation. For 0/1 scores this
	// is exactly lm-eval's sqrt(p(1−p)/(n−1)); for problems scored as the mean of
	// several repeats it is the standard error of the mean over problems, which
	// treats the problem, not the response, as the independent unit. NaN if N < 2.
	SE float64
	// Wilson is the 95% Wilson score interval for p̂ = Mean over N trials: it
	// stays inside [0, 1] and keeps its coverage near 0 and 1, where the normal
	// interval does not. With repeats it is conservative, since a score in [0, 1]
	// with mean p has variance at most p(1−p).
	Wilson [2]float64
	// Normal is Mean ± 1.96·SE, the interval lm-eval's SE implies, clipped to
	// [0, 1]; NaN if N < 2.
	Normal [2]float64
}

// AccuracyOf computes the accuracy of per-problem scores, each in [0, 1] (1 or 0
// for a single response, the mean over repeats otherwise).
func AccuracyOf(scores []float64) (Accuracy, error) {
	n := len(scores)
	if n == 0 {
		return Accuracy{}, errors.New("accuracy of no problems")
	}
	for i, x := range scores {
		if !(x >= 0 && x <= 1) { // also rejects NaN
			return Accuracy{}, fmt.Errorf("score %d is %v, want a value in [0, 1]", i, x)
		}
	}
	mean := meanOf(scores)
	a := Accuracy{N: n, Mean: mean, SE: math.NaN(), Normal: [2]float64{math.NaN(), math.NaN()}}
	a.Wilson[0], a.Wilson[1] = wilson(mean, float64(n), z95)
	if n >= 2 {
		a.SE = math.Sqrt(max(0, sampleVariance(scores, mean)) / float64(n))
		a.Normal = [2]float64{max(0, mean-z95*a.SE), min(1, mean+z95*a.SE)}
	}
	return a, nil
}

// wilson returns the Wilson score interval for proportion p over n trials.
func wilson(p, n, z float64) (lo, hi float64) {
	z2n := z * z / n
	center := (p + z2n/2) / (1 + z2n)
	half := z / (1 + z2n) * math.Sqrt(p*(1-p)/n+z2n/(4*n))
	// At p = 0 or 1 the bound equals p exactly in real arithmetic; clamp the
	// rounding so that an all-wrong run reports a lower bound of exactly 0.
	return max(0, min(p, center-half)), min(1, max(p, center+half))
}

// meanOf is a compensated (Neumaier) mean, so long inputs keep full precision.
func meanOf(x []float64) float64 {
	var sum, c float64
	for _, v := range x {
		t := sum + v
		if math.Abs(sum) >= math.Abs(v) {
			c += (sum - t) + v
		} else {
			c += (v - t) + sum
		}
		sum = t
	}
	return (sum + c) / float64(len(x))
}

// sampleVariance is the two-pass (n−1) variance around a given mean, which avoids
// the cancellation of E[x²] − E[x]².
func sampleVariance(x []float64, mean float64) float64 {
	var ss, s float64
	for _, v := range x {
		d := v - mean
		ss += d * d
		s += d
	}
	n := float64(len(x))
	// The second term corrects the rounding error left in mean (Chan et al.).
	return (ss - s*s/n) / (n - 1)
}

// MeanSD is the spread of one statistic over seeds.
type MeanSD struct {
	N    int
	Mean float64
	SD   float64 // sample (n−1) standard deviation; NaN when N < 2
}

// MeanSDOf summarises values such as the accuracies of one sampler's seeds.
func MeanSDOf(values []float64) (MeanSD, error) {
	if len(values) == 0 {
		return MeanSD{}, errors.New("mean ± SD of no values")
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return MeanSD{}, fmt.Errorf("value %d is %v", i, v)
		}
	}
	m := MeanSD{N: len(values), Mean: meanOf(values), SD: math.NaN()}
	if m.N >= 2 {
		m.SD = math.Sqrt(max(0, sampleVariance(values, m.Mean)))
	}
	return m, nil
}
