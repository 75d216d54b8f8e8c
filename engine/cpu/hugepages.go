package cpu

import (
	"context"
	"fmt"
	"log/slog"
	"time"
	"unsafe"

	"github.com/entropix-eval/entropix-eval/engine"
)

// A batch-1 decode step streams every weight matrix from memory once, so the
// rate memory delivers them at is the step's speed. A model file is mapped in
// 4 KiB pages, and a stream through hundreds of megabytes of them misses the TLB
// on every page (under virtualisation each miss walks two sets of page tables):
// on the project machine two threads streamed stories110M's 438 MB at about 24
// GB/s from the mapped file and about 26 from a copy in 2 MiB pages. So when
// memory allows, New copies the matrices a step streams into anonymous memory the
// kernel backs with 2 MiB pages (transparent huge pages, madvise mode) and points
// the engine's matrices at the copy. The bytes are the same, so is every value.

// hugePageMin is the smallest total of streamed weights worth a copy: below a
// few tens of megabytes they stay largely in the last-level cache between steps.
// Tests lower it.
var hugePageMin int64 = 64 << 20

// hugeWeights is the copy of the streamed matrices, released by Close.
type hugeWeights struct {
	mapping []byte // for unmapHuge
	bytes   int64  // the weights in it
}

// streamedMatrices are the matrices every step reads whole: each layer's and the
// output head (the embedding itself when tied). An untied embedding is read a row
// per token and stays where it is.
func streamedMatrices(w *weights) []*matrix {
	var ms []*matrix
	for i := range w.layers {
		L := &w.layers[i]
		ms = append(ms, L.wq, L.wk, L.wv, L.wo, L.wg, L.wu, L.wd)
	}
	return append(ms, w.head)
}

// matrixBytes is m's size in its stored dtype.
func matrixBytes(m *matrix) int64 {
	return int64(m.rows) * int64(m.cols) * int64(m.dtype.Size())
}

// moveToHugePages copies w's streamed matrices into huge pages and repoints
// them, when the platform offers transparent huge pages, the weights are at least
// hugePageMin and at most half of free (the memory left after the engine's own
// plan; the prefix cache takes at most the other half). It returns nil, leaving
// w as it was, otherwise.
func moveToHugePages(w *weights, free int64) (*hugeWeights, error) {
	ms := streamedMatrices(w)
	const align = 64 // every matrix starts on a cache line
	var total int64
	for _, m := range ms {
		total += (matrixBytes(m) + align - 1) &^ (align - 1)
	}
	if total < hugePageMin || total > free/2 || !hugePagesAvailable() {
		return nil, nil
	}
	start := time.Now()
	mem, mapping, err := mapHuge(int(total))
	if err != nil {
		return nil, fmt.Errorf("copy %s of weights to huge pages: %w", engine.GiB(total), err)
	}
	off := 0
	for _, m := range ms {
		n := m.rows * m.cols
		switch m.dtype {
		case engine.F32:
			dst := unsafe.Slice((*float32)(unsafe.Pointer(&mem[off])), n)
			copy(dst, m.f32)
			m.f32 = dst
		default:
			dst := unsafe.Slice((*uint16)(unsafe.Pointer(&mem[off])), n)
			copy(dst, m.u16)
			m.u16 = dst
		}
		off += int((matrixBytes(m) + align - 1) &^ (align - 1))
	}
	level := slog.LevelDebug
	if time.Since(start) >= time.Second { // a large model: say where the start-up time went
		level = slog.LevelInfo
	}
	slog.Log(context.Background(), level, "cpu engine: weights copied to 2 MiB pages for faster streaming",
		"size", engine.GiB(total), "took", time.Since(start).Round(time.Millisecond))
	return &hugeWeights{mapping: mapping, bytes: total}, nil
}

// release unmaps the copy; nothing may read the matrices afterwards.
func (h *hugeWeights) release() {
	if h != nil && h.mapping != nil {
		unmapHuge(h.mapping)
		h.mapping = nil
	}
}
