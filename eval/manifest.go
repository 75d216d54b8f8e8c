package eval

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/entropix-eval/entropix-eval/engine"
)

// ChecksumFiles hashes each file, so a manifest pins the exact model and data.
func ChecksumFiles(paths []string) ([]FileSum, error) {
	sums := make([]FileSum, 0, len(paths))
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("checksum: %w", err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("checksum %s: %w", p, err)
		}
		sums = append(sums, FileSum{Path: p, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return sums, nil
}

// buildRevision and buildModified are set by `make build` (-ldflags -X) from git,
// for builds where Go's own VCS stamp is missing (GOFLAGS=-buildvcs=false, go run,
// a checkout Go cannot read).
var buildRevision, buildModified string

// ReadCodeInfo reads the module version and VCS stamp Go embeds in binaries, or the
// revision the Makefile stamped.
func ReadCodeInfo() CodeInfo {
	ci := readBuildInfo()
	if ci.Revision == "" && buildRevision != "" {
		ci.Revision, ci.Modified = buildRevision, buildModified == "true"
	}
	return ci
}

func readBuildInfo() CodeInfo {
	ci := CodeInfo{GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ci
	}
	ci.Module, ci.Version = bi.Main.Path, bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			ci.Revision = s.Value
		case "vcs.modified":
			ci.Modified = s.Value == "true"
		}
	}
	return ci
}

func describeJSON(desc string) json.RawMessage {
	if json.Valid([]byte(desc)) {
		return json.RawMessage(desc)
	}
	b, _ := json.Marshal(desc) // marshalling a string cannot fail
	return b
}

// fingerprintField is one result-defining part of a manifest, by name.
type fingerprintField struct {
	Name  string
	Value any
}

// unlessDefault is a field value hashed only when it is not def: a field added
// after runs were written leaves their fingerprints (and so resume) as they were.
type unlessDefault struct{ value, def any }

func (u unlessDefault) MarshalJSON() ([]byte, error) { return json.Marshal(u.value) }

// matmulPrecision is c's precision, fp32 for runs written before the option.
func matmulPrecision(c Config) string {
	if c.MatmulPrecision == "" {
		return string(engine.MatmulFP32)
	}
	return c.MatmulPrecision
}

// fingerprintFields are the parts of a manifest that change results: inputs by
// content (file names and hashes, never their directories, so a moved model or
// few-shot directory is the same run), task, samplers, seeds and limits. How the
// work was scheduled (devices, batch size, shard, paths) is not among them. Adding
// a field is one line here.
func fingerprintFields(m *Manifest) []fingerprintField {
	c := m.Config
	return []fingerprintField{
		{"model files", stripPaths(m.Provenance.Model)},
		{"dataset and few-shot files", stripPaths(m.Provenance.Datasets)},
		{"task", m.Task},
		{"chat_template", c.ChatTemplate},
		{"first_token_argmax", c.FirstTokenArgmax},
		{"limit", c.Limit},
		{"max_new_tokens", c.MaxNewTokens},
		{"max_seq_len", c.MaxSeqLen},
		{"candidates", c.Candidates},
		{"pad_len", c.PadLen},
		{"attn_mode", c.AttnMode},
		{"samplers", m.Samplers},
		{"seeds", c.Seeds},
		{"repeats", c.Repeats},
		{"problems", m.Problems},
		{"dtype", m.Provenance.DType},
		{"sampler order", m.Provenance.SamplerOrder},
		{"backend", m.Backend},
		{"fewshot_as_multiturn", c.FewshotAsMultiturn},
		{"system_instruction", c.SystemInstruction},
		{"matmul_precision", unlessDefault{matmulPrecision(c), string(engine.MatmulFP32)}},
		{"python", unlessDefault{m.Provenance.Python, ""}},
	}
}

// fingerprint hashes the result-defining fields of a manifest.
func fingerprint(m *Manifest) (string, error) {
	h := sha256.New()
	for _, f := range fingerprintFields(m) {
		if u, ok := f.Value.(unlessDefault); ok && u.value == u.def {
			continue
		}
		b, err := json.Marshal(f.Value)
		if err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", f.Name, err)
		}
		fmt.Fprintf(h, "%s=%s\n", f.Name, b)
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// fingerprintDiff lists every result-defining field that differs between an old
// and a new manifest, as "name: old → new"; empty when they describe the same run.
func fingerprintDiff(old, cur *Manifest) []string {
	of, nf := fingerprintFields(old), fingerprintFields(cur)
	var diffs []string
	for i := range nf {
		ob, _ := json.Marshal(of[i].Value) // both marshalled once already by fingerprint
		nb, _ := json.Marshal(nf[i].Value)
		if bytes.Equal(ob, nb) {
			continue
		}
		if ofs, ok := of[i].Value.([]FileSum); ok {
			diffs = append(diffs, nf[i].Name+": "+fileSumsDiff(ofs, nf[i].Value.([]FileSum)))
			continue
		}
		if nf[i].Name == "max_new_tokens" {
			diffs = append(diffs, fmt.Sprintf("max_new_tokens: %s → %s", effectiveMaxNew(old), effectiveMaxNew(cur)))
			continue
		}
		diffs = append(diffs, valueDiffs(nf[i].Name, ob, nb)...)
	}
	return diffs
}

// fileSumsDiff names the files whose content differs, or that one side lacks.
func fileSumsDiff(old, cur []FileSum) string {
	byName := func(fs []FileSum) map[string]FileSum {
		m := make(map[string]FileSum, len(fs))
		for _, f := range fs {
			m[f.Path] = f
		}
		return m
	}
	om, nm := byName(old), byName(cur)
	var parts []string
	for _, f := range old {
		n, ok := nm[f.Path]
		switch {
		case !ok:
			parts = append(parts, f.Path+" sha256 "+short(f.SHA256)+" → (none)")
		case n.SHA256 != f.SHA256:
			parts = append(parts, f.Path+" sha256 "+short(f.SHA256)+" → "+short(n.SHA256))
		}
	}
	for _, f := range cur {
		if _, ok := om[f.Path]; !ok {
			parts = append(parts, f.Path+" (none) → sha256 "+short(f.SHA256))
		}
	}
	if len(parts) == 0 {
		return "same files in another order"
	}
	return strings.Join(parts, ", ")
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12] + "…"
	}
	return hash
}

// stripPaths keeps names and hashes only: the same model under another mount point
// is the same model.
func stripPaths(sums []FileSum) []FileSum {
	out := make([]FileSum, len(sums))
	for i, s := range sums {
		out[i] = FileSum{Path: filepath.Base(s.Path), Bytes: s.Bytes, SHA256: s.SHA256}
	}
	return out
}

// ReadManifest loads a run directory's manifest.
func ReadManifest(dir string) (*Manifest, error) {
	var m Manifest
	if err := readJSON(filepath.Join(dir, ManifestFile), &m); err != nil {
		return nil, fmt.Errorf("run directory %s: %w", dir, err)
	}
	return &m, nil
}

func writeManifest(dir string, m *Manifest) error {
	m.RunKey = m.Key()
	return writeJSONAtomic(filepath.Join(dir, ManifestFile), m)
}
