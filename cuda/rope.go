package cuda

import (
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/engine"
)

// ropeInvFreq is HF's inv_freq = 1/theta^(2i/d), adjusted for "llama3" rope_scaling
// as transformers' _compute_llama3_parameters does (low frequencies divided by factor,
// high ones kept, a smooth blend in between). It matches engine/cpu's table, so both
// backends rotate by the same angles.
func ropeInvFreq(c *engine.Config) ([]float64, error) {
	d := c.HeadDim
	if d <= 0 || d%2 != 0 {
		return nil, fmt.Errorf("rope: head_dim %d must be positive and even", d)
	}
	if c.RopeTheta <= 0 {
		return nil, fmt.Errorf("rope: rope_theta %g must be positive", c.RopeTheta)
	}
	inv := make([]float64, d/2)
	for i := range inv {
		inv[i] = 1 / math.Pow(c.RopeTheta, float64(2*i)/float64(d))
	}
	s := c.RopeScaling
	if s == nil {
		return inv, nil
	}
	if s.Type != "llama3" {
		return nil, fmt.Errorf("rope: rope_scaling type %q not supported", s.Type)
	}
	if s.Factor <= 0 || s.HighFreqFactor <= s.LowFreqFactor || s.LowFreqFactor <= 0 || s.OriginalMaxPositionEmbs <= 0 {
		return nil, fmt.Errorf("rope: invalid llama3 rope_scaling %+v", *s)
	}
	old := float64(s.OriginalMaxPositionEmbs)
	lowWavelen, highWavelen := old/s.LowFreqFactor, old/s.HighFreqFactor
	for i, f := range inv {
		wavelen := 2 * math.Pi / f
		switch {
		case wavelen < highWavelen: // high frequency: unchanged
		case wavelen > lowWavelen:
			inv[i] = f / s.Factor
		default:
			smooth := (old/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			inv[i] = (1-smooth)*f/s.Factor + smooth*f
		}
	}
	return inv, nil
}

// ropeTable is the (cos, sin) pairs the qkv_rope_cache kernel reads as float2:
// [maxSeq][headDim/2][2] float32. Angles are formed in float64 on the host, because a
// float32 product pos·inv_freq loses ~1e-3 rad of phase at positions in the thousands.
func ropeTable(c *engine.Config, maxSeq int) ([]float32, error) {
	inv, err := ropeInvFreq(c)
	if err != nil {
		return nil, err
	}
	half := len(inv)
	t := make([]float32, maxSeq*half*2)
	for p := 0; p < maxSeq; p++ {
		for j, f := range inv {
			s, co := math.Sincos(float64(p) * f)
			t[(p*half+j)*2] = float32(co)
			t[(p*half+j)*2+1] = float32(s)
		}
	}
	return t, nil
}
