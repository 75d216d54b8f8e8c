package datasets

// `!function module.name` values: each resolves to its Go port in package
// hooks, keyed by the task folder, the function and the SHA-256 of the
// Python file; one without a port is a blocker naming file, function and hash.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/hooks"
)

// portUse is one !function of a task and its port.
type portUse struct {
	Ref  hooks.PortRef
	Port *hooks.Port
}

// DocsHook is a task's process_docs: the port and which one it is.
type DocsHook struct {
	Ref  hooks.PortRef
	port *hooks.Port
}

// Apply runs the port on one split's rows.
func (h *DocsHook) Apply(in hooks.Rows, env hooks.DocsEnv) (hooks.Rows, error) {
	return h.port.Docs(in, env)
}

// isPortKey says whether a top-level key may hold a ported !function.
func isPortKey(key string) bool {
	switch key {
	case "process_docs", "process_results", "doc_to_text", "doc_to_target":
		return true
	}
	return false
}

func isFunction(v any) bool { _, ok := v.(pyFunction); return ok }

// portKinds says which kind of port each place of a !function needs.
var filterFunctionPath = regexp.MustCompile(`^filter_list\[\d+\]\.filter\[\d+\]\.function$`)

func portFits(keyPath string, p *hooks.Port) (string, bool) {
	switch {
	case keyPath == "process_docs" || keyPath == "fewshot_config.process_docs":
		return "process_docs", p.Docs != nil
	case keyPath == "process_results":
		return "process_results", p.Results != nil
	case keyPath == "doc_to_text" || keyPath == "doc_to_target" ||
		keyPath == "fewshot_config.doc_to_text" || keyPath == "fewshot_config.doc_to_target":
		return keyPath, p.Text != nil
	case keyPath == "fewshot_config.samples":
		return "fewshot samples", p.Samples != nil
	case filterFunctionPath.MatchString(keyPath):
		return "filter class", p.Filter != nil
	}
	return "", false
}

// hookClass names a blocker's class by where the !function sits.
func hookClass(keyPath string) string {
	switch {
	case filterFunctionPath.MatchString(keyPath):
		return "filter !function"
	case strings.HasPrefix(keyPath, "metric_list"):
		if strings.HasSuffix(keyPath, ".aggregation") {
			return "aggregation !function"
		}
		return "metric !function"
	}
	return keyPath + " hook"
}

// maxHookFileBytes bounds a Python file read for its hash.
const maxHookFileBytes = 4 << 20

// resolvePorts finds every !function of the config and its port, recording
// a blocker for each one without.
func (g *getter) resolvePorts() map[string]portUse {
	out := map[string]portUse{}
	for _, key := range sortedKeys(g.rc.Keys) {
		for _, fp := range allFunctions(key, g.rc.Keys[key]) {
			ref, err := g.portRef0(key, fp.f)
			if err != nil {
				if g.python { // the bridge's check names what is missing
					g.addPythonHook(key, fp)
					continue
				}
				g.block(key, hookClass(fp.path), "%s at %s: %v", fp.f, fp.path, err)
				continue
			}
			port, err := hooks.LookupPort(ref)
			if err != nil {
				if g.python { // --python-hooks: the bridge runs what has no port
					g.addPythonHook(key, fp)
					continue
				}
				g.block(key, hookClass(fp.path), "%s at %s is Python code without a Go port: %v", fp.f, fp.path, err)
				continue
			}
			if port.Bind != nil {
				if port, err = port.Bind(g.portContext(ref)); err != nil {
					g.block(key, hookClass(fp.path), "%s at %s: %v", fp.f, fp.path, err)
					continue
				}
			}
			what, ok := portFits(fp.path, port)
			if !ok {
				if g.python {
					g.addPythonHook(key, fp)
					continue
				}
				g.block(key, hookClass(fp.path), "%s at %s: the Go port of %s is not a %s", fp.f, fp.path, ref.Function, what)
				continue
			}
			out[fp.path] = portUse{Ref: ref.Canonical(), Port: port}
		}
	}
	return out
}

