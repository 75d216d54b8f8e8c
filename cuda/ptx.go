package cuda

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
)

// The PTX is generated from *.cu by `make ptx` and committed, so building this package
// needs no nvcc; the driver JIT-compiles it for the GPU it finds (compute_80 PTX runs
// on A100, H100 and later).
//
//go:embed ptx/*.ptx
var ptxFiles embed.FS

// kernelModules maps each PTX module to the entry points the engine launches from it.
// A missing entry (a stale or hand-edited PTX) fails at New with its name, not at the
// first launch.
var kernelModules = map[string][]string{
	"elementwise": {"embed_rows", "rmsnorm_bf16", "silu_mul", "add_bias"},
	"rope":        {"qkv_rope_cache"},
	"attention":   {"attention_cached"},
	"attnstats":   {"attn_stats"},
	"logits":      {"logit_stats", "topk_chunks"},
}

var (
	ptxEntryRE  = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\(`)
	ptxTargetRE = regexp.MustCompile(`(?m)^\s*\.target\s+(sm_\d+)`)
)

// ptxModule is one embedded PTX text and what it declares.
type ptxModule struct {
	Name    string
	Text    string
	Target  string   // e.g. sm_80: the oldest GPU generation it runs on
	Entries []string // .entry names, sorted
}

// parsePTX reads the entry points and target of a PTX text.
func parsePTX(name, text string) (ptxModule, error) {
	m := ptxModule{Name: name, Text: text}
	t := ptxTargetRE.FindStringSubmatch(text)
	if t == nil {
		return m, fmt.Errorf("ptx %s: no .target line", name)
	}
	m.Target = t[1]
	for _, e := range ptxEntryRE.FindAllStringSubmatch(text, -1) {
		m.Entries = append(m.Entries, e[1])
	}
	sort.Strings(m.Entries)
	return m, nil
}

// loadPTX returns every module in kernelModules from the embedded files, checking
// that each declares the entry points the engine needs.
func loadPTX(files fs.FS) ([]ptxModule, error) {
	names := make([]string, 0, len(kernelModules))
	for n := range kernelModules {
		names = append(names, n)
	}
	sort.Strings(names)
	var mods []ptxModule
	for _, n := range names {
		b, err := fs.ReadFile(files, "ptx/"+n+".ptx")
		if err != nil {
			return nil, fmt.Errorf("ptx %s: %w (run `make ptx`)", n, err)
		}
		m, err := parsePTX(n, string(b))
		if err != nil {
			return nil, err
		}
		for _, want := range kernelModules[n] {
			if !slices.Contains(m.Entries, want) {
				return nil, fmt.Errorf("ptx %s: entry point %q missing (has %v); run `make ptx`", n, want, m.Entries)
			}
		}
		mods = append(mods, m)
	}
	return mods, nil
}
