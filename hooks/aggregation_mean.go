package hooks

// mean (lm_eval/api/metrics.py): the arithmetic mean of the values.
func init() {
	registerAggregation(Aggregation{Name: "mean", Fold: func(values []float64) float64 {
		sum := 0.0
		for _, v := range values {
			sum += v
		}
		return sum / float64(len(values))
	}})
}
