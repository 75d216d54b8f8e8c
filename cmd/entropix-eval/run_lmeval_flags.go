package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/eval/lmevalout"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// lmEvalModelTypes are lm-eval's --model values (its model classes); here the
// engine is chosen by --backend, so they only say "the checkpoint is in
// --model_args pretrained=".
var lmEvalModelTypes = []string{"hf", "hf-auto", "huggingface", "vllm", "local-completions", "local-chat-completions"}

// lmEvalFlags holds what run's lm-eval spellings set that needs the whole
// command line to interpret: --model_args may name the checkpoint while --model
// holds lm-eval's model type, --batch_size auto needs the model.
type lmEvalFlags struct {
	pretrained, revision, dtype string
	tokenizer                   string // model_args tokenizer=
	samplers                    []sampler.Spec
	tasks                       []string    // --tasks, when it names several
	sizing                      eval.Sizing // --batch-size auto, --limit 0.1
}

// addRunAliases registers run's flags whose values need parsing beyond a plain
// type (--batch-size, --limit, --sampler, --revision), then lm-eval's spellings:
// each names our flag in its help, so -h lists both.
func addRunAliases(fs *flag.FlagSet, cfg *eval.Config, lm *lmEvalFlags) {
	fs.Func("batch-size", "sequences decoded together per worker (default 8), or auto: the most that fit in memory (CPU backend, at most 64)", func(s string) error {
		if s == "auto" {
			lm.sizing.AutoBatch = true
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("want a positive integer or auto, got %q", s)
		}
		cfg.BatchSize, lm.sizing.AutoBatch = n, false
		return nil
	})
	fs.Func("limit", "evaluate only the first N problems, or a fraction of them (0.1: the first 10%, rounded up, as lm-eval)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("want a count or a fraction below 1, got %q", s)
		case v == 0:
			// It used to run the whole split without a word; lm-eval's limit 0
			// evaluates no document.
			return fmt.Errorf("%q evaluates nothing; leave --limit out to evaluate the whole split", s)
		case v < 1 && v > 0:
			lm.sizing.LimitFraction, cfg.Limit = v, 0
		case v != math.Trunc(v):
			return fmt.Errorf("%q: a count is a whole number; a fraction is below 1", s)
		default:
			lm.sizing.LimitFraction, cfg.Limit = 0, int(v)
		}
		return nil
	})
	fs.Func("sampler", `one sampler, repeatable: NAME[:VARIANT][:FIELD=VALUE,...] (or NAME[:VARIANT],FIELD=VALUE,...), e.g. --sampler min_p:temperature=0.7,min_p=0.1 --sampler entropix:frog,faithful=true`, func(s string) error {
		spec, err := sampler.ParseSpec(s)
		if err != nil {
			return err
		}
		lm.samplers = append(lm.samplers, spec)
		return nil
	})
	fs.StringVar(&lm.revision, "revision", "", "with --model ORG/NAME: the hub revision (branch, tag or commit) to take from the Hugging Face cache")

	alias := func(lmName, ours string) {
		f := fs.Lookup(ours)
		fs.Var(f.Value, lmName, "lm-eval spelling of --"+ours)
	}
	alias("output_path", "out")
	alias("apply_chat_template", "chat-template")
	alias("fewshot_as_multiturn", "fewshot-as-multiturn")
	alias("batch_size", "batch-size")
	alias("num_fewshot", "num-fewshot")
	alias("include_path", "include-path")
	fs.StringVar(&cfg.SystemInstruction, "system-instruction", cfg.SystemInstruction, "text that opens every prompt (a system turn with --chat-template)")
	alias("system_instruction", "system-instruction")
	fs.BoolFunc("log_samples", "lm-eval's flag, accepted: the lm-eval files under OUT/lm-eval always carry samples_<task>_<date>.jsonl", func(string) error { return nil })
	fs.Func("tasks", "lm-eval spelling of --task: a comma list runs each task (or group) into its own directory under --out", func(s string) error {
		tasks := splitList(s)
		if len(tasks) == 0 {
			return fmt.Errorf("no task named")
		}
		cfg.Task, lm.tasks = tasks[0], tasks
		return nil
	})
	fs.Func("seed", "lm-eval spelling of --seeds for one seed (lm-eval's 4-value form is not taken: use --seeds for several)", func(s string) error {
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return fmt.Errorf("%q: want one non-negative integer (several run seeds: --seeds 0,1,2)", s)
		}
		cfg.Seeds = []uint64{v}
		return nil
	})
	fs.Func("device", "lm-eval spelling of --backend and --devices for one device: cpu, cuda or cuda:N", func(s string) error {
		backend, _, _ := strings.Cut(s, ":")
		if backend != "cpu" && backend != "cuda" {
			return fmt.Errorf("%q: want cpu, cuda or cuda:N (this harness has no %s backend)", s, backend)
		}
		cfg.Backend, cfg.Devices = backend, []string{s}
		return nil
	})
	fs.Func("model_args", "lm-eval spelling of --model, --revision and --tokenizer: pretrained=DIR|ORG/NAME[,revision=R][,dtype=auto|float32][,tokenizer=DIR|ORG/NAME]", func(s string) error {
		return lm.parseModelArgs(s)
	})
	fs.Func("gen_kwargs", "lm-eval spelling of one sampler: temperature=T,top_k=K,top_p=P,min_p=M,do_sample=BOOL,max_gen_toks=N (temperature 0 or do_sample=false is greedy; filters not given are off)", func(s string) error {
		spec, maxNew, err := genKwargsSampler(s)
		if err != nil {
			return err
		}
		lm.samplers = append(lm.samplers, spec)
		if maxNew > 0 {
			cfg.MaxNewTokens = maxNew
		}
		return nil
	})
}

