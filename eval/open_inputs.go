package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// ClarifyingLookalikes are tried in order for Entropix's clarifying token: its
// usual " ..." first, then look-alikes a tokenizer without it may have, as text
// or as the raw vocabulary strings of SentencePiece-style vocabularies ("▁..." and
// the newline byte token, which is how configs/demo.yaml runs stories260K).
var ClarifyingLookalikes = []string{" ...", "\u2581...", "...", "\n", "<0x0A>"}

// TokenTextLookup resolves a token's text, such as Entropix's clarifying token
// " ...", to its id, as sampler.TokenLookup asks. A raw vocabulary lookup alone is
// not enough: byte-level BPE vocabularies store " ..." as "Ġ..." (Llama 3 id 2564),
// so the text is also encoded and accepted when it is exactly one token. An exact
// vocabulary string (e.g. "Ġ..." or an added token) still resolves as before.
func TokenTextLookup(tok *tokenizer.Tokenizer) func(string) (int32, bool) {
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
// Entropix's " ..." (ClarifyingLookalikes, in order) and how to pick one, for a
// spec whose clarifying token the vocabulary lacks. Nothing is picked for the
// user: the token changes what Entropix emits.
func clarifyingCandidates(tok *tokenizer.Tokenizer, s sampler.Spec) string {
	lookup := TokenTextLookup(tok)
	var found []string
	first := int32(-1)
	for _, text := range ClarifyingLookalikes {
		if id, ok := lookup(text); ok {
			found = append(found, fmt.Sprintf("%q id %d", text, id))
			if first < 0 {
				first = id
			}
		}
	}
	if len(found) == 0 {
		return "This tokenizer has none of " + fmt.Sprintf("%q", ClarifyingLookalikes) + " as one token: set clarifying_token_id to a token of your choice"
	}
	return fmt.Sprintf("This tokenizer has %s: add clarifying_token_id to the sampler, e.g. --sampler %s,clarifying_token_id=%d",
		strings.Join(found, ", "), s.Name, first)
}

// TokenIDText names a token id as the tokenizer decodes it alone (special tokens
// kept), for manifests.
func TokenIDText(tok *tokenizer.Tokenizer) func(int32) (string, bool) {
	return func(id int32) (string, bool) {
		s, err := tok.Decode([]int32{id}, false)
		return s, err == nil
	}
}

// provenance hashes the model's files (the tokenizer used, not the model's own,
// when the config names one) and the data files, and names the dtypes and the
// samplers' truncation orders: all of it goes into the run's fingerprint.
func provenance(cfg Config, model *engine.Model, dataFiles []string, samplers []SamplerFactory) (Provenance, error) {
	files, err := ModelFiles(model.Dir)
	if err != nil {
		return Provenance{}, err
	}
	if cfg.Tokenizer != "" { // the tokenizer used, not the model's own
		files = slices.DeleteFunc(files, isTokenizerFile)
		for _, f := range []string{model.TokenizerPath, filepath.Join(filepath.Dir(model.TokenizerPath), "tokenizer_config.json")} {
			if fileExists(f) {
				files = append(files, f)
			}
		}
	}
	msum, err := ChecksumFiles(files)
	if err != nil {
		return Provenance{}, err
	}
	dsum, err := ChecksumFiles(dataFiles)
	if err != nil {
		return Provenance{}, err
	}
	return Provenance{
		Model: msum, Datasets: dsum, DType: ComputeDType(cfg.Backend), WeightDType: string(model.Config.DType),
		SamplerOrder: samplerOrders(cfg, samplers),
	}, nil
}

// ComputeDType is the dtype a backend computes in, for manifests and the run
// fingerprint: the CPU backend runs float32 throughout (weights widened in the
// kernels, float32 KV cache); the CUDA backend keeps weights, GEMM inputs and the KV
// cache in BF16 (FP32 accumulation).
func ComputeDType(backend string) string {
	if backend == "cuda" {
		return "BF16"
	}
	return "F32"
}

// tokenizerFile is the tokenizer.json a --tokenizer value names: the file, or
// the one in the directory.
func tokenizerFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%w: --tokenizer %s: %w", usage.Err, path, err)
	}
	if st.IsDir() {
		path = filepath.Join(path, engine.TokenizerFile)
	}
	if !fileExists(path) {
		return "", fmt.Errorf("%w: --tokenizer: %s does not exist", usage.Err, path)
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
func samplerOrders(cfg Config, samplers []SamplerFactory) string {
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

// checkVocab refuses ids the model cannot embed: a tokenizer whose added tokens
// reach past the model's vocabulary, and sampler token ids (Entropix's
// clarifying_token_id) beyond it.
func checkVocab(cfg Config, model *engine.Model, tok *tokenizer.Tokenizer, samplers []SamplerFactory) error {
	vocab := model.Config.VocabSize
	if n := tok.VocabSize(); n > vocab {
		return fmt.Errorf("%s: token ids reach %d (added tokens included), beyond the model's vocabulary of %d in %s",
			model.TokenizerPath, n-1, vocab, model.Dir)
	}
	return CheckTokenIDs(cfg.Samplers, samplers, vocab)
}

// preflightEngine opens worker 0's engine now, so that its memory budget is
// checked and one token's forward is seen to give finite logits before the run
// directory exists. The engine is then handed to worker 0 instead of opening a
// second one; release closes it if no worker took it.
func preflightEngine(ctx context.Context, open EngineOpener, device string, token int32) (EngineOpener, func(), error) {
	eng, closeEng, err := open(ctx, 0, device)
	if err != nil {
		return nil, nil, fmt.Errorf("pre-flight: open engine on %s: %w", device, err)
	}
	closeQuiet := func() {
		if closeEng != nil {
			_ = closeEng()
		}
	}
	if err := CheckForward(ctx, eng, token); err != nil {
		closeQuiet()
		return nil, nil, err
	}
	var (
		mu    sync.Mutex
		taken bool
	)
	wrapped := func(ctx context.Context, worker int, dev string) (Engine, func() error, error) {
		mu.Lock()
		first := worker == 0 && !taken
		taken = taken || first
		mu.Unlock()
		if first {
			return eng, closeEng, nil
		}
		return open(ctx, worker, dev)
	}
	release := func() {
		mu.Lock()
		defer mu.Unlock()
		if !taken {
			taken = true
			closeQuiet()
		}
	}
	return wrapped, release, nil
}
