package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/sampler"
	"github.com/entropix-eval/entropix-eval/sampler/metrics"
)

// wireRunner loads the model, tokenizer, data and samplers a sweep names, and
// checks all that can be checked before the run directory is created: token ids
// against the vocabulary, the engine's memory budget, one finite forward pass.
func wireRunner(ctx context.Context, cfg eval.Config, sz runSizing) (*eval.Runner, func(), error) {
	model, err := engine.Load(cfg.Model)
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := model.Close(); err != nil {
			slog.Warn("close model", "err", err)
		}
	}
	fail := func(err error) (*eval.Runner, func(), error) { cleanup(); return nil, nil, err }
	if cfg.Tokenizer != "" {
		if model.TokenizerPath, err = tokenizerFile(cfg.Tokenizer); err != nil {
			return fail(err)
		}
	}
	if model.TokenizerPath == "" {
		return fail(fmt.Errorf("%w: model %s has no tokenizer.json; run needs one to build prompts (name one with --tokenizer DIR|ORG/NAME or --model_args tokenizer=…)", errUsage, cfg.Model))
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
	stopPython, interp, err := startPython(ctx, &cfg)
	if err != nil {
		return fail(err)
	}
	closeAll := cleanup
	cleanup = func() { stopPython(); closeAll() }
	task, err := eval.ResolveTask(cfg)
	if err != nil {
		return fail(err)
	}
	if task.Repeats > 1 && cfg.Repeats == 1 {
		// lm-eval's repeats (self-consistency): the filters see a doc's
		// responses together, so the sweep runs that many repeats.
		slog.Info("task repeats responses per doc; running that many repeats", "task", task.Name, "repeats", task.Repeats)
		cfg.Repeats = task.Repeats
	}
	inputs, err := eval.LoadTaskInputs(cfg, task, eval.DataSourceOf(cfg, task, engine.HFCacheDirs()), tok)
	if err != nil {
		return fail(err)
	}
	outputs := pythonOutputs(cfg, task)
	if !task.GradesInPython() {
		stopPython() // the prompts are built: the hooks have run
	}
	inputs, cfg.Limit = sz.applyLimit(inputs, cfg.Limit)
	resolve := eval.NewSamplerResolver(tokenTextLookup(tok), tokenIDText(tok))
	samplers := make([]eval.SamplerFactory, len(cfg.Samplers))
	for i, s := range cfg.Samplers {
		if samplers[i], err = resolve(s); err != nil {
			if errors.Is(err, sampler.ErrNoClarifyingToken) {
				err = fmt.Errorf("%w: %w. %s", errUsage, err, clarifyingCandidates(tok, s))
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
	if items := eval.ItemCount(cfg, len(inputs.Problems)); cfg.BatchSize > items {
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
	if sz.autoBatch {
		if opts.Slots, err = autoBatchSize(cfg, model, opts); err != nil {
			return fail(err)
		}
		opts.Slots = min(opts.Slots, max(eval.ItemCount(cfg, len(inputs.Problems)), 1))
		cfg.BatchSize = opts.Slots
		slog.Info("batch size auto: the most sequences that fit in memory", "batch_size", cfg.BatchSize)
	}
	open, err := engineOpener(cfg.Backend, model, opts)
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
	return &eval.Runner{
		Config: cfg, Task: inputs.Task, Problems: inputs.Problems,
		Tokenizer:  eval.TokenizerAdapter{T: tok, AddSpecial: !cfg.ChatTemplate},
		Samplers:   samplers,
		OpenEngine: open,
		EOS:        eos, Provenance: prov,
		Outputs: outputs,
	}, cleanup, nil
}

// tokenTextLookup resolves a token's text, such as Entropix's clarifying token
// " ...", to its id, as sampler.TokenLookup asks. A raw vocabulary lookup alone is
// not enough: byte-level BPE vocabularies store " ..." as "Ġ..." (Llama 3 id 2564),
// so the text is also encoded and accepted when it is exactly one token. An exact
// vocabulary string (e.g. "Ġ..." or an added token) still resolves as before.
func tokenTextLookup(tok *tokenizer.Tokenizer) func(string) (int32, bool) {
	return func(text string) (int32, bool) {
		if id, ok := tok.TokenID(text); ok {
			return id, true
		}
		ids, err := tok.Encode(text, false)
		if err != nil || len(ids) != 1 {
			return 0, false
		}
		return ids[0], true
	}
}

// clarifyingCandidates names the tokens of this tokenizer that could stand in for
// Entropix's " ..." (the look-alikes the demo tries, in its order) and how to
// pick one, for a spec whose clarifying token the vocabulary lacks. Nothing is
// picked for the user: the token changes what Entropix emits.
func clarifyingCandidates(tok *tokenizer.Tokenizer, s sampler.Spec) string {
	lookup := tokenTextLookup(tok)
	var found []string
	first := int32(-1)
	for _, text := range demoClarifyingTexts {
		if id, ok := lookup(text); ok {
			found = append(found, fmt.Sprintf("%q id %d", text, id))
			if first < 0 {
				first = id
			}
		}
	}
	if len(found) == 0 {
		return "This tokenizer has none of " + fmt.Sprintf("%q", demoClarifyingTexts) + " as one token: set clarifying_token_id to a token of your choice"
	}
	return fmt.Sprintf("This tokenizer has %s: add clarifying_token_id to the sampler, e.g. --sampler %s,clarifying_token_id=%d",
		strings.Join(found, ", "), s.Name, first)
}

// tokenIDText names a token id as the tokenizer decodes it alone (special tokens
// kept), for manifests.
func tokenIDText(tok *tokenizer.Tokenizer) func(int32) (string, bool) {
	return func(id int32) (string, bool) {
		s, err := tok.Decode([]int32{id}, false)
		return s, err == nil
	}
}

func defaultOutputs() eval.Outputs {
	return eval.Outputs{Grader: eval.NewLMEvalGrader(), Arrow: eval.ReportsArrow{}}
}

// pythonOutputs are the default outputs, their grader running the task's
// Python scoring hooks through the run's interpreter when it has any.
func pythonOutputs(cfg eval.Config, task *datasets.Task) eval.Outputs {
	o := defaultOutputs()
	if py, ok := cfg.PythonRunner.(eval.PythonHooks); ok && task.GradesInPython() {
		g := eval.NewLMEvalGrader()
		g.Python = py
		o.Grader = g
	}
	return o
}

func provenance(cfg eval.Config, model *engine.Model, dataFiles []string, samplers []eval.SamplerFactory) (eval.Provenance, error) {
	files, err := eval.ModelFiles(model.Dir)
	if err != nil {
		return eval.Provenance{}, err
	}
	if cfg.Tokenizer != "" { // the tokenizer used, not the model's own
		files = slices.DeleteFunc(files, isTokenizerFile)
		for _, f := range []string{model.TokenizerPath, filepath.Join(filepath.Dir(model.TokenizerPath), "tokenizer_config.json")} {
			if fileExists(f) {
				files = append(files, f)
			}
		}
	}
	msum, err := eval.ChecksumFiles(files)
	if err != nil {
		return eval.Provenance{}, err
	}
	dsum, err := eval.ChecksumFiles(dataFiles)
	if err != nil {
		return eval.Provenance{}, err
	}
	return eval.Provenance{
		Model: msum, Datasets: dsum, DType: computeDType(cfg.Backend), WeightDType: string(model.Config.DType),
		SamplerOrder: samplerOrders(cfg, samplers),
	}, nil
}

// tokenizerFile is the tokenizer.json a --tokenizer value names: the file, or
// the one in the directory.
func tokenizerFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: --tokenizer %s: %w", errUsage, path, err)
	}
	if st.IsDir() {
		path = filepath.Join(path, engine.TokenizerFile)
	}
	if !fileExists(path) {
		return "", fmt.Errorf("%w: --tokenizer: %s does not exist", errUsage, path)
	}
	return path, nil
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// isTokenizerFile says whether a checkpoint file belongs to its tokenizer.
func isTokenizerFile(path string) bool {
	base := filepath.Base(path)
	return base == engine.TokenizerFile || base == "tokenizer_config.json"
}

// samplerOrders names the truncation order each sampler applied, spelled out, e.g.
// "greedy: hf (temperature, top_k, top_p, min_p); entropix: vllm-v1 (...)".
func samplerOrders(cfg eval.Config, samplers []eval.SamplerFactory) string {
	spelled := map[string]string{
		"hf":      "temperature, top_k, top_p, min_p on the survivors",
		"vllm-v1": "temperature, min_p on the full distribution, top_k, top_p",
	}
	var parts []string
	for i, s := range samplers {
		var d struct {
			Order string `json:"order"`
		}
		if err := json.Unmarshal([]byte(s.Describe()), &d); err != nil || d.Order == "" {
			d.Order = "unknown"
		}
		o := d.Order
		if long, ok := spelled[o]; ok {
			o += " (" + long + ")"
		}
		parts = append(parts, cfg.Samplers[i].DisplayLabel()+": "+o)
	}
	return strings.Join(parts, "; ")
}
