package datasets

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/entropix-eval/entropix-eval/internal/usage"
)

// pyFunction is a `!function module.name` value: a Python hook lm-eval imports
// from a file next to the YAML. It is kept as data so the task that uses it can
// be refused with the key and the function named.
type pyFunction struct{ Spec string }

func (f pyFunction) String() string { return "!function " + f.Spec }

// rawConfig is one task, group or tag file after include merging: the keys,
// and for each top-level key the file that set it (for error messages).
type rawConfig struct {
	File   string // the file that was asked for
	Keys   map[string]any
	Origin map[string]string
	// Root is the include directory the file was found under ("" for a
	// built-in task or a --task file): lm-eval's package lm_eval.tasks.
	Root string
	// fsys and fsOrigin locate the files next to each key's YAML (the
	// utils.py a !function names): Origin's paths inside fsys.
	fsys     fs.FS
	fsOrigin map[string]string
}

// maxYAMLBytes bounds one task file; real ones are a few kilobytes.
const maxYAMLBytes = 1 << 20

// maxIncludeDepth bounds include chains (cycles are reported separately).
const maxIncludeDepth = 16

// loadRawConfig reads file from fsys and resolves its include chain as
// lm-eval's load_yaml does: each included file (relative to the including
// file's directory) is loaded first, and the including file's keys replace
// the included ones whole (a shallow dict.update).
func loadRawConfig(fsys fs.FS, file string) (*rawConfig, error) {
	rc, err := loadRawConfigSeen(fsys, file, nil)
	return rc, usage.Wrap(err) // the task file (or one it includes) is at fault
}

