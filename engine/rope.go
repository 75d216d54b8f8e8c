package engine

import (
	"fmt"
	"math"
)

// RopeInvFreq is HF's inv_freq = 1/theta^(2i/d), adjusted for "llama3" rope_scaling
// exactly as transformers' _compute_llama3_parameters does (low frequencies divided
// by factor, high ones kept, a smooth blend between the two wavelength bounds). Both
// backends build their rotation tables from it, so they rotate by the same angles.
func RopeInvFreq(c *Config) ([]float64, error) {
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
	lowWavelen := old / s.LowFreqFactor
	highWavelen := old / s.HighFreqFactor
	for i, f := range inv {
		wavelen := 2 * math.Pi / f
		switch {
		case wavelen < highWavelen:
			// high frequency: unchanged
		case wavelen > lowWavelen:
			inv[i] = f / s.Factor
		default:
			smooth := (old/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			inv[i] = (1-smooth)*f/s.Factor + smooth*f
		}
	}
	return inv, nil
}
