package cpu

import "math"

// BF16 matmul precision (engine.MatmulBF16): what llama.cpp's AVX512_BF16 path and
// PyTorch do for a BF16 model. Every weight matmul rounds its input activations to
// bfloat16 and takes bfloat16 × bfloat16 dot products accumulated in float32 with
// VDPBF16PS. The contract of one output value y = W[r]·x, fixed here and nowhere
// else, the same in the assembly (bf16_amd64.s) and in Go (bf16Kernel):
//
//   - x is rounded to bfloat16 by roundBF16 (VCVTNEPS2BF16: round to nearest even,
//     subnormal inputs to signed zero, NaN kept quiet); W was rounded once at load
//     the same way (a BF16 checkpoint is taken as it is).
//   - A row of k elements is k2 = ⌈k/2⌉ pairs (a zero pads an odd k). One
//     sequential float32 chain s, starting at +0, takes for each pair p in order
//     s = dpStep(s, W[2p+1], x[2p+1]) then s = dpStep(s, W[2p], x[2p]): the odd
//     element first, as VDPBF16PS does within a dword lane.
//   - dpStep is one half of VDPBF16PS per Intel's SDM: an FMA of the exact
//     product into s with DAZ on its inputs, FTZ on its output, round to nearest
//     even, MXCSR ignored; NaN results follow the operand order the hardware uses
//     (see dpNaN). TestBF16KernelMatchesHardware checks all of it on the CPU.
//   - bias (when present) is added to y, then y is added to the output when the
//     matmul accumulates (out + y), as store does.
//
// A value therefore depends only on its own row and token — never on batch size,
// chunking, threads, the 32-row panel it sits in or the kernel variant — so the
// mode keeps the engine's bit-identity guarantees; it differs from fp32 mode
// (engine.MatmulFP32) by the rounding of activations (and of non-BF16 weights).
//
// The chain is one accumulator per output because the weights are repacked at
// load into 32-row panels with each dword holding one row's pair (bf16Panels), so
// a ZMM register holds 16 rows of one token and no horizontal reduction is needed.

// roundBF16 rounds a float32 to bfloat16 bits as VCVTNEPS2BF16 does (and as
// llama.cpp's GGML_FP32_TO_BF16 does for normal numbers): round to nearest, ties
// to even; a subnormal becomes a zero of its sign (the instruction's DAZ, checked
// on hardware); a NaN keeps its top payload bits and is made quiet.
func roundBF16(f float32) uint16 {
	b := math.Float32bits(f)
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return uint16(b>>16) | 0x40
	case b&0x7f800000 == 0: // zero or subnormal
		return uint16(b>>16) & 0x8000
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// dazBF16 widens bfloat16 bits to float32, a subnormal as a zero of its sign.
func dazBF16(h uint16) float64 {
	if h&0x7f80 == 0 {
		h &= 0x8000
	}
	return float64(math.Float32frombits(uint32(h) << 16))
}

// flushSubnormal is f with a subnormal replaced by a zero of its sign (DAZ / FTZ).
func flushSubnormal(f float32) float32 {
	if b := math.Float32bits(f); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return f
}

// dpStep is s + w·x as one half of VDPBF16PS computes it. The product of two
// bfloat16 values (8 significant bits each) is exact in float64, and the sum of
// two numbers of at most 24 significant bits rounded to float64 (53 ≥ 2·24+2
// bits) and then to float32 is the correctly rounded float32 sum (Figueroa's
// double-rounding bound), so float64 arithmetic emulates the fused operation
// exactly, over- and underflow of the product included.
func dpStep(s float32, w, x uint16) float32 {
	r := float32(float64(s) + dazBF16(w)*dazBF16(x)) // s is never subnormal: FTZ

	if r != r {
		return dpNaN(s, w, x)
	}
	return flushSubnormal(r)
}

// defaultNaN is the x86 "real indefinite" NaN an invalid operation (∞·0, ∞−∞) gives.
const defaultNaN = 0xffc00000

// dpNaN is the NaN VDPBF16PS returns for s + w·x, w being the register operand
// (the weights) and x the broadcast one (the activations): a NaN operand is
// returned made quiet, the weight's before the activation's before the
// accumulator's; with no NaN operand, the default NaN.
func dpNaN(s float32, w, x uint16) float32 {
	isNaN := func(h uint16) bool { return h&0x7fff > 0x7f80 }
	switch {
	case isNaN(w):
		return math.Float32frombits(uint32(w|0x40) << 16)
	case isNaN(x):
		return math.Float32frombits(uint32(x|0x40) << 16)
	case s != s:
		return math.Float32frombits(math.Float32bits(s) | 0x00400000)
	}
	return math.Float32frombits(defaultNaN)
}

// bf16Dot is the contract's y = W·x for one row and one token, bfloat16 bits
// as they are after rounding (len(x) ≥ len(w)). It is the specification the
// kernels are tested against, and the Go kernel's inner loop.
func bf16Dot(w, x []uint16) float32 {
	k := len(w)
	x = x[:k]
	var s float32
	for i := 0; i+1 < k; i += 2 {
		s = dpStep(s, w[i+1], x[i+1])
		s = dpStep(s, w[i], x[i])
	}
	if k%2 == 1 { // the zero-padded pair: its odd half adds +0·+0
		s = dpStep(s, 0, 0)
		s = dpStep(s, w[k-1], x[k-1])
	}
	return s
}
