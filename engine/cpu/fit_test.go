package cpu

import (
	"testing"

	"github.com/entropix-eval/entropix-eval/engine"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hand-derived plan of TestCheckBudgetSaysWhatFits: 106 slots of SmolLM2-135M
// at 2048 tokens fit in 10 GiB; the cap and a budget too small for one slot hold.
func TestSlotsWithin(t *testing.T) {
	spec, err := engine.TestModelPreset("smollm2-135m")
	require.NoError(t, err)
	c := spec.Config
	c.HeadDim = c.HiddenSize / c.Heads
	o := engine.Options{MaxSeqLen: 2048, PrefillChunk: 256, Threads: 2}
	for _, tc := range []struct {
		name  string
		hi    int
		avail int64
		want  int
	}{
		{"memory bound", 1000, 10 << 30, 106},
		{"cap bound", 64, 10 << 30, 64},
		{"nothing fits", 64, 1 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, slotsWithin(&c, o, tc.hi, tc.avail))
		})
	}
}

func TestMaxSlotsOnAModel(t *testing.T) {
	m, err := engine.Load(sharedtest.Path(t, "models/tiny-smollm2"))
	require.NoError(t, err)
	defer m.Close()
	n, known, err := MaxSlots(m, engine.Options{MaxSeqLen: 256}, 8)
	require.NoError(t, err)
	if known {
		assert.Equal(t, 8, n, "eight tiny sequences fit in any machine that runs the tests")
	}
	_, _, err = MaxSlots(m, engine.Options{MaxSeqLen: 256}, 0)
	assert.Error(t, err)
}
