package eval_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/backends"
	"github.com/entropix-eval/entropix-eval/eval"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/entropix-eval/entropix-eval/internal/usage"
	"github.com/entropix-eval/entropix-eval/sampler"
)

// openConfig is two samplers × one seed over the first two GSM8K test problems
// on stories260K (max_position_embeddings 512, eos_token_id 2, float32 weights).
func openConfig(t *testing.T) eval.Config {
	return eval.Config{
		Model: sharedtest.Path(t, "models/stories260K-hf"), Task: "gsm8k_cot_zeroshot",
		Dataset:  sharedtest.Path(t, "data/gsm8k/main/test-00000-of-00001.parquet"),
		Samplers: []sampler.Spec{{Name: "greedy"}, {Name: "min_p"}}, Limit: 2, MaxNewTokens: 4,
		Out: filepath.Join(t.TempDir(), "run"),
	}.WithDefaults()
}

// Open settles what changes a run's results before the run directory exists,
// as entropix-eval run did in its own wiring: the sequence length the model
// allows, the batch the work fills, the ids that end a sequence, and the dtypes
// and truncation orders the fingerprint hashes. The Runner it returns runs.
func TestOpenSettlesWhatChangesResults(t *testing.T) {
	r, release, err := eval.Open(context.Background(), openConfig(t), backends.Builtin, eval.Sizing{})
	require.NoError(t, err)
	defer release()
	assert.Equal(t, 512, r.Config.MaxSeqLen, "max_seq_len 2048 clamped to max_position_embeddings")
	assert.Equal(t, 4, r.Config.BatchSize, "2 samplers × 1 seed × 2 problems: no more slots than items")
	assert.Contains(t, r.EOS, int32(2), "config.json's eos_token_id")
	assert.Equal(t, "F32", r.Provenance.DType, "the CPU backend computes in float32")
	assert.Equal(t, "greedy: hf (temperature, top_k, top_p, min_p on the survivors); min_p: hf (temperature, top_k, top_p, min_p on the survivors)",
		r.Provenance.SamplerOrder)
	var files []string
	for _, f := range r.Provenance.Model {
		files = append(files, filepath.Base(f.Path))
	}
	assert.Contains(t, files, "model.safetensors")
	assert.Contains(t, files, "tokenizer.json")
	assert.Len(t, r.Problems, 2)

	m, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, eval.StatusComplete, m.Status)
	assert.Len(t, m.Jobs, 2)
	assert.Equal(t, 512, m.Config.MaxSeqLen, "the manifest records the clamped length")
}

// Sizing: a limit fraction keeps ceil(N × fraction) problems and records the
// count; auto batch sizing needs a backend that can size before opening its
// device, which the CUDA one cannot (a usage error, before any device is opened).
func TestOpenSizing(t *testing.T) {
	cfg := openConfig(t)
	cfg.Limit = 0
	r, release, err := eval.Open(context.Background(), cfg, backends.Builtin, eval.Sizing{LimitFraction: 0.001})
	require.NoError(t, err)
	release()
	assert.Equal(t, 2, r.Config.Limit, "ceil(1319 × 0.001)")
	assert.Len(t, r.Problems, 2)

	cfg.Backend, cfg.Devices = "cuda", []string{"cuda"}
	_, _, err = eval.Open(context.Background(), cfg, backends.Builtin, eval.Sizing{AutoBatch: true})
	require.ErrorIs(t, err, usage.Err)
	assert.ErrorContains(t, err, "--batch-size auto: only the cpu backend can size its batch before opening the device")
}
