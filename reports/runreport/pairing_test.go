package runreport

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/reports/fixture"
)

// pairingRun writes a fixture run whose samplers carry the given labels and
// described parameters (the canonical spec compare pairs by).
func pairingRun(t *testing.T, labels []string, described []map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	spec := fixture.Small()
	spec.Samplers, spec.NoTraces = labels, true
	require.NoError(t, fixture.Write(dir, spec))
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var samplers []any
	for i, l := range labels {
		samplers = append(samplers, map[string]any{"label": l, "spec": map[string]any{"name": described[i]["name"], "label": l}, "description": described[i]})
	}
	m["samplers"] = samplers
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	return dir
}

var (
	greedyDesc = map[string]any{"name": "greedy", "temperature": 0, "greedy": true}
	minP01     = map[string]any{"name": "min_p", "temperature": 1, "min_p": 0.1, "greedy": false}
	minP005    = map[string]any{"name": "min_p", "temperature": 1, "min_p": 0.05, "greedy": false}
)

func TestComparePairing(t *testing.T) {
	nightA := pairingRun(t, []string{"greedy", "min_p"}, []map[string]any{greedyDesc, minP01})
	for _, tc := range []struct {
		name         string
		labels       []string
		described    []map[string]any
		byHand       []string
		pairs        []Pair
		onlyA, onlyB []string
		notes        []string
		err          string
	}{
		{name: "same specs pair by spec", labels: []string{"greedy", "min_p"}, described: []map[string]any{greedyDesc, minP01},
			pairs: []Pair{{"greedy", "greedy", PairedBySpec}, {"min_p", "min_p", PairedBySpec}}},
		{name: "renamed, same spec", labels: []string{"greedy", "minp"}, described: []map[string]any{greedyDesc, minP01},
			pairs: []Pair{{"greedy", "greedy", PairedBySpec}, {"min_p", "minp", PairedBySpec}}},
		{name: "spec changed: paired by label, said so", labels: []string{"greedy", "min_p"}, described: []map[string]any{greedyDesc, minP005},
			pairs: []Pair{{"greedy", "greedy", PairedBySpec}, {"min_p", "min_p", PairedByLabel}},
			notes: []string{"min_p: spec changed (min_p 0.1 → 0.05), paired by label"}},
		{name: "spec and label changed: alone", labels: []string{"greedy", "minp-v2"}, described: []map[string]any{greedyDesc, minP005},
			pairs: []Pair{{"greedy", "greedy", PairedBySpec}}, onlyA: []string{"min_p"}, onlyB: []string{"minp-v2"}},
		{name: "by hand", labels: []string{"greedy", "minp-v2"}, described: []map[string]any{greedyDesc, minP005}, byHand: []string{"min_p=minp-v2"},
			pairs: []Pair{{"greedy", "greedy", PairedBySpec}, {"min_p", "minp-v2", PairedByHand}}},
		{name: "by hand overrides the spec", labels: []string{"greedy", "min_p"}, described: []map[string]any{greedyDesc, minP01}, byHand: []string{"greedy=min_p", "min_p=greedy"},
			pairs: []Pair{{"min_p", "greedy", PairedByHand}, {"greedy", "min_p", PairedByHand}}},
		{name: "unknown label", labels: []string{"greedy", "min_p"}, described: []map[string]any{greedyDesc, minP01}, byHand: []string{"top_p=min_p"},
			err: "--pair top_p=min_p: want A=B with A a sampler of the reference run (greedy, min_p)"},
		{name: "paired twice", labels: []string{"greedy", "min_p"}, described: []map[string]any{greedyDesc, minP01}, byHand: []string{"greedy=min_p", "min_p=min_p"},
			err: "already paired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nightB := pairingRun(t, tc.labels, tc.described)
			c, err := Compare(nightA, nightB, CompareOptions{Pairs: tc.byHand})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.pairs, c.Pairs)
			assert.Equal(t, tc.onlyA, c.OnlyA)
			assert.Equal(t, tc.onlyB, c.OnlyB)
			for _, n := range tc.notes {
				assert.Contains(t, c.Notes, n)
			}
			for _, p := range tc.pairs {
				found := false
				for _, r := range c.Rows {
					found = found || r.Sampler == p.B && r.Baseline == p.A
				}
				assert.True(t, found, "rows for %v", p)
			}
		})
	}
}

// A label holding "=" splits where both sides are labels.
func TestSplitPair(t *testing.T) {
	a := []string{"min_p(min_p=0.1,temperature=1)", "greedy"}
	b := []string{"min_p(min_p=0.05,temperature=1)", "greedy"}
	la, lb, err := splitPair("min_p(min_p=0.1,temperature=1)=min_p(min_p=0.05,temperature=1)", a, b)
	require.NoError(t, err)
	assert.Equal(t, a[0], la)
	assert.Equal(t, b[0], lb)
	_, _, err = splitPair("x=y=z", []string{"x", "x=y"}, []string{"y=z", "z"})
	require.ErrorContains(t, err, "reads as 2 different pairs")
}

// splitPair never panics, and a split it returns is the input cut at one "="
// into a label of each run.
func FuzzSplitPair(f *testing.F) {
	f.Add("min_p=min_p-v2", "min_p", "min_p-v2")
	f.Add("a=b=c", "a=b", "c")
	f.Add("=", "", "")
	f.Fuzz(func(t *testing.T, p, a, b string) {
		la, lb, err := splitPair(p, []string{a, "greedy"}, []string{b, "greedy"})
		if err != nil {
			return
		}
		if la+"="+lb != p || (la != a && la != "greedy") || (lb != b && lb != "greedy") {
			t.Fatalf("splitPair(%q) = %q, %q", p, la, lb)
		}
	})
}
