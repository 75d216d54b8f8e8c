package hooks

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/entropix-eval/entropix-eval/internal/pyfloat"
)

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// plus the ASCII separators \x1c-\x1f, which Python counts and Go does not.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// PyStrip is Python's str.strip().
func PyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// PyLower is Python's str.lower() for the cases where it differs from Go's
// simple mapping that matter in practice: U+0130 lowers to "i" + U+0307. (The
// Greek final-sigma rule is not reproduced.)
func PyLower(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u0130", "i\u0307"))
}

// PyUpper is Python's str.upper() for the cases that matter in practice
// (ß becomes "SS"; Go has no single-rune upper case for it).
func PyUpper(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "ß", "SS")) }

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// PyStr is Python's str() for the Doc value kinds (and YAML scalars).
func PyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return PyFloat(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, pyRepr(k)+": "+pyRepr(x[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
	}
	return PyStr(v)
}

// PyFloat is Python's str(float), as Jinja prints a float doc field.
func PyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return pyfloat.Repr(f)
}
