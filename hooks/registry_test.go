package hooks

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every registered filter, metric and aggregation is defined in its own
// file with its own test file (filter_<name>.go and filter_<name>_test.go),
// so adding one is one file and its test, and the YAML loader's accepted
// names are exactly these.
func TestEachRegisteredFunctionHasItsFileAndTest(t *testing.T) {
	var names []string
	for _, n := range FilterNames() {
		names = append(names, "filter_"+n)
	}
	for _, n := range MetricNames() {
		names = append(names, "metric_"+n)
	}
	for _, n := range AggregationNames() {
		names = append(names, "aggregation_"+n)
	}
	require.NotEmpty(t, names)
	for _, n := range names {
		for _, f := range []string{n + ".go", n + "_test.go"} {
			_, err := os.Stat(f)
			assert.NoError(t, err, "%s is registered: want %s", strings.TrimSuffix(n, ".go"), f)
		}
	}
}

// values is a doc's responses as a filter receives them.
func values(items ...string) Values { return Values{Items: items} }

// runFilter compiles a registered filter with params and applies it.
func runFilter(t *testing.T, name string, params map[string]any, v Values, doc map[string]any) (Values, error) {
	t.Helper()
	f, err := NewFilter(name, params)
	require.NoError(t, err)
	return f(v, doc)
}

func TestNewFilterRefusesUnknownNamesAndArguments(t *testing.T) {
	_, err := NewFilter("format_span", nil)
	assert.ErrorContains(t, err, `unknown filter function "format_span"`)
	_, err = NewFilter("regex", map[string]any{"regex": "x"})
	assert.ErrorContains(t, err, "argument regex is not supported")
}
