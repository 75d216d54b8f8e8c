package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every corpus metric is a passthrough (its aggregation does the work); the
// per-document metrics are not.
func TestPassthroughMetrics(t *testing.T) {
	for _, name := range CorpusMetricNames() {
		assert.True(t, IsPassthroughMetric(name), name)
	}
	for _, name := range append(MetricNames(), "rouge", "") {
		assert.False(t, IsPassthroughMetric(name), name)
	}
	assert.True(t, IsPassthroughMetric("acc"))
	assert.True(t, IsPassthroughMetric("f1"))
}
