package runreport

import (
	"math"

	"github.com/entropix-eval/entropix-eval/reports/model"
)

// The fine grid every token lands in. Its range covers any vocabulary (log2 of
// 2^20 tokens is 20 bits) so one streaming pass needs no first look at the data;
// the plot then crops to where the tokens are and merges cells.
const (
	fineBins   = 400
	entropyTop = 20.0 // bits
	varentTop  = 80.0 // bits²
	plotBins   = 60   // about this many cells per axis in the figure
	cropQuant  = 0.995
)

type histogram struct {
	counts []uint32 // fineBins × fineBins, row-major by varentropy
	// beyond counts, per fine cell, the tokens beyond the grid's top that were
	// clamped into it (rare, so a map).
	beyond  map[int]int64
	tokens  int64
	skipped int64 // NaN metrics
}

func newHistogram() *histogram {
	return &histogram{counts: make([]uint32, fineBins*fineBins), beyond: map[int]int64{}}
}

func (h *histogram) add(ent, vent float64) {
	if math.IsNaN(ent) || math.IsNaN(vent) {
		h.skipped++
		return
	}
	i, ci := bin(ent, entropyTop)
	j, cj := bin(vent, varentTop)
	if ci || cj {
		h.beyond[j*fineBins+i]++
	}
	h.counts[j*fineBins+i]++
	h.tokens++
}

// bin maps x to a fine bin. Negative values (rounding of a zero entropy) go to
// the first bin; values at or beyond top are clamped into the last (beyond).
func bin(x, top float64) (int, bool) {
	if x < 0 {
		return 0, false
	}
	b := int(x / top * fineBins)
	if b >= fineBins {
		return fineBins - 1, true
	}
	return b, false
}

// density crops the grid to the cropQuant quantile of each axis (so one
// outlier does not squash the plot) and merges cells to about plotBins per axis.
func (h *histogram) density(label string, t *model.Thresholds) model.Density {
	nx, ny := h.crop(t)
	return h.densityIn(label, t, nx, ny)
}

// sharedDensities draws every sampler's density on the same axes (the widest
// crop of any) and one colour scale, so small multiples compare at a glance.
func sharedDensities(hs []*histogram, labels []string, ts []*model.Thresholds) []model.Density {
	nx, ny := 1, 1
	for i, h := range hs {
		if h.tokens > 0 {
			x, y := h.crop(ts[i])
			nx, ny = max(nx, x), max(ny, y)
		}
	}
	out := make([]model.Density, len(hs))
	var top uint32
	for i, h := range hs {
		out[i] = h.densityIn(labels[i], ts[i], nx, ny)
		for _, c := range out[i].Counts {
			top = max(top, c)
		}
	}
	for i := range out {
		out[i].CountMax = top
	}
	return out
}

// crop returns the fine bins per axis that hold the cropQuant quantile of the
// tokens and every threshold.
func (h *histogram) crop(t *model.Thresholds) (nx, ny int) {
	mx := make([]int64, fineBins)
	my := make([]int64, fineBins)
	for j := range fineBins {
		for i := range fineBins {
			c := int64(h.counts[j*fineBins+i])
			mx[i] += c
			my[j] += c
		}
	}
	nx = quantileBin(mx, h.tokens, cropQuant) + 1
	ny = quantileBin(my, h.tokens, cropQuant) + 1
	// Keep the thresholds in view: they are the point of the plot.
	if t != nil {
		for _, l := range t.Entropy {
			nx = max(nx, min(fineBins, int(l.Value/entropyTop*fineBins)+2))
		}
		for _, l := range t.Varentropy {
			ny = max(ny, min(fineBins, int(l.Value/varentTop*fineBins)+2))
		}
	}
	return nx, ny
}

// densityIn merges the first nx × ny fine bins to about plotBins per axis;
// tokens beyond them count in the last cells (Clipped).
func (h *histogram) densityIn(label string, t *model.Thresholds, nx, ny int) model.Density {
	d := model.Density{Sampler: label, Tokens: h.tokens, Thresholds: t}
	kx := max(1, (nx+plotBins-1)/plotBins)
	ky := max(1, (ny+plotBins-1)/plotBins)
	d.NX, d.NY = (nx+kx-1)/kx, (ny+ky-1)/ky
	d.EntropyMax = float64(d.NX*kx) * entropyTop / fineBins
	d.VarentMax = float64(d.NY*ky) * varentTop / fineBins
	d.Counts = make([]uint32, d.NX*d.NY)
	for j := range fineBins {
		for i := range fineBins {
			c := h.counts[j*fineBins+i]
			if c == 0 {
				continue
			}
			ci, cj := min(i/kx, d.NX-1), min(j/ky, d.NY-1)
			if i/kx >= d.NX || j/ky >= d.NY {
				d.Clipped += int64(c)
			} else {
				d.Clipped += h.beyond[j*fineBins+i]
			}
			d.Counts[cj*d.NX+ci] += c
		}
	}
	return d
}

// quantileBin is the first bin by which a share q of the total has been seen.
func quantileBin(marginal []int64, total int64, q float64) int {
	if total == 0 {
		return 0
	}
	need := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, c := range marginal {
		seen += c
		if seen >= need {
			return i
		}
	}
	return len(marginal) - 1
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
