package cpu

import (
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SmolLM2-135M at 2048 tokens, chunk 256, 2 threads, worked out by hand:
//
//	KV per slot      2 (k, v) × 4 B × 30 layers × 2048 × 192 (3 kv heads × 64)  = 94,371,840
//	rows per slot    256 × 4 B × (2·576 + 2·576 + 2·192 + 2·1536)               =  5,898,240
//	outputs per slot 4 B × (576 + 49,152 + 9 heads × 2048)                      =    272,640
//	output Dist      49,152 × (8 B a candidate + 4 B of the logits copy)          =    589,824
//	per slot                                                                     = 101,132,544
//	fixed            2 threads × 4 B × (6144 + 3 heads a group × 2048)
//	                 + 4 B × 2048 × 64 (RoPE)                                  =    622,592
func TestCheckBudgetSaysWhatFits(t *testing.T) {
	spec, err := engine.TestModelPreset("smollm2-135m")
	require.NoError(t, err)
	c := spec.Config
	c.HeadDim = c.HiddenSize / c.Heads // as config.json reads back: 576 / 9 = 64
	o := engine.Options{Slots: 100_000_000, MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2}
	tile := max(tileFloats, c.HiddenSize, c.Intermediate, c.Heads*c.HeadDim)
	require.Equal(t, 6144, tile)

	p := planMemory(&c, engine.Options{Slots: 1, MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2}, tile)
	assert.Equal(t, int64(94_371_840), p.KVCache)
	assert.Equal(t, int64(5_898_240+272_640+589_824+622_592), p.Buffers)
	withK := planMemory(&c, engine.Options{Slots: 1, MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2, TopK: 64}, tile)
	assert.Equal(t, int64(5_898_240+272_640+64*8+622_592), withK.Buffers, "top 64: 64 candidates, no logits copy")

	const avail = 10 << 30 // (10,737,418,240 − 622,592) / 101,132,544 = 106.17…
	err = checkBudget(&c, o, tile, avail)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most 106 slots at max sequence length 2048")
	assert.Contains(t, err.Error(), "10.00 GiB available")
	require.NoError(t, checkBudget(&c, engine.Options{Slots: 106, MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2}, tile, avail))
	require.Error(t, checkBudget(&c, engine.Options{Slots: 107, MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2}, tile, avail))
	assert.ErrorContains(t, checkBudget(&c, o, tile, 1<<20), "fits: nothing")
}

// The reproduction of issue 13: a batch of 100,000,000 slots is an error that
// says what fits, not a runtime out-of-memory crash in newKVCache.
func TestNewRefusesAHugeBatch(t *testing.T) {
	if _, ok := availableMemory(); !ok {
		t.Skip("available memory is unknown on this platform")
	}
	m, err := engine.Load(sharedtest.Path(t, "models/tiny-smollm2"))
	require.NoError(t, err)
	defer m.Close()
	_, err = New(m, engine.Options{Slots: 100_000_000, MaxSeqLen: 2048})
	require.ErrorContains(t, err, "out of memory")
	require.ErrorContains(t, err, "fits: at most")
	e, err := New(m, engine.Options{Slots: 4, MaxSeqLen: 256})
	require.NoError(t, err)
	require.NoError(t, e.Close())
}
