package loglik

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/entropix-eval/entropix-eval/datasets"
)

// BootstrapIters is simple_evaluate's bootstrap_iters default: the resamples
// behind perplexity's standard error.
const BootstrapIters = 100000

// Aggregate is lm-eval's aggregation of one metric's per-doc values and its
// standard error as the evaluator reports it: mean with mean_stderr;
// perplexity (exp(−mean log-likelihood)) with bootstrap_stderr over iters
// resamples; weighted_perplexity, bits_per_byte and brier_score without one
// (lm-eval writes "N/A"; NaN here). One value has no standard error either.
func Aggregate(agg string, vals []Value, iters int) (value, stderr float64, err error) {
	if len(vals) == 0 {
		return math.NaN(), math.NaN(), nil
	}
	xs := make([]float64, len(vals))
	for i, v := range vals {
		xs[i] = v.Value
	}
	stderr = math.NaN()
	switch agg {
	case datasets.AggMean:
		value = mean(xs)
		if len(xs) > 1 {
			stderr = sampleStddev(xs) / math.Sqrt(float64(len(xs)))
		}
	case datasets.AggBrierScore:
		value = mean(xs)
	case datasets.AggPerplexity:
		value = perplexity(xs)
		if len(xs) > 1 && iters > 0 {
			stderr = BootstrapStderr(perplexity, xs, iters)
		}
	case datasets.AggWeightedPerplexity, datasets.AggBitsPerByte:
		ws := make([]float64, len(vals))
		for i, v := range vals {
			ws[i] = v.Weight
		}
		wm := PySum(xs) / PySum(ws) // weighted_mean
		value = math.Exp(-wm)
		if agg == datasets.AggBitsPerByte {
			value = -wm / math.Ln2
		}
	default:
		return 0, 0, fmt.Errorf("aggregation %q is not supported", agg)
	}
	return value, stderr, nil
}

// PySum is Python's sum() of floats (CPython 3.12 and later: Neumaier's
// compensated summation from 0.0, the correction added at the end).
func PySum(xs []float64) float64 {
	var s, c float64
	for _, x := range xs {
		t := s + x
		if math.Abs(s) >= math.Abs(x) {
			c += (s - t) + x
		} else {
			c += (x - t) + s
		}
		s = t
	}
	if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
		s += c
	}
	return s
}

func mean(xs []float64) float64 { return PySum(xs) / float64(len(xs)) }

func perplexity(xs []float64) float64 { return math.Exp(-mean(xs)) }

// sampleStddev is api/metrics.py's sample_stddev.
func sampleStddev(xs []float64) float64 {
	mu := mean(xs)
	sq := make([]float64, len(xs))
	for i, x := range xs {
		sq[i] = (x - mu) * (x - mu)
	}
	return math.Sqrt(PySum(sq) / float64(len(xs)-1))
}

// BootstrapStderr is api/metrics.py's bootstrap_stderr: chunks of
// min(1000, iters) resamples, chunk i drawn by random.Random(i) with
// rnd.choices(xs, k=len(xs)), then the sample standard deviation of all the
// statistics in chunk order. The draws are made in that order and the
// statistics computed in parallel (each into its own slot), so the result
// does not depend on the threads.
func BootstrapStderr[T any](f func([]T) float64, xs []T, iters int) float64 {
	chunk := min(1000, iters)
	if chunk <= 0 {
		return math.NaN()
	}
	res := make([]float64, iters/chunk*chunk)
	type resample struct {
		slot   int
		sample []T
	}
	work := make(chan resample, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				res[r.slot] = f(r.sample)
			}
		}()
	}
	n := float64(len(xs))
	for i := range iters / chunk {
		rnd := datasets.NewPyRandom(int64(i))
		for j := range chunk {
			sample := make([]T, len(xs))
			for k := range sample {
				sample[k] = xs[int(math.Floor(rnd.Random()*n))]
			}
			work <- resample{i*chunk + j, sample}
		}
	}
	close(work)
	wg.Wait()
	return sampleStddev(res)
}
