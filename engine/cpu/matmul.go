package cpu

// tileFloats bounds one widened weight tile (≈24 KiB) so it stays in L1 while every
// token of the batch streams past it: each weight row is read from memory and
// widened once per step for the whole batch, which is where batching pays off.
const tileFloats = 6144

// tileRows is how many rows of m one task widens and multiplies at a time.
// It is even where it can be, so the two-row kernels cover the whole tile.
func tileRows(m *matrix) int {
	r := max(1, min(64, tileFloats/m.cols))
	if r > 1 {
		r &^= 1
	}
	return r
}

// matmul sets out[t·rows + r] = W[r]·x[t] (+ bias[r]) for the n tokens in x
// (stride cols), or adds it to out when accumulate is set (the residual adds).
// Rows are split into tiles, one contiguous run of tiles per thread; each value is
// one dot product in the fixed order of dot.go (dot, dotBF16/dotF16, or dot4/dot2x4 which share loads
// across tokens and rows but give the same bits), so it is bit-identical whatever
// n, the tiling or the thread count.
func (e *Engine) matmul(out, x []float32, n int, w *matrix, bias []float32, accumulate bool) {
	if e.bf16 != nil { // BF16 precision: matmul_bf16.go
		e.matmulBF16(out, x, n, e.bf16.panels[w], bias, accumulate)
		return
	}
	if n == 1 {
		e.matvec(out, x, w, bias, accumulate)
		return
	}
	rows, cols := w.rows, w.cols
	tr := tileRows(w)
	tiles := (rows + tr - 1) / tr
	// Small products are not worth waking goroutines for.
	threads := e.threads
	if n*rows*cols < 1<<15 {
		threads = 1
	}
	e.pool.blocksOf(threads, tiles, func(worker, lo, hi int) {
		for tile := lo; tile < hi; tile++ {
			e.matmulTile(out, x, n, w, bias, accumulate, worker, tile*tr, min(rows, (tile+1)*tr))
		}
	})
}

// matmulJob is one weight matmul of a group that reads the same input.
type matmulJob struct {
	out        []float32
	w          *matrix
	bias       []float32
	accumulate bool
}

// matmuls runs jobs that all read the same n tokens of x (q/k/v, gate/up), as
// matmul does each; BF16 precision rounds x to bfloat16 once for all of them.
func (e *Engine) matmuls(x []float32, n int, jobs ...matmulJob) {
	if e.bf16 != nil {
		e.bf16.pack(e.pool, x, n, jobs[0].w.cols, e.threads)
		for _, j := range jobs {
			e.matmulBF16Packed(j.out, n, e.bf16.panels[j.w], j.bias, j.accumulate)
		}
		return
	}
	if n == 1 {
		e.matvecs(x, jobs...)
		return
	}
	for _, j := range jobs {
		e.matmul(j.out, x, n, j.w, j.bias, j.accumulate)
	}
}

// matmulTile computes rows [r0, r1) of W for all n tokens.
func (e *Engine) matmulTile(out, x []float32, n int, w *matrix, bias []float32, accumulate bool, worker, r0, r1 int) {
	wt := w.rowRange(r0, r1, e.scratch[worker].tile)
	t := 0
	if width := tokenBlock(); width > 0 && n >= 4 {
		// The first token block asks for the next tile's weights, a piece
		// before each row pair, so they are in L2 when rowRange widens them
		// instead of arriving from memory one stream at a time.
		next := w.storedRows(r1, r1+(r1-r0))
		// Blocks of tokens and two rows at a time share each load (same bits
		// as dot): six tokens on AVX2 alone (eight loads per twelve products),
		// then four, as many as fit.
		for ; width >= 4; width -= 2 {
			for ; t+width <= n; t += width {
				blockTile(out, x, t, width, 0, w, wt, bias, accumulate, r0, r1, next)
				next = nil
			}
		}
		if t < n {
			// The last tokens as the end of a block of four that overlaps the
			// one before: the overlap's values are computed again (the same
			// bits) but not stored, so an accumulating matmul adds each value
			// once.
			blockTile(out, x, n-4, 4, 4-(n-t), w, wt, bias, accumulate, r0, r1, next)
			t = n
		}
	}
	rows, cols := w.rows, w.cols
	for ; t < n; t++ {
		xt := x[t*cols : (t+1)*cols]
		o := out[t*rows : (t+1)*rows]
		for r := r0; r < r1; r++ {
			store(o, r, dot(wt[(r-r0)*cols:(r-r0+1)*cols], xt), bias, accumulate)
		}
	}
}

// tokenBlock is how many tokens the batched matmul's register block takes (0:
// no block kernel, one token at a time).
func tokenBlock() int {
	switch {
	case useSIMD && !useAVX512:
		return 6
	case useSIMD || useNEON:
		return 4
	}
	return 0
}

// blockTile computes rows [r0, r1) (widened in wt) for tokens t..t+width−1
// (width 4 or 6) and stores those from t+skip on, prefetching pf (may be empty)
// in one piece per row pair.
func blockTile(out, x []float32, t, width, skip int, w *matrix, wt, bias []float32, accumulate bool, r0, r1 int, pf []byte) {
	rows, cols := w.rows, w.cols
	var s [12]float32 // row j, token k at width·j + k
	xt := x[t*cols : (t+width)*cols]
	piece := (len(pf)/max(1, (r1-r0)/2) + 63) &^ 63
	r := r0
	for ; r+2 <= r1; r += 2 { // two rows at a time
		if len(pf) > 0 {
			k := min(piece, len(pf))
			prefetchL2(&pf[0], k)
			pf = pf[k:]
		}
		pair := wt[(r-r0)*cols : (r-r0+2)*cols]
		if width == 6 {
			dot2x6(pair, cols, xt, cols, &s)
		} else {
			dot2x4(pair, cols, xt, cols, (*[8]float32)(s[:8]))
		}
		storePair(out, rows, t, r, s[:], width, skip, bias, accumulate)
	}
	for ; r < r1; r++ {
		row := wt[(r-r0)*cols : (r-r0+1)*cols]
		for k := skip; k < width; k++ {
			store(out[(t+k)*rows:(t+k+1)*rows], r, dot(row, xt[k*cols:(k+1)*cols]), bias, accumulate)
		}
	}
}

func store(o []float32, r int, v float32, bias []float32, accumulate bool) {
	if bias != nil {
		v += bias[r]
	}
	if accumulate {
		o[r] += v
	} else {
		o[r] = v
	}
}

// storePair stores blockTile's sums s (row j, token k at width·j + k) for rows
// r, r+1 and tokens t+skip..t+width−1. It runs once per register block, so the
// common case (no bias, no skip) takes one bounds check, not twelve.
func storePair(out []float32, rows, t, r int, s []float32, width, skip int, bias []float32, accumulate bool) {
	if bias != nil || skip != 0 {
		for k := skip; k < width; k++ {
			o := out[(t+k)*rows : (t+k+1)*rows]
			store(o, r, s[k], bias, accumulate)
			store(o, r+1, s[width+k], bias, accumulate)
		}
		return
	}
	o := out[t*rows+r : (t+width-1)*rows+r+2]
	s = s[:2*width]
	if accumulate {
		for k := range width {
			o[k*rows] += s[k]
			o[k*rows+1] += s[width+k]
		}
		return
	}
	for k := range width {
		o[k*rows] = s[k]
		o[k*rows+1] = s[width+k]
	}
}