func (lm *lmEvalFlags) parseModelArgs(s string) error {
	for _, kv := range splitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q is not key=value", kv)
		}
		switch k = strings.TrimSpace(k); k {
		case "pretrained":
			lm.pretrained = strings.TrimSpace(v)
		case "revision":
			lm.revision = strings.TrimSpace(v)
		case "dtype":
			lm.dtype = strings.TrimSpace(v)
		case "tokenizer":
			lm.tokenizer = strings.TrimSpace(v)
		case "trust_remote_code", "parallelize", "device_map":
			// Loading options of transformers with no meaning here: the engine
			// reads safetensors itself and places workers by --devices.
		default:
			return fmt.Errorf("key %s is not supported (pretrained, revision, dtype, tokenizer)", k)
		}
	}
	return nil
}

// genKwargsSampler maps lm-eval's --gen_kwargs to one sampler spec: values are
// read as lm-eval reads them (booleans, numbers), then mapped by
// eval.SamplerFromGenKwargs, as a task's generation_kwargs are.
func genKwargsSampler(s string) (sampler.Spec, int, error) {
	kw := map[string]any{}
	for _, kv := range splitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return sampler.Spec{}, 0, fmt.Errorf("%q is not key=value", kv)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if b, err := strconv.ParseBool(v); err == nil && k == "do_sample" {
			kw[k] = b
		} else if f, err := strconv.ParseFloat(v, 64); err == nil {
			kw[k] = f
		} else {
			kw[k] = v
		}
	}
	return eval.SamplerFromGenKwargs(kw)
}

// samplerListAmbiguity finds a --samplers entry FIELD=VALUE whose field is also a
// sampler's name and not a field of the sampler before it by that name
// ("min_p,top_p=0.9": min_p's top_p, or a top_p sampler?), and says how to write
// either with --sampler.
func samplerListAmbiguity(s string) error {
	cur := ""
	for _, part := range splitList(s) {
		k, _, isField := strings.Cut(part, "=")
		if !isField {
			cur = part
			continue
		}
		k = strings.TrimSpace(k)
		if k == "temperature" || k == cur || cur == "combined" || !slices.Contains([]string{"top_k", "top_p", "min_p"}, k) {
			continue
		}
		return fmt.Errorf("%q is ambiguous: %q may set %s's %s or start a %s sampler; write --sampler %s:%s or --sampler %s:%s",
			s, part, cur, k, k, cur, part, k, part)
	}
	return nil
}

