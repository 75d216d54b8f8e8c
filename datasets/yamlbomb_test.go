package datasets

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// billionLaughs is a task file whose metadata expands to 10^levels values
// through aliases, from a few hundred bytes.
func billionLaughs(levels int) string {
	var b strings.Builder
	b.WriteString("task: laughs\nl0: &l0 \"lol\"\n")
	for i := 1; i <= levels; i++ {
		refs := strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10)
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(refs, ","))
	}
	return b.String()
}

// A task file's aliases are expanded within a budget: nine levels of ten
// references (10^9 values) took 3.6-4.2 GB and an out-of-memory kill.
func TestTaskYAMLAliasBombIsRefused(t *testing.T) {
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := buildFromFS(fstest.MapFS{"t.yaml": {Data: []byte(billionLaughs(9))}}, "t.yaml")
	require.ErrorContains(t, err, "t.yaml: line ")
	assert.ErrorContains(t, err, "aliases expand to more than 100000 values")
	assert.Less(t, time.Since(start), 2*time.Second)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(256<<20), "bytes allocated")

	// A few aliases, as real task files use them, are fine.
	_, err = loadRawConfig(fstest.MapFS{"t.yaml": {Data: []byte(billionLaughs(3))}}, "t.yaml")
	require.NoError(t, err)
}

// regex_pattern_to_value keeps its mapping's order (MapRegexFilter joins the
// patterns in it) and is read by the same budgeted, duplicate-refusing walk
// as the rest of the file.
func TestRegexPatternToValueOrderAndBudget(t *testing.T) {
	mapping := func(body string) string {
		return "task: t\nfilter_list:\n  - name: f\n    filter:\n      - function: map_regex\n        regex_pattern_to_value:\n" + body
	}
	rc, err := loadRawConfig(fstest.MapFS{"t.yaml": {Data: []byte(mapping("          \"z\": Z\n          \"a\": A\n          \"m\": 3\n"))}}, "t.yaml")
	require.NoError(t, err)
	step := rc.Keys["filter_list"].([]any)[0].(map[string]any)["filter"].([]any)[0].(map[string]any)
	assert.Equal(t, []any{[]any{"z", "Z"}, []any{"a", "A"}, []any{"m", int64(3)}}, step["regex_pattern_to_value"])

	_, err = loadRawConfig(fstest.MapFS{"t.yaml": {Data: []byte(mapping("          a: A\n          a: B\n"))}}, "t.yaml")
	assert.ErrorContains(t, err, `key "a" is set again`)

	// 10^4 values defined once are fine; ten references to them inside the
	// mapping expand past the budget.
	var refs strings.Builder
	for i := range 10 {
		fmt.Fprintf(&refs, "          k%d: *l4\n", i)
	}
	_, err = loadRawConfig(fstest.MapFS{"t.yaml": {Data: []byte(billionLaughs(4) + mapping(refs.String())[len("task: t\n"):])}}, "t.yaml")
	assert.ErrorContains(t, err, "aliases expand to more than 100000 values")
}
