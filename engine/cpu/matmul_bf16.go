package cpu

import (
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
)

// panelRows is the height of a repacked weight panel: two ZMM registers of 16
// float32 accumulators, one per row.
const panelRows = 32

// bf16Panels is a weight matrix rounded to bfloat16 and repacked once at load for
// the BF16 kernels: panel p holds rows [32p, 32p+32), pair by pair, each uint32 one
// row's elements 2kp (low half) and 2kp+1 (high half), so that one 64-byte load
// gives 16 rows of a pair in VDPBF16PS's layout. Rows past the matrix and the pad
// of an odd column count are zero.
type bf16Panels struct {
	rows, cols, k2 int
	data           []uint32 // data[(p·k2 + kp)·32 + r]
	expFloor       []int32  // per panel: bf16ExpFloor over its weights (bf16_fma.go)
}

func (p *bf16Panels) panels() int { return (p.rows + panelRows - 1) / panelRows }

// bf16PanelBytes is the memory newBF16Panels takes for a rows × cols matrix.
func bf16PanelBytes(rows, cols int) int64 {
	return int64((rows+panelRows-1)/panelRows) * int64((cols+1)/2) * panelRows * 4
}

// newBF16Panels rounds m to bfloat16 (a BF16 matrix is copied as it is) and
// repacks it into panels, in data (zeroed, bf16PanelBytes long) or, when data is
// nil, in memory it allocates. A subnormal weight is stored as a zero of its
// sign, which is how the contract reads it (DAZ), so that the FMA kernels, which
// have no DAZ, can take its panel.
func newBF16Panels(m *matrix, data []uint32) *bf16Panels {
	p := &bf16Panels{rows: m.rows, cols: m.cols, k2: (m.cols + 1) / 2, data: data}
	if p.data == nil {
		p.data = make([]uint32, bf16PanelBytes(m.rows, m.cols)/4)
	}
	p.expFloor = make([]int32, p.panels())
	for i := range p.expFloor {
		p.expFloor[i] = 255
	}
	row := make([]uint16, 2*p.k2)
	wide := make([]float32, m.cols)
	for r := range m.rows {
		switch m.dtype {
		case engine.BF16:
			copy(row, m.u16[r*m.cols:(r+1)*m.cols])
		default:
			for i, v := range m.row(r, wide) {
				row[i] = roundBF16(v)
			}
		}
		floor := int(p.expFloor[r/panelRows])
		for i, h := range row {
			if h&0x7f80 == 0 {
				h &= 0x8000
				row[i] = h
			}
			floor = bf16ExpFloor(h, floor)
		}
		p.expFloor[r/panelRows] = int32(floor)
		base := (r/panelRows)*p.k2*panelRows + r%panelRows
		for kp := range p.k2 {
			p.data[base+kp*panelRows] = uint32(row[2*kp]) | uint32(row[2*kp+1])<<16
		}
	}
	return p
}

// bf16Block is how many tokens from t0 of n one kernel call takes: 12 (the main
// kernel's register block) while it can, then 4, then single tokens.
func bf16Block(t0, n int) int { return largestBlock(n-t0, 12, 4) }

// largestBlock is the first of sizes (largest first) that rest tokens can fill, else 1.
func largestBlock(rest int, sizes ...int) int {
	for _, size := range sizes {
		if rest >= size {
			return size
		}
	}
	return 1
}

// packBF16 rounds the n tokens of x (stride cols) to bfloat16 pairs, token t's
// pair kp at dst[t·k2 + kp] (element 2kp in the low half), a zero padding an odd
// cols: the row VDPBF16PS broadcasts one dword of per pair.
func packBF16(dst []uint32, x []float32, n, cols int) {
	k2 := (cols + 1) / 2
	if cols%2 == 0 { // even rows pack back to back: the tokens are one run of pairs
		x, dst = x[:n*cols], dst[:n*k2]
		i := 0
		if m := len(x) &^ 15; useRoundAsm && m > 0 {
			roundBF16AVX512(&dst[0], &x[0], m)
			i = m
		}
		for ; i < len(x); i += 2 {
			dst[i/2] = uint32(roundBF16(x[i])) | uint32(roundBF16(x[i+1]))<<16
		}
		return
	}
	for t := range n { // odd rows: each ends in a pair padded with a zero
		xt := x[t*cols : (t+1)*cols]
		d := dst[t*k2 : (t+1)*k2]
		for kp := range cols / 2 {
			d[kp] = uint32(roundBF16(xt[2*kp])) | uint32(roundBF16(xt[2*kp+1]))<<16
		}
		d[k2-1] = uint32(roundBF16(xt[cols-1]))
	}
}

