package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

func llama1B(t *testing.T) engine.Config {
	t.Helper()
	spec, err := engine.TestModelPreset("llama-3.2-1b")
	require.NoError(t, err)
	return spec.Config
}

func TestPlanMemoryLlama1B(t *testing.T) {
	c := llama1B(t)
	p := planMemory(&c, engine.Options{Slots: 64, MaxSeqLen: 4096, TopK: 27})
	// K and V: 16 layers × 64 slots × 4096 × 8 kv heads × 64 dims × 2 bytes × 2.
	require.Equal(t, int64(16*64*4096*8*64*2*2), p.KVCache)
	require.Equal(t, tokenCapFor(64), p.TokenCap)
	require.Equal(t, p.Weights+p.KVCache+p.Activations+p.Outputs+p.Rope+p.Reserve, p.Total())
	require.Less(t, p.Total(), int64(12)<<30)
}

func TestCheckFitsSaysWhatFits(t *testing.T) {
	c := llama1B(t)
	o := engine.Options{Slots: 256, MaxSeqLen: 8192, TopK: 27}
	const free = int64(20) << 30
	err := checkFits(&c, o, free, 1)
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "out of device memory on GPU 1")
	require.Contains(t, msg, "256 slots × 8192 tokens")
	require.Contains(t, msg, "20.00 GiB free")

	// The advice is exact: the suggested slot count fits and one more does not.
	slots := engine.Largest(o.Slots, func(n int) bool {
		q := o
		q.Slots = n
		return planMemory(&c, q).Total() <= free
	})
	require.Greater(t, slots, 0)
	require.Contains(t, msg, "at most "+itoa(slots)+" slots at max sequence length 8192")
	ok := o
	ok.Slots = slots
	require.NoError(t, checkFits(&c, ok, free, 1))
	ok.Slots++
	require.Error(t, checkFits(&c, ok, free, 1))

	require.NoError(t, checkFits(&c, engine.Options{Slots: 16, MaxSeqLen: 1024, TopK: 27}, free, 0))
}

func TestCheckFitsWeightsAlone(t *testing.T) {
	c := llama1B(t)
	err := checkFits(&c, engine.Options{Slots: 1, MaxSeqLen: 512}, 1<<30, 0)
	require.ErrorContains(t, err, "the weights alone do not fit")
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// The prefix cache is budgeted in whole blocks and capped at half of what the rest
// of the plan leaves free, so sharing never makes a request stop fitting.
func TestPrefixCacheBudget(t *testing.T) {
	c := llama1B(t)
	block := prefixBlockBytes(&c)
	// 16 layers × K and V × 8 kv heads × 16 positions × 64 dims × 2 bytes.
	require.Equal(t, int64(16*2*8*16*64*2), block)
	o := engine.Options{Slots: 16, MaxSeqLen: 1024, TopK: 27, PrefixCacheBytes: 10*block + 1}
	require.Equal(t, 10*block, planMemory(&c, o).PrefixCache)
	rest := o
	rest.PrefixCacheBytes = -1
	require.Zero(t, planMemory(&c, rest).PrefixCache)
	need := planMemory(&c, rest).Total()

	require.Equal(t, o, fitPrefixCache(&c, o, need+1<<30), "plenty free: the budget stands")
	capped := fitPrefixCache(&c, o, need+8*block)
	require.Equal(t, 4*block, capped.PrefixCacheBytes, "half of what is left")
	require.NoError(t, checkFits(&c, capped, need+8*block, 0))
	require.Equal(t, int64(-1), fitPrefixCache(&c, o, need).PrefixCacheBytes, "nothing left: sharing off")
	require.Equal(t, int64(-1), fitPrefixCache(&c, rest, need+1<<30).PrefixCacheBytes, "off stays off")
	err := checkFits(&c, o, need, 0)
	require.ErrorContains(t, err, "GiB prefix cache")
}
