package cuda

import (
	"math"

	"github.com/entropix-eval/entropix-eval/engine"
)

// ropeTable is the (cos, sin) pairs the qkv_rope_cache kernel reads as float2:
// [maxSeq][headDim/2][2] float32. Angles are formed in float64 on the host, because a
// float32 product pos·inv_freq loses ~1e-3 rad of phase at positions in the thousands.
func ropeTable(c *engine.Config, maxSeq int) ([]float32, error) {
	inv, err := engine.RopeInvFreq(c)
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
