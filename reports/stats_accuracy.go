package reports

import (
	"errors"
	"fmt"
	"math"
)

// z95 is the standard normal 0.975 quantile.
const z95 = 1.959963984540054

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
