package eval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxLeafBytes bounds one value in a refusal message: a changed chat template or
// system instruction is named, not printed whole.
const maxLeafBytes = 300

// valueDiffs lists the leaves that differ between two JSON-encoded values of a
// result-defining field, each as "path: old → new" with both values in full, so a
// changed sampler field reads "samplers[1] (min_p).spec.Params.temperature: 0.7 →
// 1" rather than two copies cut at the same prefix.
func valueDiffs(name string, old, cur []byte) []string {
	var o, n any
	if json.Unmarshal(old, &o) != nil || json.Unmarshal(cur, &n) != nil {
		return []string{fmt.Sprintf("%s: %s → %s", name, leafText(old), leafText(cur))}
	}
	var out []string
	collectDiffs(name, o, n, &out)
	if len(out) == 0 { // equal as values, different as bytes (key order)
		out = append(out, name+": same value in another order")
	}
	return out
}

func collectDiffs(path string, o, n any, out *[]string) {
	switch ov := o.(type) {
	case map[string]any:
		if nv, ok := n.(map[string]any); ok {
			keys := make([]string, 0, len(ov)+len(nv))
			for k := range ov {
				keys = append(keys, k)
			}
			for k := range nv {
				if _, dup := ov[k]; !dup {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				collectDiffs(path+"."+k, ov[k], nv[k], out)
			}
			return
		}
	case []any:
		if nv, ok := n.([]any); ok {
			for i := range max(len(ov), len(nv)) {
				var oe, ne any
				if i < len(ov) {
					oe = ov[i]
				}
				if i < len(nv) {
					ne = nv[i]
				}
				collectDiffs(elementPath(path, i, oe, ne), oe, ne, out)
			}
			return
		}
	}
	ob, _ := json.Marshal(o) // decoded from JSON: re-encodes
	nb, _ := json.Marshal(n)
	if string(ob) != string(nb) {
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, leafText(ob), leafText(nb)))
	}
}

// elementPath names a list element by index, and by its label or name when it
// has one (a sampler, a filter), so a message says which sampler changed.
func elementPath(path string, i int, o, n any) string {
	p := path + "[" + strconv.Itoa(i) + "]"
	for _, e := range []any{n, o} {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		for _, key := range []string{"label", "name"} {
			if s, ok := m[key].(string); ok && s != "" {
				return p + " (" + s + ")"
			}
		}
	}
	return p
}

// leafText is a JSON value as the message shows it: whole up to maxLeafBytes,
// else its start and its size; null (one side lacks it) as "(none)".
func leafText(b []byte) string {
	s := string(b)
	switch {
	case s == "null":
		return "(none)"
	case len(s) > maxLeafBytes:
		return strings.ToValidUTF8(s[:maxLeafBytes], "") + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// effectiveMaxNew shows a run's generation budget as it was in effect: 0 in the
// config means the task's own budget.
func effectiveMaxNew(m *Manifest) string {
	if m.Config.MaxNewTokens > 0 {
		return strconv.Itoa(m.Config.MaxNewTokens)
	}
	return fmt.Sprintf("%d (the task's)", m.Task.MaxNewTokens)
}