// portRef0 names the Python file a !function of key loads (module.py next
// to the YAML that set key) and hashes it.
func (g *getter) portRef0(key string, f pyFunction) (hooks.PortRef, error) {
	i := strings.LastIndex(f.Spec, ".")
	if i <= 0 || i == len(f.Spec)-1 {
		return hooks.PortRef{}, fmt.Errorf("want module.function")
	}
	module, fn := f.Spec[:i], f.Spec[i+1:]
	origin := g.rc.fsOrigin[key]
	if g.rc.fsys == nil || origin == "" {
		return hooks.PortRef{}, fmt.Errorf("the file defining it cannot be located")
	}
	dir := path.Dir(origin)
	file := path.Join(dir, module+".py")
	st, err := fs.Stat(g.rc.fsys, file)
	if err != nil {
		return hooks.PortRef{}, fmt.Errorf("read %s: %w", module+".py", err)
	}
	if st.Size() > maxHookFileBytes {
		return hooks.PortRef{}, fmt.Errorf("%s: %d bytes, over %d", module+".py", st.Size(), maxHookFileBytes)
	}
	b, err := fs.ReadFile(g.rc.fsys, file)
	if err != nil {
		return hooks.PortRef{}, err
	}
	sum := sha256.Sum256(b)
	return hooks.PortRef{Folder: dir, Module: module, Function: fn, SHA256: hex.EncodeToString(sum[:])}, nil
}

// portContext lets a port read files next to its Python file (bounded).
func (g *getter) portContext(ref hooks.PortRef) hooks.PortContext {
	return hooks.PortContext{Folder: ref.Folder, ReadFile: func(rel string) ([]byte, error) {
		file := path.Join(ref.Folder, rel)
		st, err := fs.Stat(g.rc.fsys, file)
		if err != nil {
			return nil, err
		}
		if st.Size() > maxHookFileBytes {
			return nil, fmt.Errorf("%s: %d bytes, over %d", rel, st.Size(), maxHookFileBytes)
		}
		return fs.ReadFile(g.rc.fsys, file)
	}}
}

type functionAt struct {
	path string
	f    pyFunction
}

// allFunctions lists every !function inside v with its key path.
func allFunctions(prefix string, v any) []functionAt {
	switch x := v.(type) {
	case pyFunction:
		return []functionAt{{prefix, x}}
	case map[string]any:
		var out []functionAt
		for _, k := range sortedKeys(x) {
			out = append(out, allFunctions(prefix+"."+k, x[k])...)
		}
		return out
	case []any:
		var out []functionAt
		for i, e := range x {
			out = append(out, allFunctions(fmt.Sprintf("%s[%d]", prefix, i), e)...)
		}
		return out
	}
	return nil
}

// docsPort is the process_docs hook of key path p, nil without one.
func (g *getter) docsPort(p string) *DocsHook {
	u, ok := g.ports[p]
	if !ok {
		return nil
	}
	return &DocsHook{Ref: u.Ref, port: u.Port}
}

// portRef is the reference of the port at key path p, nil without one.
func (g *getter) portRef(p string) *hooks.PortRef {
	u, ok := g.ports[p]
	if !ok {
		return nil
	}
	ref := u.Ref
	return &ref
}

// usedPorts lists the task's ports in key-path order, for `tasks` and the
// manifest.
func (g *getter) usedPorts() []hooks.PortRef {
	var out []hooks.PortRef
	for _, p := range sortedKeys(g.ports) {
		if !slices.Contains(out, g.ports[p].Ref) {
			out = append(out, g.ports[p].Ref)
		}
	}
	return out
}

// portTemplate is a doc_to_* whose value is a ported function.
func (g *getter) portTemplate(keyPath, key string) (*Template, bool) {
	u, ok := g.ports[keyPath]
	if !ok {
		return nil, false
	}
	ref := u.Ref
	return &Template{Key: key, Source: "!function " + ref.Module + "." + ref.Function, port: u.Port, Ref: &ref}, true
}
