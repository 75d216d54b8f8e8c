package cpu

import (
	"math"

	"github.com/entropix-eval/entropix-eval/engine"
)

// ropeTable holds cos/sin of pos·inv_freq for every cache position, computed once in
// float64 and rounded, so a position's rotation is one fixed table row whatever
// chunk or batch it arrives in.
type ropeTable struct {
	half     int       // head_dim / 2
	cos, sin []float32 // [maxSeq][half]
}

func newRopeTable(c *engine.Config, maxSeq int) (*ropeTable, error) {
	inv, err := engine.RopeInvFreq(c)
	if err != nil {
		return nil, err
	}
	half := len(inv)
	t := &ropeTable{half: half, cos: make([]float32, maxSeq*half), sin: make([]float32, maxSeq*half)}
	for p := 0; p < maxSeq; p++ {
		for i, f := range inv {
			a := float64(p) * f
			t.cos[p*half+i] = float32(math.Cos(a))
			t.sin[p*half+i] = float32(math.Sin(a))
		}
	}
	return t, nil
}

// rotate applies HF's rotate_half RoPE at position pos to each head of x
// (heads × head_dim): x1' = x1·cos − x2·sin, x2' = x2·cos + x1·sin, where x1 and x2
// are the two halves of a head.
func (t *ropeTable) rotate(x []float32, heads, pos int) {
	h := t.half
	cos := t.cos[pos*h : (pos+1)*h]
	sin := t.sin[pos*h : (pos+1)*h]
	for hd := 0; hd < heads; hd++ {
		v := x[hd*2*h : (hd+1)*2*h]
		x1, x2 := v[:h], v[h:2*h]
		for i := range x1 {
			a, b := x1[i], x2[i]
			x1[i] = a*cos[i] - b*sin[i]
			x2[i] = b*cos[i] + a*sin[i]
		}
	}
}
