package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"
)

// ManifestFile describes a run directory: what was run, on what, by which code.
const ManifestFile = "manifest.json"

// Manifest status values.
const (
	StatusRunning  = "running"
	StatusComplete = "complete"
)

// FileSum is one input file and its SHA-256.
type FileSum struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

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

// Provenance is what the caller knows about the inputs that eval cannot see.
type Provenance struct {
	Model    []FileSum `json:"model_files"`
	Datasets []FileSum `json:"dataset_files"`
	// DType is the dtype the engine computes in, and WeightDType what the file stores.
	DType       string `json:"dtype"`
	WeightDType string `json:"weight_dtype,omitempty"`
	// SamplerOrder is the order truncations apply in, e.g. "temperature, top_k, top_p, min_p".
	SamplerOrder string `json:"sampler_order"`
}

// CodeInfo identifies the binary that produced a run.
type CodeInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// ReadCodeInfo reads the module version and VCS stamp Go embeds in binaries.
func ReadCodeInfo() CodeInfo {
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

// SamplerInfo is one sampler as the run used it.
type SamplerInfo struct {
	Label string      `json:"label"`
	Spec  SamplerSpec `json:"spec"`
	// Description is the sampler's own account of every parameter in effect: its
	// JSON when Describe returns JSON, else a JSON string.
	Description json.RawMessage `json:"description"`
}

func describeJSON(desc string) json.RawMessage {
	if json.Valid([]byte(desc)) {
		return json.RawMessage(desc)
	}
	b, _ := json.Marshal(desc) // marshalling a string cannot fail
	return b
}

// Manifest is manifest.json.
type Manifest struct {
	Format int `json:"format"`
	// Fingerprint hashes everything that changes results (inputs, task, samplers,
	// seeds, limits) but not how work was scheduled (devices, batch size, shard).
	// Resume requires it to match; merge requires all shards to share it.
	Fingerprint      string        `json:"fingerprint"`
	Status           string        `json:"status"`
	Config           Config        `json:"config"`
	Code             CodeInfo      `json:"code"`
	Provenance       Provenance    `json:"provenance"`
	Backend          string        `json:"backend"`
	Devices          []string      `json:"devices"`
	BatchSize        int           `json:"batch_size"`
	Samplers         []SamplerInfo `json:"samplers"`
	FirstTokenArgmax bool          `json:"first_token_argmax"`
	Task             TaskSpec      `json:"task"`
	Problems         int           `json:"problems"`
	Shard            Shard         `json:"shard"`
	Jobs             []Job         `json:"jobs"`
	Started          time.Time     `json:"started"`
	Finished         *time.Time    `json:"finished,omitempty"`
	Stats            *RunStats     `json:"stats,omitempty"`
	MergedFrom       []string      `json:"merged_from,omitempty"`
}

// RunStats summarise where the time went, for tuning and the overhead benchmark.
type RunStats struct {
	WallSeconds     float64 `json:"wall_seconds"`
	EngineSeconds   float64 `json:"engine_seconds"`
	OutsideShare    float64 `json:"outside_engine_share"`
	GeneratedTokens int     `json:"generated_tokens"`
	ItemsThisRun    int     `json:"items_this_session"`
	ItemsResumed    int     `json:"items_from_journal"`
	PromptsCut      int     `json:"prompts_left_truncated"`
	// PromptTokens are the prompt tokens of the sequences this session started;
	// PrefillComputed those the engines computed, the rest coming from their prefix
	// caches in PrefixHits sequences.
	PromptTokens    int `json:"prompt_tokens"`
	PrefillComputed int `json:"prefill_tokens_computed"`
	PrefixHits      int `json:"prefix_cache_hits"`
}

// fingerprint hashes the result-defining part of a manifest.
func (m *Manifest) fingerprint() (string, error) {
	c := m.Config
	key := struct {
		Model, Datasets                           []FileSum
		Task                                      TaskSpec
		Dataset, Train, FewShot                   string
		Chat, FirstArgmax                         bool
		Limit, MaxNew, MaxSeqLen, Candidates, Pad int
		AttnMode                                  string
		Samplers                                  []SamplerInfo
		Seeds                                     []uint64
		Repeats, Problems                         int
		DType, Order                              string
	}{
		Model: stripPaths(m.Provenance.Model), Datasets: stripPaths(m.Provenance.Datasets), Task: m.Task,
		Train: c.TrainDataset, FewShot: c.FewShot, Chat: c.ChatTemplate, FirstArgmax: c.FirstTokenArgmax,
		Limit: c.Limit, MaxNew: c.MaxNewTokens, MaxSeqLen: c.MaxSeqLen, Candidates: c.Candidates, Pad: c.PadLen,
		AttnMode: c.AttnMode, Samplers: m.Samplers, Seeds: c.Seeds, Repeats: c.Repeats, Problems: m.Problems,
		DType: m.Provenance.DType, Order: m.Provenance.SamplerOrder,
	}
	b, err := json.Marshal(key)
	if err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16]), nil
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
	return writeJSONAtomic(filepath.Join(dir, ManifestFile), m)
}
