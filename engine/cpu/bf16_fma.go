package cpu

import (
	"math"
	"slices"
	"sync/atomic"
	"unsafe"
)

// BF16 precision without AVX512_BF16: the FMA kernels (bf16_fma_amd64.s,
// bf16_fma_arm64.s) widen each bfloat16 to float32 and add its product to the
// chain with VFMADD231PS or FMLA, one rounding of the exact product plus the
// sum. That is dpStep (bf16.go) except where dpStep flushes: a subnormal input
// (DAZ) or a subnormal step result (FTZ).
// Neither can happen when every product is a multiple of 2⁻¹²⁶:
//
//   - A normal bfloat16 with exponent field e is an integer times 2^(e−134), so a
//     product of a weight (field ew) and an activation (field ex) is an integer
//     times 2^(ew+ex−268), a multiple of 2⁻¹²⁶ when ew + ex ≥ 142.
//   - The chain starts at +0, and a sum of multiples of 2⁻¹²⁶ rounded to float32
//     stays one: a float32 of magnitude at least 2⁻¹⁰³ has a spacing ≥ 2⁻¹²⁶, a
//     power of two, so rounding lands on a multiple; below 2⁻¹⁰³ the multiple has
//     at most 23 significant bits and is exact. A nonzero multiple of 2⁻¹²⁶ is at
//     least the smallest normal, so no step result is ever subnormal.
//   - Zeros and infinities give the same products both ways on x86 (∞·0 the
//     default NaN, a NaN chain carried on); rounded activations are never subnormal
//     (roundBF16), and subnormal weights are zeros of their sign in the panels
//     (newBF16Panels: the contract reads them so).
//
// So bf16FMAExact holds a panel's smallest weight exponent field against the
// input's smallest activation one (NaN in either rules the panel out: the NaN a
// fused multiply-add returns need not be dpNaN's); a panel it rules out runs the
// Go kernel. Real weights and activations sit far above that floor (2⁻⁵⁶ each).
//
// Without bf16FMATakesInf (arm64) the kernels must also never meet an invalid
// operation: FMLA then returns the ARM default NaN 0x7fc00000, not dpNaN's
// 0xffc00000 (Go leaves FPCR.DN clear, but that only keeps NaN operands). With
// no infinite and no NaN input there is none: a fused multiply-add forms the
// product of finite inputs exactly, never as ∞, so neither ∞·0 nor ∞ − ∞ can
// arise, even once a chain has overflowed (±∞ plus a finite product stays ±∞,
// as dpStep's float64 sum rounds). Overflow itself needs no bound: the rounded
// fused result and dpStep's both go to ±∞ at float32's threshold. So there an
// infinite weight rules its panel out, and an infinite activation its token
// block, like a NaN.

// bf16FMAMinExpSum is the least ew + ex for which every product is a multiple
// of 2⁻¹²⁶.
const bf16FMAMinExpSum = 142

// bf16NoFMA is the exponent floor of values the FMA kernels may not take.
const bf16NoFMA = -1 << 20

// bf16ExpFloor folds h into an exponent floor (start from 255): zeros (and
// infinities where bf16FMATakesInf) leave it, a NaN or subnormal (or infinity)
// sets bf16NoFMA, a normal value takes the smaller exponent field.
func bf16ExpFloor(h uint16, floor int) int {
	e := int(h>>7) & 0xff
	switch {
	case h&0x7fff == 0 || h&0x7fff == 0x7f80 && bf16FMATakesInf:
		return floor
	case e == 0 || e == 0xff:
		return bf16NoFMA
	}
	return min(floor, e)
}

// bf16FMAExact reports whether the FMA kernels give the contract's bits for
// panel of p on activations whose exponent floor is xFloor.
func bf16FMAExact(p *bf16Panels, panel, xFloor int) bool {
	return int(p.expFloor[panel])+xFloor >= bf16FMAMinExpSum
}

// widenBF16 writes the packed pairs of src as float32 (element 2kp, then 2kp+1)
// to dst and returns their exponent floor.
func widenBF16(dst []float32, src []uint32) int {
	dst = dst[:2*len(src)]
	floor := 255
	for i, v := range src {
		lo, hi := uint16(v), uint16(v>>16)
		floor = bf16ExpFloor(hi, bf16ExpFloor(lo, floor))
		dst[2*i] = math.Float32frombits(v << 16)
		dst[2*i+1] = math.Float32frombits(v &^ 0xffff)
	}
	return floor
}

