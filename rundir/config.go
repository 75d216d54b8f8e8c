package rundir

import (
	"errors"
	"fmt"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// Config is a sweep: what to evaluate, how, and where the run directory goes. It is
// read from YAML (unknown fields are errors) and overridden by command-line flags.
type Config struct {
	Name  string `yaml:"name" json:"name,omitempty"`
	Model string `yaml:"model" json:"model"`
	// Models and Tasks make the sweep a matrix (IsMatrix): each model × task
	// runs into out/<model>/<task> as the sweep with that one model and task
	// would. A run's manifest records its own model and task, never the lists.
	Models []string `yaml:"models" json:"-"`
	// Tokenizer is a directory (or tokenizer.json) whose tokenizer.json and
	// tokenizer_config.json replace the model's (lm-eval's model_args tokenizer=);
	// empty: the model's own.
	Tokenizer string   `yaml:"tokenizer" json:"tokenizer,omitempty"`
	Backend   string   `yaml:"backend" json:"backend"`
	Devices   []string `yaml:"devices" json:"devices"`
	// Threads per worker on the CPU backend; 0 splits the machine's cores evenly.
	Threads      int `yaml:"threads" json:"threads,omitempty"`
	BatchSize    int `yaml:"batch_size" json:"batch_size"`
	MaxSeqLen    int `yaml:"max_seq_len" json:"max_seq_len"`
	PrefillChunk int `yaml:"prefill_chunk" json:"prefill_chunk"`
	// PrefixCacheMB bounds the memory each engine keeps computed prompt prefixes in
	// for reuse (0: the engine's default); NoPrefixCache turns the reuse off. Neither
	// changes a result, so neither is part of the run's fingerprint.
	PrefixCacheMB int  `yaml:"prefix_cache_mb" json:"prefix_cache_mb,omitempty"`
	NoPrefixCache bool `yaml:"no_prefix_cache" json:"no_prefix_cache,omitempty"`
	// NoParquet leaves out the Parquet copies of the run's Arrow files (written
	// by default, for DuckDB and pandas); not part of the fingerprint.
	NoParquet bool `yaml:"no_parquet" json:"no_parquet,omitempty"`
	// MatmulPrecision is the engine's weight-matmul precision, fp32 (the default)
	// or bf16 (engine.MatmulPrecision): bf16 changes results, so it is part of the
	// fingerprint.
	MatmulPrecision string `yaml:"matmul_precision" json:"matmul_precision"`
	// Candidates is the engine's top-K candidate count per step (0: whole vocabulary).
	Candidates int `yaml:"candidates" json:"candidates"`
	// AttnMode and PadLen are the attention view of samplers without one of their
	// own (the baselines: it only fills their trace columns). Every Entropix variant
	// reads its own view (sampler fields attn_mode, pad_len), whatever this says.
	AttnMode string `yaml:"attn_mode" json:"attn_mode"`
	PadLen   int    `yaml:"pad_len" json:"pad_len,omitempty"`

	// Task is a task name (built-in or under an include path) or a task YAML file.
	Task  string   `yaml:"task" json:"task"`
	Tasks []string `yaml:"tasks" json:"-"`
	// IncludePaths are directories of lm-eval task YAML (lm-eval's --include_path).
	IncludePaths []string `yaml:"include_path" json:"include_path,omitempty"`
	// PythonHooks runs the task's `!function` hooks that have no Go port in
	// the Python interpreter Python names (docs/python-hooks.md); only the
	// prompt side (process_docs, doc_to_text, doc_to_target) is wired into a
	// run. PythonRunner is that interpreter while the task is prepared.
	PythonHooks  bool                  `yaml:"python_hooks" json:"python_hooks,omitempty"`
	Python       string                `yaml:"python" json:"python,omitempty"`
	PythonRunner datasets.PythonRunner `yaml:"-" json:"-"`
	// Dataset is the evaluated split's file or glob; empty: the task's
	// dataset_path found in --data-dir mirrors or the Hugging Face caches.
	Dataset string `yaml:"dataset" json:"dataset"`
	// TrainDataset is the few-shot split's file or glob (tasks with random shots).
	TrainDataset string `yaml:"train_dataset" json:"train_dataset,omitempty"`
	// DataDirs are local mirrors laid out like the hub (DIR/<dataset_path>/<dataset_name>/<split>-*.parquet).
	DataDirs []string `yaml:"data_dir" json:"data_dir,omitempty"`
	// NumFewshot overrides the task's num_fewshot (lm-eval's --num_fewshot).
	NumFewshot *int `yaml:"num_fewshot" json:"num_fewshot,omitempty"`
	// SystemInstruction opens every prompt (a system turn with a chat template),
	// as lm-eval's --system_instruction.
	SystemInstruction string `yaml:"system_instruction" json:"system_instruction,omitempty"`
	// FewShot is no longer read: tasks carry their exemplars (fewshot_config.samples).
	// It is kept so an old sweep file gets a clear error instead of "unknown field".
	FewShot      string `yaml:"fewshot" json:"fewshot,omitempty"`
	ChatTemplate bool   `yaml:"chat_template" json:"chat_template,omitempty"`
	// FewshotAsMultiturn puts each shot in its own user/assistant turn pair, as
	// lm-eval >= v0.4.10 does by default with --apply_chat_template; false puts
	// every shot in the first user turn. Unset: true with a chat template.
	FewshotAsMultiturn *bool `yaml:"fewshot_as_multiturn" json:"fewshot_as_multiturn,omitempty"`
	Limit              int   `yaml:"limit" json:"limit,omitempty"`
	// MaxNewTokens overrides the task's default generation budget when > 0.
	MaxNewTokens int `yaml:"max_new_tokens" json:"max_new_tokens,omitempty"`
	// FirstTokenArgmax takes the argmax of the prefill logits as the first token, as
	// the original Entropix loop did; reports must say so, hence the manifest field.
	FirstTokenArgmax bool `yaml:"first_token_argmax" json:"first_token_argmax"`

	Samplers []sampler.Spec `yaml:"samplers" json:"samplers"`
	Seeds    []uint64       `yaml:"seeds" json:"seeds"`
	Repeats  int            `yaml:"repeats" json:"repeats"`
	Shard    string         `yaml:"shard" json:"shard,omitempty"`
	Out      string         `yaml:"out" json:"out"`

	// PrimaryFilter is the filter whose comparisons form the report's Holm
	// family and lead its page (default: the task's first filter).
	PrimaryFilter string `yaml:"primary_filter" json:"primary_filter,omitempty"`
}

// IsMatrix says whether the sweep lists models or tasks: each model × task then
// runs into its own directory under Out.
func (c Config) IsMatrix() bool { return len(c.Models) > 0 || len(c.Tasks) > 0 }

// Defaults for fields a sweep may leave out.
const (
	DefaultBackend   = "cpu"
	DefaultBatchSize = 8
	DefaultMaxSeqLen = 2048
	DefaultChunk     = 256
)

// MaxJobs bounds samplers × seeds × repeats (manifest.json lists each job), so an
// absurd sweep (--repeats 1000000000) is refused before anything is evaluated.
const MaxJobs = 100_000

// JobCount is samplers × seeds × repeats, in arithmetic that cannot overflow.
func JobCount(c Config) float64 {
	return float64(len(c.Samplers)) * float64(len(c.Seeds)) * float64(c.Repeats)
}

// jobsBeyondBound refuses more than MaxJobs jobs.
func jobsBeyondBound(c Config) error {
	if jobs := JobCount(c); jobs > MaxJobs {
		return usage.Errorf("samplers × seeds × repeats = %d × %d × %d = %.0f jobs, more than the %d one run directory holds; split the sweep",
			len(c.Samplers), len(c.Seeds), c.Repeats, jobs, MaxJobs)
	}
	return nil
}

// WithDefaults fills the fields a sweep may leave out.
func (c Config) WithDefaults() Config {
	if c.Backend == "" {
		c.Backend = DefaultBackend
	}
	if len(c.Devices) == 0 {
		c.Devices = []string{c.Backend}
	}
	if c.BatchSize == 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.MaxSeqLen == 0 {
		c.MaxSeqLen = DefaultMaxSeqLen
	}
	if c.PrefillChunk == 0 {
		c.PrefillChunk = DefaultChunk
	}
	if c.AttnMode == "" {
		c.AttnMode = "masked"
	}
	if c.MatmulPrecision == "" {
		c.MatmulPrecision = string(engine.MatmulFP32)
	}
	if c.FewshotAsMultiturn == nil && c.ChatTemplate {
		on := true
		c.FewshotAsMultiturn = &on
	}
	if len(c.Seeds) == 0 {
		c.Seeds = []uint64{0}
	}
	if c.Repeats == 0 {
		c.Repeats = 1
	}
	return c
}

// Validate reports every problem of the config at once, each naming its
// field, as a usage error.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.Model == "" {
		bad("model", "required (a Hugging Face model directory)")
	}
	if c.Task == "" {
		bad("task", "required (e.g. gsm8k_cot)")
	}
	if c.FewShot != "" {
		bad("fewshot", "no longer used: tasks carry their few-shot exemplars in their YAML (fewshot_config.samples); remove it")
	}
	if c.NumFewshot != nil && *c.NumFewshot < 0 {
		bad("num_fewshot", "%d is negative", *c.NumFewshot)
	}
	if c.Out == "" {
		bad("out", "required (the run directory)")
	}
	switch c.Backend {
	case "cpu", "cuda":
	default:
		bad("backend", "%q: want cpu or cuda", c.Backend)
	}
	for i, d := range c.Devices {
		if d != c.Backend && !strings.HasPrefix(d, c.Backend+":") {
			bad(fmt.Sprintf("devices[%d]", i), "%q does not belong to backend %s (want %s or %s:N)", d, c.Backend, c.Backend, c.Backend)
		}
	}
	if c.Threads < 0 {
		bad("threads", "%d is negative", c.Threads)
	}
	if c.BatchSize < 1 {
		bad("batch_size", "%d: want at least 1", c.BatchSize)
	}
	if c.MaxSeqLen < 2 {
		bad("max_seq_len", "%d: want at least 2", c.MaxSeqLen)
	}
	if c.PrefixCacheMB < 0 {
		bad("prefix_cache_mb", "%d is negative", c.PrefixCacheMB)
	}
	if c.PrefillChunk < 1 {
		bad("prefill_chunk", "%d: want at least 1", c.PrefillChunk)
	}
	if _, err := engine.ParseMatmulPrecision(c.MatmulPrecision); err != nil {
		bad("matmul_precision", "%q: want fp32 or bf16", c.MatmulPrecision)
	}
	if c.Candidates < 0 {
		bad("candidates", "%d is negative (0 means the whole vocabulary)", c.Candidates)
	}
	switch c.AttnMode {
	case "masked", "padded", "faithful":
	default:
		bad("attn_mode", "%q: want masked or padded", c.AttnMode)
	}
	if c.PadLen < 0 || (c.AttnMode != "masked" && c.PadLen > 0 && c.PadLen < c.MaxSeqLen) {
		bad("pad_len", "%d: want 0 or at least max_seq_len (%d)", c.PadLen, c.MaxSeqLen)
	}
	if c.FewshotAsMultiturn != nil && *c.FewshotAsMultiturn && !c.ChatTemplate {
		bad("fewshot_as_multiturn", "needs chat_template: true (as lm-eval's --fewshot_as_multiturn needs --apply_chat_template)")
	}
	if c.Limit < 0 {
		bad("limit", "%d is negative", c.Limit)
	}
	if c.MaxNewTokens < 0 {
		bad("max_new_tokens", "%d is negative", c.MaxNewTokens)
	}
	if c.MaxNewTokens >= c.MaxSeqLen && c.MaxSeqLen > 0 {
		bad("max_new_tokens", "%d leaves no room for the prompt in max_seq_len %d", c.MaxNewTokens, c.MaxSeqLen)
	}
	if len(c.Samplers) == 0 {
		bad("samplers", "at least one sampler is required")
	}
	labels := map[string]int{}
	for i, s := range c.Samplers {
		if s.Name == "" {
			bad(fmt.Sprintf("samplers[%d]", i), "no name")
			continue
		}
		l := s.DisplayLabel()
		if j, dup := labels[l]; dup {
			bad(fmt.Sprintf("samplers[%d]", i), "same label %q as samplers[%d]; give one a label", l, j)
		}
		labels[l] = i
	}
	seen := map[uint64]bool{}
	for i, s := range c.Seeds {
		if seen[s] {
			bad(fmt.Sprintf("seeds[%d]", i), "seed %d is listed twice", s)
		}
		seen[s] = true
	}
	if c.Repeats < 1 {
		bad("repeats", "%d: want at least 1", c.Repeats)
	} else if err := jobsBeyondBound(c); err != nil {
		bad("repeats", "%v", err)
	}
	if c.Shard != "" {
		if _, err := ParseShard(c.Shard); err != nil {
			bad("shard", "%v", err)
		}
	}
	return usage.Wrap(errors.Join(errs...)) // the sweep is at fault, however it was given
}