// bf16State is what the BF16 precision adds to an engine: the repacked weights
// and the packed activations of the current matmul input (matmuls packs an input
// that several matmuls read once for all of them).
type bf16State struct {
	panels    map[*matrix]*bf16Panels
	x         []uint32
	xf        []float32   // with useBF16FMA: x widened to float32 (widenBF16)
	tokFloors []int       // and each token's exponent floor
	parts     [][]float32 // per thread: the partial sums of a k-blocked panel
}

// pack packs x's n rows of cols into s.x, splitting the rows over threads.
func (s *bf16State) pack(p *pool, x []float32, n, cols, threads int) {
	x = x[:n*cols]
	k2 := (cols + 1) / 2
	s.x = growTo(s.x, n*k2)
	if n*cols < 1<<15 {
		threads = 1
	}
	if !useBF16FMA {
		p.blocksOf(threads, n, func(_, lo, hi int) {
			packBF16(s.x[lo*k2:hi*k2], x[lo*cols:hi*cols], hi-lo, cols)
		})
		return
	}
	s.xf = growTo(s.xf, 2*n*k2)
	s.tokFloors = growTo(s.tokFloors, n)
	p.blocksOf(threads, n, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			s.tokFloors[t] = packWideBF16(s.x[t*k2:(t+1)*k2], s.xf[2*t*k2:2*(t+1)*k2], x[t*cols:(t+1)*cols], 1, cols)
		}
	})
}

// newBF16State repacks every weight matrix of w (the embedding only as the tied
// lm head; its rows are still looked up from the checkpoint), into huge when it
// is not nil (hugePanels).
func newBF16State(w *weights, huge *hugeWeights) *bf16State {
	s := &bf16State{panels: map[*matrix]*bf16Panels{}}
	for _, m := range streamedMatrices(w) {
		var data []uint32
		if huge != nil {
			n := bf16PanelBytes(m.rows, m.cols)
			data = unsafe.Slice((*uint32)(huge.take(n)), n/4)
		}
		s.panels[m] = newBF16Panels(m, data)
	}
	return s
}

// bf16PlanBytes is the memory BF16 precision adds for a model: the panels and the
// packed activations of the largest step (rows tokens).
func bf16PlanBytes(c *engine.Config, rows int64) int64 {
	hid, qDim, kvDim, inter := c.HiddenSize, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim, c.Intermediate
	perLayer := bf16PanelBytes(qDim, hid) + 2*bf16PanelBytes(kvDim, hid) + bf16PanelBytes(hid, qDim) +
		2*bf16PanelBytes(inter, hid) + bf16PanelBytes(hid, inter)
	widest := int64(max(hid, qDim, inter) + 1)
	packed := rows * widest / 2 * 4
	if useBF16FMA {
		packed *= 3 // and widened to float32
	}
	return int64(c.Layers)*perLayer + bf16PanelBytes(c.VocabSize, hid) + packed
}

// matmulBF16 is matmul in BF16 precision (see bf16.go for the contract). Panels
// are split into one contiguous run per thread, each panel computed for all n
// tokens (bf16Panel); every value comes out of its own chain, so neither the
// split nor n changes a bit.
func (e *Engine) matmulBF16(out, x []float32, n int, p *bf16Panels, bias []float32, accumulate bool) {
	e.bf16.pack(e.pool, x, n, p.cols, e.threads)
	e.matmulBF16Packed(out, n, p, bias, accumulate)
}

// matmulBF16Packed is matmulBF16 on the input already in e.bf16.x.
func (e *Engine) matmulBF16Packed(out []float32, n int, p *bf16Panels, bias []float32, accumulate bool) {
	s := e.bf16
	threads := e.threads
	if n*p.rows*p.cols < 1<<15 {
		threads = 1
	}
	for len(s.parts) < threads {
		s.parts = append(s.parts, nil)
	}
	for w := range threads {
		s.parts[w] = growTo(s.parts[w], n*panelRows)
	}
	e.pool.blocksOf(threads, p.panels(), func(worker, lo, hi int) {
		for panel := lo; panel < hi; panel++ {
			s.panel(p, panel, n, out, bias, accumulate, s.parts[worker])
		}
	})
}

