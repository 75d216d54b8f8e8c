package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// Backends start the engines a Config.Backend names and the interpreter a
// Config.PythonHooks asks for. Package eval links none of them: package
// backends holds the CPU and CUDA engines and the Python bridge.
type Backends interface {
	// Opener starts one worker's engine of the named backend on its device.
	Opener(backend string, model *engine.Model, opts engine.Options) (EngineOpener, error)
	// MaxSlots is the most sequences of opts.MaxSeqLen that fit in memory, at
	// most limit, for Sizing.AutoBatch; an error where the backend cannot tell
	// before its device is open.
	MaxSlots(backend string, model *engine.Model, opts engine.Options, limit int) (int, error)
	// Python starts the interpreter python names (Config.Python) for a task's
	// Python hooks: runner serves them, interp describes the interpreter for
	// the manifest, stop ends it.
	Python(ctx context.Context, python string) (runner datasets.PythonRunner, interp string, stop func(), err error)
}

// Sizing is what Open can only size once the model and data are loaded.
type Sizing struct {
	// AutoBatch takes the most sequences that fit in memory, at most
	// MaxAutoBatch, as the batch size (lm-eval's --batch_size auto).
	AutoBatch bool
	// LimitFraction keeps that fraction of the problems, rounded up, as
	// lm-eval's --limit 0.1 does; 0 leaves Config.Limit in charge.
	LimitFraction float64
}

// MaxAutoBatch caps Sizing.AutoBatch, as lm-eval's --max_batch_size default.
const MaxAutoBatch = 64

// applyLimit cuts the problems to the limit fraction (rounded up, as lm-eval)
// and returns the count as the config's limit, so the manifest records it.
func (sz Sizing) applyLimit(in TaskInputs, limit int) (TaskInputs, int) {
	if sz.LimitFraction <= 0 {
		return in, limit
	}
	n := int(math.Ceil(float64(len(in.Problems)) * sz.LimitFraction))
	in.Problems = in.Problems[:n]
	return in, n
}

