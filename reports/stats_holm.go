package reports

import (
	"fmt"
	"math"
	"slices"
)

// Holm applies Holm's step-down correction to the p-values of one family of
// tests (a report's comparisons) and returns the adjusted p-values in the input
// order. With the p-values sorted ascending, p₍ᵢ₎ (i = 1..m) becomes
// min(1, max over j ≤ i of (m−j+1)·p₍ⱼ₎): monotone in the order of the raw
// p-values and capped at 1. Rejecting where the adjusted p ≤ α controls the
// family-wise error rate at α.
func Holm(p []float64) ([]float64, error) {
	m := len(p)
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("holm: p-value %d is %v, want [0, 1]", i, v)
		}
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	// Stable, so tied p-values keep their input order (their adjusted values
	// are equal anyway).
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case p[i] < p[j]:
			return -1
		case p[i] > p[j]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 0.0
	for rank, idx := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*p[idx]))
		adj[idx] = running
	}
	return adj, nil
}
