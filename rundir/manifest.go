package rundir

import (
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/entropix-eval/entropix-eval/reports"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// Manifest is manifest.json.
type Manifest struct {
	Format int `json:"format"`
	// Fingerprint hashes everything that changes results (inputs, task, samplers,
	// seeds, limits) but not how work was scheduled (devices, batch size, shard).
	// Resume requires it to match; merge requires all shards to share it.
	Fingerprint string `json:"fingerprint"`
	// RunKey names this run across sweeps: Key(), written with every
	// manifest. Every Arrow row of the run carries it in its run_key column.
	RunKey     string     `json:"run_key"`
	Status     string     `json:"status"`
	Config     Config     `json:"config"`
	Code       CodeInfo   `json:"code"`
	Provenance Provenance `json:"provenance"`
	Backend    string     `json:"backend"`
	Devices    []string   `json:"devices"`
	// DeviceNames are the devices' own names as the engines report them (the GPU's
	// model name), one per worker; absent for the CPU backend.
	DeviceNames      []string      `json:"device_names,omitempty"`
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
	// SequencesDecoded are the sequences the engines decoded this session, and
	// SequencesRecorded the items written: a deterministic sampler's (greedy's)
	// other seeds and repeats are recorded from one decoded sequence.
	SequencesDecoded  int `json:"sequences_decoded"`
	SequencesRecorded int `json:"sequences_recorded"`
	ItemsResumed      int `json:"items_from_journal"`
	PromptsCut        int `json:"prompts_left_truncated"`
	// PromptTokens are the prompt tokens of the sequences this session started;
	// PrefillComputed those the engines computed, the rest coming from their prefix
	// caches in PrefixHits sequences.
	PromptTokens    int `json:"prompt_tokens"`
	PrefillComputed int `json:"prefill_tokens_computed"`
	PrefixHits      int `json:"prefix_cache_hits"`
}

// FileSum is one input file and its SHA-256.
type FileSum struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
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
	// ChatTemplate is the chat template's Jinja source when one was applied
	// (lm-eval records it as chat_template).
	ChatTemplate string `json:"chat_template,omitempty"`
	// Python is the interpreter that ran the task's Python hooks (path and
	// version; --python-hooks).
	Python string `json:"python,omitempty"`
}

// CodeInfo identifies the binary that produced a run.
type CodeInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

// SamplerInfo is one sampler as the run used it.
type SamplerInfo struct {
	Label string       `json:"label"`
	Spec  sampler.Spec `json:"spec"`
	// Description is the sampler's own account of every parameter in effect: its
	// JSON when Describe returns JSON, else a JSON string.
	Description json.RawMessage `json:"description"`
}

// Key is the run key: the sweep fingerprint and the run's start time,
// "<fingerprint>@<started, RFC 3339>". Two runs of one sweep differ in start
// time, two sweeps in fingerprint; a resumed run keeps its start, a merge
// starts a new run.
func (m *Manifest) Key() string {
	return m.Fingerprint + "@" + m.Started.UTC().Format(time.RFC3339Nano)
}

// ArrowProvenance is what the run's Arrow files carry in their schema
// metadata.
func (m *Manifest) ArrowProvenance() reports.Provenance {
	hashed := func(sums []FileSum) []reports.HashedFile {
		out := make([]reports.HashedFile, len(sums))
		for i, s := range sums {
			out[i] = reports.HashedFile{Name: filepath.Base(s.Path), SHA256: s.SHA256}
		}
		return out
	}
	return reports.Provenance{
		RunKey: m.Key(), SweepFingerprint: m.Fingerprint,
		ModelSHA256:   reports.CombineSHA256(hashed(m.Provenance.Model)),
		DatasetSHA256: reports.CombineSHA256(hashed(m.Provenance.Datasets)),
		CodeRevision:  reports.CodeRevision(m.Code.Revision, m.Code.Modified),
	}
}
