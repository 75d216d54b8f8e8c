package reports

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// CanonicalSpec is the key that is equal for equal samplers however they were
// written: the manifest's description of the sampler (every parameter in
// effect) re-encoded with sorted keys, else its spec, else its label when
// neither is a JSON object. compare pairs samplers by it, and results.arrow
// and summary.arrow carry it as sampler_spec.
func CanonicalSpec(label string, description, spec json.RawMessage) string {
	for _, raw := range []json.RawMessage{description, spec} {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			continue
		}
		if _, isObject := v.(map[string]any); !isObject {
			continue
		}
		if b, err := json.Marshal(v); err == nil { // map keys come out sorted
			return "spec:" + string(b)
		}
	}
	return "label:" + label
}

// ModelName names a checkpoint path as a reader knows the model: a hub
// snapshot (.../models--org--name/snapshots/<revision>) by its repo id and
// revision, any other path by its last element; no path, no name (responses
// scored without a model).
func ModelName(path string) (name, revision string) {
	if path == "" {
		return "", ""
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	for i := len(parts) - 3; i >= 0; i-- {
		if strings.HasPrefix(parts[i], "models--") && parts[i+1] == "snapshots" {
			return strings.ReplaceAll(strings.TrimPrefix(parts[i], "models--"), "--", "/"), parts[i+2]
		}
	}
	return parts[len(parts)-1], ""
}