func loadRawConfigSeen(fsys fs.FS, file string, seen []string) (*rawConfig, error) {
	for _, s := range seen {
		if s == file {
			return nil, fmt.Errorf("%s: include cycle (%s)", file, strings.Join(append(seen, file), " → "))
		}
	}
	if len(seen) > maxIncludeDepth {
		return nil, fmt.Errorf("%s: includes nested more than %d deep", file, maxIncludeDepth)
	}
	b, err := readBounded(fsys, file)
	if err != nil {
		return nil, err
	}
	root, err := parseYAML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a YAML mapping at the top", file)
	}
	v, err := newYAMLBudget().nodeValue(root.Content[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	keys := v.(map[string]any)
	cfg := &rawConfig{File: file, Keys: map[string]any{}, Origin: map[string]string{}}
	if inc, ok := keys["include"]; ok {
		delete(keys, "include")
		var incs []any
		switch x := inc.(type) {
		case string:
			incs = []any{x}
		case []any:
			incs = x
		default:
			return nil, fmt.Errorf("%s: key include: want a file name or a list of them, got %s", file, kindOf(inc))
		}
		for _, i := range incs {
			name, ok := i.(string)
			if !ok {
				return nil, fmt.Errorf("%s: key include: want file names, got %s", file, kindOf(i))
			}
			target := name
			if !path.IsAbs(name) {
				target = path.Join(path.Dir(file), name)
			}
			sub, err := loadRawConfigSeen(fsys, target, append(seen, file))
			if err != nil {
				return nil, fmt.Errorf("%s: include %s: %w", file, name, err)
			}
			delete(sub.Keys, "task_list") // lm-eval: task_list belongs to the included file only
			for k, v := range sub.Keys {
				cfg.Keys[k], cfg.Origin[k] = v, sub.Origin[k]
			}
		}
	}
	for k, v := range keys {
		cfg.Keys[k], cfg.Origin[k] = v, file
	}
	return cfg, nil
}

// parseYAML parses a task file as PyYAML does. PyYAML accepts the escape
// "\/" in double-quoted scalars (YAML 1.2's escaped slash, used by
// turkishmmlu's CoT files) and go-yaml does not: on that error the file is
// parsed again with each such escape spelled "\u002F", which decodes to "/"
// in double-quoted scalars, and every other scalar gets its "\/" back.
func parseYAML(b []byte) (yaml.Node, error) {
	var root yaml.Node
	err := yaml.Unmarshal(b, &root)
	if err == nil || !strings.Contains(err.Error(), "unknown escape character") || bytes.Contains(b, []byte(slashEscape)) {
		return root, err
	}
	var retry yaml.Node
	if yaml.Unmarshal(escapeSlashes(b), &retry) != nil {
		return root, err
	}
	restoreSlashes(&retry)
	return retry, nil
}

const slashEscape = `\u002F`

// escapeSlashes rewrites each "\/" whose backslash is not itself escaped.
func escapeSlashes(b []byte) []byte {
	var out bytes.Buffer
	run := 0 // backslashes just before i
	for i := 0; i < len(b); i++ {
		if b[i] == '/' && run%2 == 1 {
			out.Truncate(out.Len() - 1)
			out.WriteString(slashEscape)
			run = 0
			continue
		}
		if b[i] == '\\' {
			run++
		} else {
			run = 0
		}
		out.WriteByte(b[i])
	}
	return out.Bytes()
}

// restoreSlashes puts "\/" back into every scalar that is not double-quoted
// (there the text is literal).
func restoreSlashes(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style&yaml.DoubleQuotedStyle == 0 {
		n.Value = strings.ReplaceAll(n.Value, slashEscape, `\/`)
	}
	for _, c := range n.Content {
		restoreSlashes(c)
	}
}

func readBounded(fsys fs.FS, file string) ([]byte, error) {
	st, err := fs.Stat(fsys, file)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxYAMLBytes {
		return nil, fmt.Errorf("%s: %d bytes; a task file may hold at most %d", file, st.Size(), maxYAMLBytes)
	}
	return fs.ReadFile(fsys, file)
}

// nodeValue converts a YAML node as PyYAML's loader would: plain scalars
// resolve to bool/int/float/null by the YAML 1.1-ish core rules yaml.v3 uses,
// quoted scalars stay strings, and `!function` becomes a pyFunction. Aliases
// are expanded within the budget.
func (b *yamlBudget) nodeValue(n *yaml.Node) (any, error) {
	if err := b.spend(n); err != nil {
		return nil, err
	}
	switch n.Kind {
	case yaml.AliasNode:
		return b.nodeValue(n.Alias)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		lines := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn := n.Content[i]
			if kn.Kind == yaml.ScalarNode && kn.Tag == "!!merge" {
				return nil, fmt.Errorf("line %d: YAML merge keys (<<) are not supported", kn.Line)
			}
			var key string
			if err := kn.Decode(&key); err != nil {
				return nil, fmt.Errorf("line %d: mapping key: %w", kn.Line, err)
			}
			// PyYAML keeps the last of two equal keys without a word; a task
			// file that sets a key twice is refused instead.
			if first, dup := lines[key]; dup {
				return nil, fmt.Errorf("line %d: key %q is set again (first on line %d)", kn.Line, key, first)
			}
			lines[key] = kn.Line
			v, err := b.nodeValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			if vn := n.Content[i+1]; key == "regex_pattern_to_value" && vn.Kind == yaml.MappingNode {
				// MapRegexFilter joins the patterns in the mapping's order.
				v = orderedPairs(vn, v.(map[string]any))
			}
			m[key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := b.nodeValue(c)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		if n.Tag == "!function" {
			return pyFunction{Spec: n.Value}, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case uint64:
			if x > math.MaxInt64 {
				return float64(x), nil
			}
			return int64(x), nil
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

// yamlBudget bounds what a task file's aliases expand to. yaml.v3 guards
// its own decoding against alias bombs, but walking the node tree expands
// every alias again: nine levels of ten references built 10^9 nodes
// (3.6-4.2 GB and an out-of-memory kill) from a file of a few hundred bytes.
type yamlBudget struct{ nodes, bytes int }

// Real task files have a few hundred nodes and a few kilobytes of text.
const (
	maxYAMLNodes = 100_000
	maxYAMLText  = 16 << 20
)

func newYAMLBudget() *yamlBudget { return &yamlBudget{nodes: maxYAMLNodes, bytes: maxYAMLText} }

func (b *yamlBudget) spend(n *yaml.Node) error {
	b.nodes--
	b.bytes -= len(n.Value)
	if b.nodes < 0 || b.bytes < 0 {
		return fmt.Errorf("line %d: the file's aliases expand to more than %d values or %d bytes of text; refused", n.Line, maxYAMLNodes, maxYAMLText)
	}
	return nil
}

// orderedPairs is a mapping as a list of [key, value] pairs in file order.
// m is the mapping as nodeValue converted it: its values were counted
// against the budget once, and its keys were checked (no merge keys, no
// key set twice).
func orderedPairs(n *yaml.Node, m map[string]any) []any {
	out := make([]any, 0, len(m))
	for i := 0; i+1 < len(n.Content); i += 2 {
		var k string
		_ = n.Content[i].Decode(&k) // decoded without error when m was built
		out = append(out, []any{k, m[k]})
	}
	return out
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case pyFunction:
		return "a !function (Python code)"
	}
	return fmt.Sprintf("%T", v)
}

// findFunction returns the key path of the first !function inside v, if any.
func findFunction(prefix string, v any) (string, pyFunction, bool) {
	switch x := v.(type) {
	case pyFunction:
		return prefix, x, true
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if p, f, ok := findFunction(prefix+"."+k, x[k]); ok {
				return p, f, true
			}
		}
	case []any:
		for i, e := range x {
			if p, f, ok := findFunction(prefix+"["+strconv.Itoa(i)+"]", e); ok {
				return p, f, true
			}
		}
	}
	return "", pyFunction{}, false
}

// ErrUnsupportedTask marks a task that uses lm-eval features this harness
// does not implement (Python hooks, loglikelihood output types, unknown keys).
var ErrUnsupportedTask = usage.New("unsupported task configuration")