// Open loads the model, tokenizer, data and samplers a sweep names, settles
// everything that changes its results (the sequence length the model allows,
// the task's repeats, the ids that end a sequence, the engine options, the
// provenance and dtypes the fingerprint hashes), and checks all that can be
// checked before the run directory is created: token ids against the
// vocabulary, the engine's memory budget, one finite forward pass. The Runner
// it returns runs the sweep; the func releases the model and the pre-flight
// engine once the run is over.
func Open(ctx context.Context, cfg Config, backends Backends, sz Sizing) (*Runner, func(), error) {
	model, err := engine.Load(cfg.Model)
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := model.Close(); err != nil {
			slog.Warn("close model", "err", err)
		}
	}
	fail := func(err error) (*Runner, func(), error) { cleanup(); return nil, nil, err }
	if cfg.Tokenizer != "" {
		if model.TokenizerPath, err = tokenizerFile(cfg.Tokenizer); err != nil {
			return fail(err)
		}
	}
	if model.TokenizerPath == "" {
		return fail(fmt.Errorf("%w: model %s has no tokenizer.json; run needs one to build prompts (name one with --tokenizer DIR|ORG/NAME or --model_args tokenizer=…)", usage.Err, cfg.Model))
	}
	if mp := model.Config.MaxPositions; mp > 0 && cfg.MaxSeqLen > mp {
		// As lm-eval does, a sequence never outgrows the model's trained positions.
		slog.Warn("max_seq_len above the model's max_position_embeddings; using the latter", "max_seq_len", cfg.MaxSeqLen, "max_positions", mp)
		cfg.MaxSeqLen = mp
	}
	tok, err := tokenizer.Load(model.TokenizerPath)
	if err != nil {
		return fail(err)
	}
	stopPython, interp, err := StartPython(ctx, backends, &cfg)
	if err != nil {
		return fail(err)
	}
	closeAll := cleanup
	cleanup = func() { stopPython(); closeAll() }
	task, err := ResolveTask(cfg)
	if err != nil {
		return fail(err)
	}
	if task.Repeats > 1 && cfg.Repeats == 1 {
		// lm-eval's repeats (self-consistency): the filters see a doc's
		// responses together, so the sweep runs that many repeats.
		slog.Info("task repeats responses per doc; running that many repeats", "task", task.Name, "repeats", task.Repeats)
		cfg.Repeats = task.Repeats
	}
	inputs, err := LoadTaskInputs(cfg, task, DataSourceOf(cfg, task, engine.HFCacheDirs()), tok)
	if err != nil {
		return fail(err)
	}
	outputs := PythonOutputs(cfg, task)
	if !task.GradesInPython() {
		stopPython() // the prompts are built: the hooks have run
	}
	inputs, cfg.Limit = sz.applyLimit(inputs, cfg.Limit)
	resolve := NewSamplerResolver(TokenTextLookup(tok), TokenIDText(tok))
	samplers := make([]SamplerFactory, len(cfg.Samplers))
	for i, s := range cfg.Samplers {
		if samplers[i], err = resolve(s); err != nil {
			if errors.Is(err, sampler.ErrNoClarifyingToken) {
				err = fmt.Errorf("%w: %w. %s", usage.Err, err, clarifyingCandidates(tok, s))
			}
			return fail(fmt.Errorf("samplers[%d]: %w", i, err))
		}
	}
	if err := checkVocab(cfg, model, tok, samplers); err != nil {
		return fail(err)
	}
	prov, err := provenance(cfg, model, inputs.Files, samplers)
	if err != nil {
		return fail(err)
	}
	prov.Python = interp
	if cfg.ChatTemplate {
		if chat, err := tok.ChatTemplate(); err == nil {
			prov.ChatTemplate = chat.Source()
		}
	}
	eos := append([]int32(nil), model.Config.EOS...)
	if _, id, ok := tok.EOS(); ok {
		eos = append(eos, id)
	}
	attnMode, err := metrics.ParseAttnMode(cfg.AttnMode)
	if err != nil {
		return fail(err)
	}
	threads := cfg.Threads
	if threads == 0 {
		threads = max(1, runtime.GOMAXPROCS(0)/len(cfg.Devices))
	}
	// More slots than items would only reserve memory no sequence uses.
	if items := ItemCount(cfg, len(inputs.Problems)); cfg.BatchSize > items {
		cfg.BatchSize = max(items, 1)
	}
	opts := engine.Options{
		Slots: cfg.BatchSize, MaxSeqLen: cfg.MaxSeqLen, TopK: cfg.Candidates, AttnMode: attnMode,
		PadLen: cfg.PadLen, MetricLayer: -1, PrefillChunk: cfg.PrefillChunk, Threads: threads,
		PrefixCacheBytes: int64(cfg.PrefixCacheMB) << 20, MatmulPrecision: engine.MatmulPrecision(cfg.MatmulPrecision),
	}
	if cfg.NoPrefixCache {
		opts.PrefixCacheBytes = -1
	}
	if sz.AutoBatch {
		if opts.Slots, err = backends.MaxSlots(cfg.Backend, model, opts, MaxAutoBatch); err != nil {
			return fail(err)
		}
		opts.Slots = min(opts.Slots, max(ItemCount(cfg, len(inputs.Problems)), 1))
		cfg.BatchSize = opts.Slots
		slog.Info("batch size auto: the most sequences that fit in memory", "batch_size", cfg.BatchSize)
	}
	open, err := backends.Opener(cfg.Backend, model, opts)
	if err != nil {
		return fail(err)
	}
	first := int32(0)
	if _, id, ok := tok.BOS(); ok {
		first = id
	}
	open, release, err := preflightEngine(ctx, open, cfg.Devices[0], first)
	if err != nil {
		return fail(err)
	}
	closeModel := cleanup
	cleanup = func() { release(); closeModel() }
	return &Runner{
		Config: cfg, Task: inputs.Task, Problems: inputs.Problems,
		Tokenizer:  TokenizerAdapter{T: tok, AddSpecial: !cfg.ChatTemplate},
		Samplers:   samplers,
		OpenEngine: open,
		EOS:        eos, Provenance: prov,
		Outputs: outputs,
	}, cleanup, nil
}
