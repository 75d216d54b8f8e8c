package cpu

import "github.com/entropix-eval/entropix-eval/engine"

// matvecRows is how many rows one task of the single-token matmul covers: enough
// to keep a kernel call's fixed costs small, few enough that a thread done with its
// block can still even out the end of the step by stealing.
const matvecRows = 16

// matvec is matmul for one token: out[r] = W[r]·x (+ bias[r]) for every row, or
// added to out when accumulate is set. No weight tile is widened into scratch:
// each row is streamed once from memory and widened inside the kernel. Every
// value is dot's on the widened row, bit for bit (dot.go).
func (e *Engine) matvec(out, x []float32, w *matrix, bias []float32, accumulate bool) {
	e.matvecs(x, matmulJob{out, w, bias, accumulate})
}

// matvecs runs matvec for every job, all reading x, in one parallel section
// over the jobs' row tiles laid end to end (q/k/v, gate/up). At batch 1 a step
// is a stream of weights from memory with gaps where no thread streams: each
// section costs a hand-off, a wait for the slower thread and a fresh start of
// the hardware prefetchers, so one section instead of three keeps both cores
// streaming longer. The split changes no value: each row is one dot, whole.
func (e *Engine) matvecs(x []float32, jobs ...matmulJob) {
	cols := jobs[0].w.cols // every job's: they read the same x
	x = x[:cols]
	xp := x
	ends := e.buf.tileEnds[:0]
	tiles, work, evenOdd := 0, 0, false
	for _, j := range jobs {
		tiles += (j.w.rows + matvecRows - 1) / matvecRows
		work += j.w.rows * cols
		ends = append(ends, tiles)
		evenOdd = evenOdd || evenOddKernel(j.w)
	}
	e.buf.tileEnds = ends
	if evenOdd {
		e.buf.xEvenOdd = growTo(e.buf.xEvenOdd, cols)
		xp = e.buf.xEvenOdd
		evenOddX(xp, x)
	}
	threads := e.threads
	if work < 1<<15 { // not worth a second thread
		threads = 1
	}
	e.pool.blocksOf(threads, tiles, func(_, lo, hi int) {
		start := 0
		for k, j := range jobs {
			if lo < ends[k] && hi > start {
				rows := j.w.rows
				r0, r1 := (max(lo, start)-start)*matvecRows, min(rows, (min(hi, ends[k])-start)*matvecRows)
				matvecRange(j.out, x, xp, j.w, j.bias, j.accumulate, r0, r1)
			}
			start = ends[k]
		}
	})
}

// evenOddKernel tells whether w's single-token rows run dotBF16EvenOddAVX512
// (BF16 weights, AVX-512, at least one full run of lanes), which reads the
// activations in evenOddX's order.
func evenOddKernel(w *matrix) bool {
	return w.dtype == engine.BF16 && useAVX512 && w.cols >= dotLanes
}

// matvecRange computes rows [r0, r1) of matvec; xp is evenOddX(x) where
// evenOddKernel(w), else x.
func matvecRange(out, x, xp []float32, w *matrix, bias []float32, accumulate bool, r0, r1 int) {
	cols := w.cols
	if evenOddKernel(w) {
		var s [matvecRows]float32
		lanes := cols &^ (dotLanes - 1)
		for r := r0; r < r1; r += len(s) {
			n := min(len(s), r1-r)
			dotBF16EvenOddAVX512(&w.u16[r*cols], cols, &xp[0], lanes, n, &s[0])
			for j, v := range s[:n] {
				row := w.u16[(r+j)*cols : (r+j+1)*cols]
				for i := lanes; i < cols; i++ { // dot's sequential tail
					v += float32(bf16(row[i]) * x[i])
				}
				store(out, r+j, v, bias, accumulate)
			}
		}
		return
	}
	for r := r0; r < r1; r++ {
		lo, hi := r*cols, (r+1)*cols
		var v float32
		switch w.dtype {
		case engine.F32:
			v = dot(w.f32[lo:hi], x)
		case engine.BF16:
			v = dotBF16(w.u16[lo:hi], x)
		default:
			v = dotF16(w.u16[lo:hi], x)
		}
		store(out, r, v, bias, accumulate)
	}
}

// evenOddX writes x's first len(xp) &^ 31 elements in the lane order of
// dotBF16EvenOddAVX512: each run of 32 as its 16 even elements, then its 16 odd.
func evenOddX(xp, x []float32) {
	for c := 0; c+dotLanes <= len(xp); c += dotLanes {
		xc, pc := x[c:c+dotLanes:c+dotLanes], xp[c:c+dotLanes:c+dotLanes]
		for k := range dotLanes / 2 {
			pc[k], pc[dotLanes/2+k] = xc[2*k], xc[2*k+1]
		}
	}
}
