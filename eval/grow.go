package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// grownInto says whether cur only adds work to the run old describes — more
// seeds, more samplers, or more problems (a higher limit) — so every item old
// finished is an item of cur, computed the same way, and a finished run
// directory can grow instead of starting over. It returns cur with the grown
// fields set back to old's, for fingerprintDiff to check that nothing else
// changed.
func grownInto(old, cur *Manifest) (*Manifest, bool) {
	c := *cur
	grew := false
	if !slices.Equal(old.Config.Seeds, cur.Config.Seeds) && subset(old.Config.Seeds, cur.Config.Seeds) {
		c.Config.Seeds, grew = old.Config.Seeds, true
	}
	if len(cur.Samplers) > len(old.Samplers) && samplersSubset(old.Samplers, cur.Samplers) &&
		subset(orderParts(old.Provenance.SamplerOrder), orderParts(cur.Provenance.SamplerOrder)) {
		c.Samplers, c.Provenance.SamplerOrder, grew = old.Samplers, old.Provenance.SamplerOrder, true
	}
	// More problems: a limit raised or lifted over the same data.
	if cur.Problems > old.Problems && old.Config.Limit > 0 && (cur.Config.Limit == 0 || cur.Config.Limit > old.Config.Limit) {
		c.Problems, c.Config.Limit, grew = old.Problems, old.Config.Limit, true
	}
	return &c, grew
}

func subset[T comparable](small, big []T) bool {
	for _, v := range small {
		if !slices.Contains(big, v) {
			return false
		}
	}
	return true
}

// samplersSubset: every old sampler is in cur under the same label with the
// same parameters in effect.
func samplersSubset(old, cur []SamplerInfo) bool {
	for _, o := range old {
		i := slices.IndexFunc(cur, func(c SamplerInfo) bool { return c.Label == o.Label })
		if i < 0 || canonicalJSON(cur[i].Description) != canonicalJSON(o.Description) {
			return false
		}
	}
	return true
}

// canonicalJSON re-encodes raw compactly with sorted keys, so a description
// read back from an indented manifest equals a fresh one.
func canonicalJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func orderParts(s string) []string { return strings.Split(s, "; ") }

// problemsPrefix checks that a grown run's problems start with the ones the
// run directory holds, unchanged.
func problemsPrefix(have, want []ProblemEntry) error {
	if len(have) > len(want) {
		return fmt.Errorf("the run directory has %d problems, this configuration gives %d", len(have), len(want))
	}
	return sameProblems(have, want[:len(have)])
}
