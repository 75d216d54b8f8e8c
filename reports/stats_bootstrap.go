package reports

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples when none is given.
const DefaultResamples = 10000

// BootstrapOptions configures PairedBootstrap. Zero values take the defaults.
type BootstrapOptions struct {
	Resamples int     // default DefaultResamples
	Level     float64 // interval coverage, default 0.95
	Seed      uint64  // the resampling stream; fixed so reports repeat exactly
}

// PairedDifference is A − B over the same problems with its bootstrap interval.
type PairedDifference struct {
	N          int
	Difference float64 // mean(a) − mean(b)
	CILow      float64 // percentile interval of the resampled differences
	CIHigh     float64
	SE         float64 // standard deviation of the resampled differences
	Resamples  int
	// BeyondZero counts the resampled means at or beyond 0 on the far side
	// from Difference (≤ 0 when it is ≥ 0, else ≥ 0).
	BeyondZero int
}

// PairedBootstrap compares per-problem scores a[i] and b[i] of the same problem i
// (each already averaged over that problem's repeats). Each resample draws n
// problem indices with replacement and uses the same indices for A and B, so
// the interval reflects the pairing: it is the mean of d[i] = a[i] − b[i] over the
// drawn indices. The interval is the percentile interval with linear
// interpolation between order statistics (Hyndman–Fan type 7, numpy's default).
func PairedBootstrap(a, b []float64, opt BootstrapOptions) (PairedDifference, error) {
	if len(a) != len(b) {
		return PairedDifference{}, fmt.Errorf("paired bootstrap: %d scores for A, %d for B", len(a), len(b))
	}
	n := len(a)
	if n == 0 {
		return PairedDifference{}, errors.New("paired bootstrap: no problems")
	}
	if opt.Resamples == 0 {
		opt.Resamples = DefaultResamples
	}
	if opt.Level == 0 {
		opt.Level = 0.95
	}
	if opt.Resamples < 1 {
		return PairedDifference{}, fmt.Errorf("paired bootstrap: %d resamples", opt.Resamples)
	}
	if !(opt.Level > 0 && opt.Level < 1) {
		return PairedDifference{}, fmt.Errorf("paired bootstrap: level %v, want (0, 1)", opt.Level)
	}
	d := make([]float64, n)
	for i := range d {
		if math.IsNaN(a[i]) || math.IsNaN(b[i]) || math.IsInf(a[i], 0) || math.IsInf(b[i], 0) {
			return PairedDifference{}, fmt.Errorf("paired bootstrap: problem %d has score %v vs %v", i, a[i], b[i])
		}
		d[i] = a[i] - b[i]
	}
	means := bootstrapMeans(d, opt.Resamples, opt.Seed)
	slices.Sort(means)
	alpha := (1 - opt.Level) / 2
	diff := meanOf(d)
	beyond := 0
	for _, m := range means {
		if (diff >= 0 && m <= 0) || (diff < 0 && m >= 0) {
			beyond++
		}
	}
	return PairedDifference{
		N:          n,
		Difference: diff,
		BeyondZero: beyond,
		CILow:      quantileSorted(means, alpha),
		CIHigh:     quantileSorted(means, 1-alpha),
		SE:         math.Sqrt(max(0, sampleVarianceOrZero(means))),
		Resamples:  opt.Resamples,
	}, nil
}

// bootstrapMeans returns the mean of d over each of b resamples of len(d)
// indices drawn with replacement.
func bootstrapMeans(d []float64, resamples int, seed uint64) []float64 {
	rng := splitMix64{state: seed}
	n := uint64(len(d))
	means := make([]float64, resamples)
	for r := range means {
		var sum float64
		for range n {
			sum += d[rng.intn(n)]
		}
		means[r] = sum / float64(n)
	}
	return means
}

// quantileSorted is the type 7 quantile of sorted x: linear interpolation between
// the order statistics at h = (len−1)·q.
func quantileSorted(x []float64, q float64) float64 {
	h := float64(len(x)-1) * q
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return x[lo]
	}
	return x[lo] + frac*(x[lo+1]-x[lo])
}

func sampleVarianceOrZero(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	return sampleVariance(x, meanOf(x))
}
