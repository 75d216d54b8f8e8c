package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected values below are IEEE 754 facts written out by hand (bit patterns and
// powers of two), not outputs of the functions under test.

func TestF16ToF32(t *testing.T) {
	cases := []struct {
		name string
		in   uint16
		want float32
	}{
		{"zero", 0x0000, 0},
		{"one", 0x3c00, 1},
		{"minus two", 0xc000, -2},
		{"largest normal", 0x7bff, 65504},
		{"smallest normal", 0x0400, float32(math.Ldexp(1, -14))},
		{"smallest subnormal", 0x0001, float32(math.Ldexp(1, -24))},
		{"largest subnormal", 0x03ff, float32(math.Ldexp(1023, -24))},
		{"negative subnormal", 0x8200, float32(-math.Ldexp(512, -24))},
		{"one third", 0x3555, float32(0x555) / 4096}, // 1.0101010101b × 2^-2
		{"+inf", 0x7c00, float32(math.Inf(1))},
		{"-inf", 0xfc00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, F16ToF32(c.in))
		})
	}
	t.Run("negative zero keeps its sign", func(t *testing.T) {
		assert.Equal(t, uint32(0x80000000), math.Float32bits(F16ToF32(0x8000)))
	})
	t.Run("NaN", func(t *testing.T) {
		for _, h := range []uint16{0x7e00, 0x7c01, 0xfe00, 0x7fff} {
			assert.True(t, math.IsNaN(float64(F16ToF32(h))), "%#04x", h)
		}
	})
}

func TestF16RoundTripsEveryValue(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		if f != f {
			assert.True(t, math.IsNaN(float64(F16ToF32(F32ToF16(f)))), "%#04x", h)
			continue
		}
		require.Equal(t, uint16(h), F32ToF16(f), "%#04x decodes to %g", h, f)
	}
}

func TestF32ToF16RoundsToNearestEven(t *testing.T) {
	ulp1 := math.Ldexp(1, -10) // spacing of halves in [1, 2)
	sub := math.Ldexp(1, -24)  // spacing of subnormal halves
	cases := []struct {
		name string
		in   float64
		want uint16
	}{
		{"tie below an even mantissa stays", 1 + ulp1/2, 0x3c00},
		{"tie above an odd mantissa rounds up", 1 + 3*ulp1/2, 0x3c02},
		{"just above a tie rounds up", 1 + ulp1/2 + math.Ldexp(1, -20), 0x3c01},
		{"just below a tie rounds down", 1 + ulp1/2 - math.Ldexp(1, -20), 0x3c00},
		{"mantissa carry into the exponent", 2 - ulp1/4, 0x4000},
		{"overflow at the tie above 65504", 65520, 0x7c00},
		{"just below that tie", 65519, 0x7bff},
		{"huge", 1e10, 0x7c00},
		{"negative huge", -1e10, 0xfc00},
		{"half the smallest subnormal ties to zero", sub / 2, 0x0000},
		{"above half the smallest subnormal", sub * 0.75, 0x0001},
		{"subnormal tie to even up", 3 * sub / 2, 0x0002},
		{"subnormal tie to even down", 5 * sub / 2, 0x0002},
		{"largest subnormal rounds into the normals", math.Ldexp(1, -14) - sub/4, 0x0400},
		{"far below the subnormals", 1e-10, 0x0000},
		{"negative subnormal", -3 * sub, 0x8003},
		{"inf", math.Inf(1), 0x7c00},
		{"-inf", math.Inf(-1), 0xfc00},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, F32ToF16(float32(c.in)), "%g", c.in)
		})
	}
	t.Run("NaN stays NaN", func(t *testing.T) {
		h := F32ToF16(float32(math.NaN()))
		assert.Equal(t, uint16(0x7c00), h&0x7c00)
		assert.NotZero(t, h&0x03ff)
	})
}

func TestBF16(t *testing.T) {
	cases := []struct {
		name string
		in   uint32 // float32 bits
		want uint16
	}{
		{"exact", 0x3f800000, 0x3f80},
		{"tie to even stays", 0x3f808000, 0x3f80},
		{"tie from odd rounds up", 0x3f818000, 0x3f82},
		{"above the tie", 0x3f808001, 0x3f81},
		{"below the tie", 0x3f807fff, 0x3f80},
		{"carry into the exponent", 0x3fffffff, 0x4000},
		{"max float32 rounds to inf", 0x7f7fffff, 0x7f80},
		{"inf", 0x7f800000, 0x7f80},
		{"-inf", 0xff800000, 0xff80},
		{"negative zero", 0x80000000, 0x8000},
		{"float32 subnormal kept", 0x00010000, 0x0001},
		{"negative tie to even", 0xbf808000, 0xbf80},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, F32ToBF16(math.Float32frombits(c.in)))
		})
	}
	t.Run("NaN stays NaN even when only low bits are set", func(t *testing.T) {
		for _, bits := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7fffffff} {
			h := F32ToBF16(math.Float32frombits(bits))
			assert.True(t, math.IsNaN(float64(BF16ToF32(h))), "%#08x → %#04x", bits, h)
		}
	})
	t.Run("widening is exact", func(t *testing.T) {
		for h := 0; h < 1<<16; h++ {
			f := BF16ToF32(uint16(h))
			require.Equal(t, uint32(h)<<16, math.Float32bits(f))
			if f == f {
				require.Equal(t, uint16(h), F32ToBF16(f))
			}
		}
	})
}

func TestTensorDecodeAgreesWithAt(t *testing.T) {
	vals := []float32{0, 1, -2.5, 65504, float32(math.Ldexp(1, -24)), 0.333251953125}
	for _, dt := range []DType{F32, F16, BF16} {
		t.Run(string(dt), func(t *testing.T) {
			buf := make([]byte, 4*len(vals))
			tensor := &Tensor{Name: "x", DType: dt, Shape: []int{2, 3}, Data: encodeFloats(buf, vals, dt)}
			assert.Equal(t, 6, tensor.Len())
			assert.Equal(t, 2, tensor.Rows())
			assert.Equal(t, 3, tensor.Cols())
			all := tensor.Float32s()
			for i := range vals {
				assert.Equal(t, tensor.At(i), all[i])
			}
			part := make([]float32, 2)
			tensor.DecodeRange(part, 3)
			assert.Equal(t, all[3:5], part)
			if dt != BF16 { // every value above is exact in F32 and F16
				assert.Equal(t, vals, all)
			}
		})
	}
}

func TestCheckShapeNamesTheTensor(t *testing.T) {
	tensor := &Tensor{Name: "model.norm.weight", DType: F32, Shape: []int{4}}
	require.NoError(t, tensor.CheckShape(4))
	assert.ErrorContains(t, tensor.CheckShape(5), `"model.norm.weight"`)
	assert.ErrorContains(t, tensor.CheckShape(4, 1), "[4 1]")
}
