package engine

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is one weight in its stored dtype. Data is little-endian and usually a
// window of a memory-mapped file, so BF16/F16 checkpoints stay compact in memory;
// backends decode rows on the fly or convert once for their device.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// Len is the number of elements.
func (t *Tensor) Len() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Rows and Cols view a 1-D or 2-D tensor as a matrix (a vector is one row).
func (t *Tensor) Rows() int {
	if len(t.Shape) < 2 {
		return 1
	}
	return t.Shape[0]
}

func (t *Tensor) Cols() int {
	if len(t.Shape) == 0 {
		return 1
	}
	return t.Shape[len(t.Shape)-1]
}

// At decodes element i.
func (t *Tensor) At(i int) float32 {
	switch t.DType {
	case BF16:
		return BF16ToF32(binary.LittleEndian.Uint16(t.Data[2*i:]))
	case F16:
		return F16ToF32(binary.LittleEndian.Uint16(t.Data[2*i:]))
	default:
		return math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
}

// DecodeRange decodes elements [off, off+len(dst)) into dst.
func (t *Tensor) DecodeRange(dst []float32, off int) {
	switch t.DType {
	case BF16:
		src := t.Data[2*off : 2*(off+len(dst))]
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[2*i:])) << 16)
		}
	case F16:
		src := t.Data[2*off : 2*(off+len(dst))]
		for i := range dst {
			dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	default:
		src := t.Data[4*off : 4*(off+len(dst))]
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	}
}

// Float32s decodes the whole tensor.
func (t *Tensor) Float32s() []float32 {
	out := make([]float32, t.Len())
	t.DecodeRange(out, 0)
	return out
}

// CheckShape returns an error naming the tensor when its shape differs from want.
func (t *Tensor) CheckShape(want ...int) error {
	if len(want) != len(t.Shape) {
		return fmt.Errorf("tensor %q: shape %v, config implies %v", t.Name, t.Shape, want)
	}
	for i := range want {
		if want[i] != t.Shape[i] {
			return fmt.Errorf("tensor %q: shape %v, config implies %v", t.Name, t.Shape, want)
		}
	}
	return nil
}

// BF16ToF32 widens a bfloat16 (the top half of a float32) exactly.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 rounds to nearest even, as torch's .to(torch.bfloat16) does; NaN stays NaN.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// F16ToF32 widens an IEEE half exactly, subnormals included (a decoder that flushes
// them to zero is visibly off on tiny-smollm2).
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = mant · 2^-24
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// F32ToF16 rounds to nearest even, producing subnormals and infinities as IEEE does.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		rest := mant & (1<<shift - 1)
		v := mant >> shift
		if rest > half || (rest == half && v&1 == 1) {
			v++
		}
		return sign | uint16(v)
	}
	v := uint32(e)<<10 | mant>>13
	rest := mant & 0x1fff
	if rest > 0x1000 || (rest == 0x1000 && v&1 == 1) {
		v++ // may carry into the exponent, which is the correct rounding
	}
	return sign | uint16(v)
}