// packWideBF16 is packBF16 into dst and widenBF16 of the result into wide, in
// one AVX2 or NEON pass where the rows pack back to back (even cols); it returns
// the exponent floor.
func packWideBF16(dst []uint32, wide []float32, x []float32, n, cols int) int {
	k2 := (cols + 1) / 2
	dst, wide = dst[:n*k2], wide[:2*n*k2]
	m := n * cols &^ 15
	if cols%2 == 1 || !useSIMD && !useNEON || m == 0 {
		packBF16(dst, x, n, cols)
		return widenBF16(wide, dst)
	}
	floor := roundWidenBF16(&dst[0], &wide[0], &x[0], m)
	packBF16(dst[m/2:], x[m:], 1, n*cols-m) // the even tail, one run of pairs
	return min(floor, widenBF16(wide[m:], dst[m/2:]))
}

// bf16FMABlock is how many tokens from t0 of n one FMA kernel call takes.
func bf16FMABlock(t0, n int) int { return largestBlock(n-t0, 6, 4, 2) }

// bf16FallbackBlocks counts the token blocks bf16PanelFMA left to the Go kernel
// (a token under the exponent floor): what tests read to see which path ran.
var bf16FallbackBlocks atomic.Int64

// bf16PanelFMA is bf16Panel with the FMA kernels, on the n tokens of xf
// (widenBF16's rows of 2·k2 floats; xs holds the same tokens packed, for the Go
// kernel). floors gives each token's exponent floor; a token block under the floor
// runs the Go kernel instead, so one odd token slows only its block (nil floors
// run every block on the FMA kernels: what the tests use to show the raw kernels). Like the AVX512_BF16 path it
// runs k-block by k-block, carrying the chains in part; six- and four-token
// blocks take the panel as two halves of 16 rows. A partial panel is finished
// here from part: the kernels store whole registers.
func bf16PanelFMA(p *bf16Panels, panel int, xs []uint32, xf []float32, floors []int, n int, out, bias []float32, accumulate bool, part []float32) {
	r0 := panel * panelRows
	valid := min(panelRows, p.rows-r0)
	whole := valid == panelRows
	k := 2 * p.k2
	w := p.data[panel*p.k2*panelRows : (panel+1)*p.k2*panelRows]
	_, _, _ = xf[n*k-1], out[(n-1)*p.rows+r0+valid-1], part[n*panelRows-1]
	exact := func(t0, nr int) bool {
		return floors == nil || bf16FMAExact(p, panel, slices.Min(floors[t0:t0+nr]))
	}
	finish := 2
	b := &noBias[0]
	if bias != nil && whole {
		b, finish = &bias[r0], finish|4
	}
	if accumulate {
		finish |= 8
	}
	const f32 = int(unsafe.Sizeof(float32(0)))
	for kb0 := 0; kb0 < p.k2; kb0 += bf16KBlock {
		kb := min(bf16KBlock, p.k2-kb0)
		flags := kBlockFlags(kb0, kb, p.k2, finish)
		if !whole {
			flags &^= finish // a partial panel is finished below, from part
		}
		for t0 := 0; t0 < n; {
			nr := bf16FMABlock(t0, n)
			if !exact(t0, nr) {
				t0 += nr
				continue
			}
			x, pt := &xf[t0*k+2*kb0], &part[t0*panelRows]
			o := pt // never written unless whole
			if whole {
				o = &out[t0*p.rows+r0]
			}
			switch nr {
			case 6, 4:
				kernel := bf16FMAKernel4
				if nr == 6 {
					kernel = bf16FMAKernel6
				}
				for h := 0; h < panelRows; h += 16 {
					kernel(&w[kb0*panelRows+h], x, k*f32, kb, (*float32)(unsafe.Add(unsafe.Pointer(o), h*f32)), p.rows*f32,
						(*float32)(unsafe.Add(unsafe.Pointer(b), h*f32)), &part[t0*panelRows+h], flags)
				}
			case 2:
				bf16FMAKernel2(&w[kb0*panelRows], x, k*f32, kb, o, p.rows*f32, b, pt, flags)
			default:
				bf16FMAKernel1(&w[kb0*panelRows], x, k*f32, kb, o, p.rows*f32, b, pt, flags)
			}
			t0 += nr
		}
	}
	for t0 := 0; t0 < n; {
		nr := bf16FMABlock(t0, n)
		switch {
		case !exact(t0, nr):
			bf16FallbackBlocks.Add(1)
			bf16KernelGo(p, panel, xs[t0*p.k2:(t0+nr)*p.k2], nr, out[t0*p.rows:(t0+nr)*p.rows], bias, accumulate)
		case !whole:
			for j := t0; j < t0+nr; j++ { // as bf16KernelGo finishes a value
				for r := range valid {
					v := part[j*panelRows+r]
					if bias != nil {
						v += bias[r0+r]
					}
					o := &out[j*p.rows+r0+r]
					if accumulate {
						*o += v
					} else {
						*o = v
					}
				}
			}
		}
		t0 += nr
	}
}