// addSamplerList takes a --samplers value when it reads one way only.
func (lm *lmEvalFlags) addSamplerList(s string) error {
	if err := samplerListAmbiguity(s); err != nil {
		return err
	}
	specs, err := sampler.ParseSpecs(s)
	if err != nil {
		return err
	}
	lm.samplers = append(lm.samplers, specs...)
	return nil
}

// finish applies what the lm-eval spellings set once every flag is parsed:
// the checkpoint from pretrained= or an lm-eval model type, the sampler flags,
// the hub name resolved to a snapshot. modelFlag is --model's command-line value.
func (lm *lmEvalFlags) finish(cfg *eval.Config, modelFlag string, modelFlagGiven bool) error {
	isType := slices.Contains(lmEvalModelTypes, cfg.Model)
	switch {
	case lm.pretrained != "" && modelFlagGiven && !isType && modelFlag != lm.pretrained:
		return fmt.Errorf("%w: --model %s and --model_args pretrained=%s name different checkpoints; give one", errUsage, modelFlag, lm.pretrained)
	case lm.pretrained != "":
		cfg.Model = lm.pretrained
	case isType:
		return fmt.Errorf("%w: --model %s is lm-eval's model type; name the checkpoint with --model_args pretrained=DIR|ORG/NAME or --model DIR|ORG/NAME", errUsage, cfg.Model)
	}
	switch {
	case lm.tokenizer != "" && cfg.Tokenizer != "" && cfg.Tokenizer != lm.tokenizer:
		return fmt.Errorf("%w: --tokenizer %s and --model_args tokenizer=%s name different tokenizers; give one", errUsage, cfg.Tokenizer, lm.tokenizer)
	case lm.tokenizer != "":
		cfg.Tokenizer = lm.tokenizer
	}
	if len(lm.samplers) > 0 {
		cfg.Samplers = append(cfg.Samplers[:0:0], lm.samplers...)
	}
	return nil
}

// checkDType accepts model_args' dtype when it is what the backend computes in.
func (lm *lmEvalFlags) checkDType(backend string) error {
	if lm.dtype == "" || lm.dtype == "auto" {
		return nil
	}
	torchName := map[string]string{"F32": "float32", "BF16": "bfloat16"}[eval.ComputeDType(backend)]
	if lm.dtype != torchName {
		hint := ""
		if backend == "cpu" && lm.dtype == "bfloat16" {
			hint = "; --matmul-precision bf16 rounds the matmul inputs to bfloat16 as a bfloat16 model in PyTorch does"
		}
		return fmt.Errorf("%w: --model_args dtype=%s: the %s backend computes in %s (give dtype=auto or %s%s)", errUsage, lm.dtype, backend, torchName, torchName, hint)
	}
	return nil
}

// finish applies the lm-eval spellings over cfg; probeModel is --model's value
// as given on the command line alone ("" when not given).
func (rf *runFlags) finish(cfg *eval.Config, probeModel string) error {
	return rf.lm.finish(cfg, probeModel, probeModel != "")
}

// writeLMEvalFiles writes a finished run directory's lm-eval output files
// (results_<date>.json, samples_<task>_<date>.jsonl per sampler and seed) and
// says where; a run lm-eval has no equivalent for is noted, not an error.
func writeLMEvalFiles(dir string, stdout io.Writer) error {
	files, err := lmevalout.Write(dir)
	if errors.Is(err, lmevalout.ErrNotWritten) {
		fmt.Fprintf(stdout, "lm-eval files: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lm-eval files: %s (%d files: results_*.json and samples_*.jsonl per sampler and seed)\n", filepath.Join(dir, lmevalout.Dir), len(files))
	return nil
}

// runChoices lists what run's -h names: the built-in tasks ('entropix-eval
// tasks' lists groups, tags and include paths too), the samplers and the
// Entropix variants.
func runChoices() string {
	return fmt.Sprintf("\ntasks:     %s\nsamplers:  %s\nentropix:  %s (--sampler entropix:VARIANT)\n\n",
		strings.Join(datasets.TaskNames(), ", "), strings.Join(sampler.SamplerNames, ", "), strings.Join(sampler.EntropixVariants, ", "))
}
