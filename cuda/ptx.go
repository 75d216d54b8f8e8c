package cuda

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
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
	"attention":   {"attention_cached", "attention_combine"},
	"attnstats":   {"attn_head_stats", "attn_agreement", "attn_agreement_finish"},
	"logits":      {"logit_stats_part", "logit_stats_finish", "topk_select"},
}

var (
	ptxEntryRE   = regexp.MustCompile(`(?m)^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\(`)
	ptxTargetRE  = regexp.MustCompile(`(?m)^\s*\.target\s+(sm_\d+)`)
	ptxVersionRE = regexp.MustCompile(`(?m)^\s*\.version\s+(\d+\.\d+)`)
	// A kernel's parameter list holds no parenthesis, so [^)]* cannot run into the
	// next entry.
	ptxMaxNTIDRE = regexp.MustCompile(`\.entry\s+([A-Za-z_][A-Za-z0-9_$]*)\s*\([^)]*\)\s*\.maxntid\s+(\d+)`)
)

// ptxModule is one embedded PTX text and what it declares.
type ptxModule struct {
	Name    string
	Text    string
	Target  string   // e.g. sm_80: the oldest GPU generation it runs on
	Version string   // the PTX ISA version, e.g. 7.8: the driver must know it
	Entries []string // .entry names, sorted
	// MaxThreads is each entry's .maxntid (its __launch_bounds__); entries without
	// one are absent.
	MaxThreads map[string]int
}

// parsePTX reads the entry points and target of a PTX text.
func parsePTX(name, text string) (ptxModule, error) {
	m := ptxModule{Name: name, Text: text}
	t := ptxTargetRE.FindStringSubmatch(text)
	if t == nil {
		return m, fmt.Errorf("ptx %s: no .target line", name)
	}
	m.Target = t[1]
	if v := ptxVersionRE.FindStringSubmatch(text); v != nil {
		m.Version = v[1]
	}
	m.MaxThreads = map[string]int{}
	for _, e := range ptxMaxNTIDRE.FindAllStringSubmatch(text, -1) {
		n, err := strconv.Atoi(e[2])
		if err != nil {
			return m, fmt.Errorf("ptx %s: entry %s: .maxntid %q: %w", name, e[1], e[2], err)
		}
		m.MaxThreads[e[1]] = n
	}
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

// jitLogBytes sizes the buffer for the driver JIT's error log; its messages run to a
// few lines per failing kernel.
const jitLogBytes = 16 << 10

// jitError is a failed PTX load, with what the module declares and the JIT's error
// log (the NUL-terminated text the driver wrote into log, if any).
func jitError(m ptxModule, err error, log []byte) error {
	msg := log
	if i := bytes.IndexByte(msg, 0); i >= 0 {
		msg = msg[:i]
	}
	text := strings.TrimSpace(string(msg))
	if text == "" {
		text = "(the driver wrote no JIT log)"
	}
	return fmt.Errorf("loading PTX module %s (.version %s, .target %s): %w; JIT log: %s", m.Name, m.Version, m.Target, err, text)
}
