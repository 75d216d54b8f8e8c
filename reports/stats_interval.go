package reports

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a confidence interval for a proportion.
type Interval struct{ Low, High float64 }

// Wilson is Wilson's score interval (Wilson 1927) for a proportion p observed
// on n independent trials, at two-sided coverage level: the set of π whose
// score test |p − π|/√(π(1−π)/n) ≤ z accepts. Unlike p ± z·SE it stays inside
// [0, 1] and is not empty at p = 0 or 1. n may be fractional (an effective
// sample size); NaN for n ≤ 0.
func Wilson(p, n, level float64) Interval {
	if !(n > 0) || math.IsNaN(p) {
		return Interval{math.NaN(), math.NaN()}
	}
	z := normalQuantile(1 - (1-level)/2)
	z2 := z * z
	centre := (p + z2/(2*n)) / (1 + z2/n)
	half := z / (1 + z2/n) * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return Interval{max(0, centre-half), min(1, centre+half)}
}

// ClopperPearson is the exact (conservative) interval for k successes in n
// trials (Clopper & Pearson 1934): its ends are the π at which P(X ≥ k) and
// P(X ≤ k) equal (1 − level)/2, the Beta(k, n−k+1) and Beta(k+1, n−k)
// quantiles; 0 and 1 at k = 0 and k = n.
func ClopperPearson(k, n int, level float64) Interval {
	if n <= 0 || k < 0 || k > n {
		return Interval{math.NaN(), math.NaN()}
	}
	a := (1 - level) / 2
	iv := Interval{0, 1}
	if k > 0 {
		iv.Low = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
	}
	if k < n {
		iv.High = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
	}
	return iv
}

// EffectiveN is the number of independent trials that would give the
// proportion mean the variance its problem means show (Kish's design effect):
// n·mean(1−mean)/v, with v the plug-in (÷n) variance of the n problem means.
// With one 0/1 sample per problem v = mean(1−mean) and it is n. Averaging
// samples within a problem can only lower v, so it is at least n; it is
// capped at the number of samples, the most independent trials the data can
// hold. At mean 0 or 1 (no variance to measure) it is n.
func EffectiveN(means []float64, mean float64, samples int) float64 {
	n := float64(len(means))
	pq := mean * (1 - mean)
	var ss float64
	for _, x := range means {
		ss += (x - mean) * (x - mean)
	}
	v := ss / n
	if pq <= 0 || v <= 0 {
		if pq <= 0 {
			return n
		}
		return float64(samples)
	}
	return min(float64(samples), max(n, n*pq/v))
}

// normalQuantile is the standard normal quantile.
func normalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// tQuantile is Student's t quantile with df degrees of freedom; the normal
// quantile when df is infinite or not positive.
func tQuantile(p, df float64) float64 {
	if !(df > 0) || math.IsInf(df, 1) {
		return normalQuantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}
