package cuda

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/engine"
)

func TestPlanWeightsCoversEveryTensorOnce(t *testing.T) {
	for _, preset := range []string{"tiny", "tiny-qwen2", "llama-3.2-1b", "smollm2-135m"} {
		spec, err := engine.TestModelPreset(preset)
		require.NoError(t, err)
		c := spec.Config
		if c.HeadDim == 0 {
			c.HeadDim = c.HiddenSize / c.Heads
		}
		if c.Architecture == "Qwen2ForCausalLM" {
			c.QKVBias = true
		}
		w := planWeights(&c)
		seen := map[string]bool{}
		var end int64
		for _, p := range w.all() {
			require.Zero(t, p.Offset%deviceAlign, "%s %s aligned", preset, p.Sources[0].Name)
			require.GreaterOrEqual(t, p.Offset, end, "%s: %s overlaps", preset, p.Sources[0].Name)
			end = p.Offset + p.Bytes
			for _, s := range p.Sources {
				require.False(t, seen[s.Name], "%s placed twice", s.Name)
				seen[s.Name] = true
			}
		}
		require.LessOrEqual(t, end, w.Total)
		for _, s := range c.ExpectedTensors() {
			require.True(t, seen[s.Name], "%s: %s not placed", preset, s.Name)
		}
		require.Len(t, seen, len(c.ExpectedTensors()))
		require.Equal(t, c.TiedEmbedding, w.LMHead.Offset == w.Embed.Offset)
	}
}

func TestPlanWeightsLlama1BSize(t *testing.T) {
	spec, err := engine.TestModelPreset("llama-3.2-1b")
	require.NoError(t, err)
	w := planWeights(&spec.Config)
	// 1.236e9 parameters in bf16 (tied head), plus float32 norms.
	require.InDelta(t, 2.47e9, float64(w.Total), 0.01e9)
	l := w.Layers[0]
	require.Equal(t, (32+2*8)*64, l.QKV.Rows)
	require.Equal(t, 2048, l.QKV.Cols)
	require.Equal(t, 2*8192, l.GateUp.Rows)
	require.Equal(t, 8192, l.Down.Cols)
}

// packModel packs every placement of a model into one host image of the device
// weights, as New uploads it.
func packModel(t *testing.T, m *engine.Model) ([]byte, weightLayout) {
	t.Helper()
	w := planWeights(&m.Config)
	img := make([]byte, w.Total)
	for _, p := range w.all() {
		require.NoError(t, packPlacement(m, p, func(off int64, b []byte) error {
			require.LessOrEqual(t, off+int64(len(b)), p.Bytes)
			copy(img[p.Offset+off:], b)
			return nil
		}))
	}
	return img, w
}

func TestPackPlacementConvertsEveryDType(t *testing.T) {
	for _, dt := range []engine.DType{engine.F32, engine.F16, engine.BF16} {
		for _, preset := range []string{"tiny", "tiny-qwen2"} {
			spec, err := engine.TestModelPreset(preset)
			require.NoError(t, err)
			spec.Seed, spec.Config.DType = 3, dt
			dir := filepath.Join(t.TempDir(), "m")
			require.NoError(t, engine.BuildTestModel(dir, spec))
			m, err := engine.Load(dir)
			require.NoError(t, err)
			img, w := packModel(t, m)
			check := func(p placement, row int, src *engine.Tensor, srcRow int) {
				for j := 0; j < p.Cols; j++ {
					want := src.At(srcRow*p.Cols + j)
					if p.F32 {
						got := math.Float32frombits(binary.LittleEndian.Uint32(img[p.Offset+int64(4*(row*p.Cols+j)):]))
						require.Equal(t, want, got)
					} else {
						got := binary.LittleEndian.Uint16(img[p.Offset+int64(2*(row*p.Cols+j)):])
						require.Equal(t, engine.F32ToBF16(want), got, "%s %s row %d col %d", dt, src.Name, srcRow, j)
					}
				}
			}
			// Fused q/k/v: k's first row follows q's last; v's follows k's.
			l := w.Layers[1]
			q, _ := m.Tensor("model.layers.1.self_attn.q_proj.weight")
			k, _ := m.Tensor("model.layers.1.self_attn.k_proj.weight")
			v, _ := m.Tensor("model.layers.1.self_attn.v_proj.weight")
			check(l.QKV, 0, q, 0)
			check(l.QKV, q.Rows(), k, 0)
			check(l.QKV, q.Rows()+k.Rows()-1, k, k.Rows()-1)
			check(l.QKV, q.Rows()+k.Rows(), v, 0)
			up, _ := m.Tensor("model.layers.1.mlp.up_proj.weight")
			check(l.GateUp, m.Config.Intermediate+2, up, 2)
			norm, _ := m.Tensor("model.norm.weight")
			check(w.Norm, 0, norm, 0)
			if m.Config.QKVBias {
				kb, _ := m.Tensor("model.layers.1.self_attn.k_proj.bias")
				for j := 0; j < kb.Len(); j++ {
					got := math.Float32frombits(binary.LittleEndian.Uint32(img[l.QKVBias.Offset+int64(4*(q.Rows()+j)):]))
					require.Equal(t, kb.At(j), got)
				}
			}
			require.NoError(t, m.Close())
		}
	}
}

func TestPackPlacementRejectsWrongShapes(t *testing.T) {
	spec, err := engine.TestModelPreset("tiny")
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, engine.BuildTestModel(dir, spec))
	m, err := engine.Load(dir)
	require.NoError(t, err)
	defer m.Close()
	c := m.Config
	c.Intermediate++ // a layout for a different model
	w := planWeights(&c)
	err = packPlacement(m, w.Layers[0].GateUp, func(int64, []byte) error { return nil })
	require.ErrorContains(t, err, "mlp.gate_proj.weight")

	delete(m.Tensors, "model.norm.weight")
	err = packPlacement(m, planWeights(&m.Config).Norm, func(int64, []byte) error { return nil })
	require.ErrorContains(t, err, "model.norm.weight")
}