// panel computes one panel of p for the n tokens packed in s: with the FMA
// kernels where they give the contract's bits (token blocks under the floor
// take the Go kernel), else bf16Panel.
func (s *bf16State) panel(p *bf16Panels, panel, n int, out, bias []float32, accumulate bool, part []float32) {
	if useBF16FMA {
		bf16PanelFMA(p, panel, s.x, s.xf, s.tokFloors, n, out, bias, accumulate, part)
		return
	}
	bf16Panel(p, panel, s.x, n, out, bias, accumulate, part)
}

// bf16KBlock is the pairs of one k-block: a panel's block (16 KiB) stays in L1
// beside a token block's (6 KiB) while the token blocks stream past it.
const bf16KBlock = 128

// noBias stands in for a missing bias in the assembly kernels' masked adds.
var noBias [panelRows]float32

// bf16Panel computes one panel's rows for the n packed tokens of xs (k2 dwords
// each) into out (n rows of p.rows). The assembly runs k-block by k-block, each
// over all token blocks, carrying every chain's partial sum in part (n·32 floats):
// the chain and so the bits are those of one pass, which the Go kernel makes.
func bf16Panel(p *bf16Panels, panel int, xs []uint32, n int, out, bias []float32, accumulate bool, part []float32) {
	r0 := panel * panelRows
	valid := min(panelRows, p.rows-r0)
	if !useBF16Asm {
		for t0 := 0; t0 < n; {
			nr := bf16Block(t0, n)
			bf16KernelGo(p, panel, xs[t0*p.k2:(t0+nr)*p.k2], nr, out[t0*p.rows:(t0+nr)*p.rows], bias, accumulate)
			t0 += nr
		}
		return
	}
	w := p.data[panel*p.k2*panelRows : (panel+1)*p.k2*panelRows]
	_, _, _ = xs[n*p.k2-1], out[(n-1)*p.rows+r0+valid-1], part[n*panelRows-1]
	mask := uint32(1<<valid - 1)
	var biasMask, accMask uint32
	b := &noBias[0] // masked off, but a nil address would cost a fault-suppression assist per access
	if bias != nil {
		b, biasMask = &bias[r0], mask
	}
	if accumulate {
		accMask = mask
	}
	const f32 = int(unsafe.Sizeof(float32(0)))
	for kb0 := 0; kb0 < p.k2; kb0 += bf16KBlock {
		kb := min(bf16KBlock, p.k2-kb0)
		flags := kBlockFlags(kb0, kb, p.k2, 2) // final: bias, accumulate, store
		for t0 := 0; t0 < n; {
			nr := bf16Block(t0, n)
			k := bf16Kernel1
			switch nr {
			case 12:
				k = bf16Kernel12
			case 4:
				k = bf16Kernel4
			}
			k(&w[kb0*panelRows], &xs[t0*p.k2+kb0], p.k2*f32, kb, &out[t0*p.rows+r0], p.rows*f32, b,
				&part[t0*panelRows], flags, mask, biasMask, accMask)
			t0 += nr
		}
	}
}

// kBlockFlags are the BF16 kernels' flags for the k-block [kb0, kb0+kb) of k2
// pairs: bit 0 continues the chains from part after the first block, and the
// last block takes final's bits (finish into out).
func kBlockFlags(kb0, kb, k2, final int) int {
	flags := 0
	if kb0 > 0 {
		flags |= 1
	}
	if kb0+kb == k2 {
		flags |= final
	}
	return flags
}

// bf16KernelGo computes panel's rows for nr packed tokens (xb, k2 dwords each)
// into out (nr rows of p.rows): bf16Dot, the contract itself, on unpacked pairs.
func bf16KernelGo(p *bf16Panels, panel int, xb []uint32, nr int, out, bias []float32, accumulate bool) {
	r0 := panel * panelRows
	valid := min(panelRows, p.rows-r0)
	w := p.data[panel*p.k2*panelRows : (panel+1)*p.k2*panelRows]
	k := 2 * p.k2
	xs := make([]uint16, nr*k+k)
	for j := range nr {
		for kp := range p.k2 {
			v := xb[j*p.k2+kp]
			xs[j*k+2*kp], xs[j*k+2*kp+1] = uint16(v), uint16(v>>16)
		}
	}
	wr := xs[nr*k:]
	for r := range valid {
		for kp := range p.k2 {
			v := w[kp*panelRows+r]
			wr[2*kp], wr[2*kp+1] = uint16(v), uint16(v>>16)
		}
		for j := range nr {
			v := bf16Dot(wr, xs[j*k:(j+1)*k])
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
