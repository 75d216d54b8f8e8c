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

// hugeWeights is weight memory in huge pages, released by Close: the copy of
// the streamed matrices, or BF16 precision's panels.
type hugeWeights struct {
	mapping []byte // for unmapHuge
	rest    []byte // the part not handed out yet
}

// lineAligned rounds n up to whole cache lines: each piece starts on one.
func lineAligned(n int64) int64 { return (n + 63) &^ 63 }

// newHugeWeights maps total bytes in huge pages, or returns nil when the
// platform has no transparent huge pages or total is below hugePageMin.
func newHugeWeights(total int64) (*hugeWeights, error) {
	if total < hugePageMin || !hugePagesAvailable() {
		return nil, nil
	}
	mem, mapping, err := mapHuge(int(total))
	if err != nil {
		return nil, fmt.Errorf("map %s of weights in huge pages: %w", engine.GiB(total), err)
	}
	return &hugeWeights{mapping: mapping, rest: mem}, nil
}

// take hands out the next n (> 0) bytes.
func (h *hugeWeights) take(n int64) unsafe.Pointer {
	p := unsafe.Pointer(&h.rest[0])
	h.rest = h.rest[lineAligned(n):]
	return p
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

// streamedBytes is the room size(m) takes for each of w's streamed matrices,
// each piece starting on a cache line.
func streamedBytes(w *weights, size func(m *matrix) int64) int64 {
	var total int64
	for _, m := range streamedMatrices(w) {
		total += lineAligned(size(m))
	}
	return total
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
	total := streamedBytes(w, matrixBytes)
	if total > free/2 {
		return nil, nil
	}
	start := time.Now()
	h, err := newHugeWeights(total)
	if h == nil || err != nil {
		return nil, err
	}
	for _, m := range streamedMatrices(w) {
		n := m.rows * m.cols
		switch p := h.take(matrixBytes(m)); m.dtype {
		case engine.F32:
			dst := unsafe.Slice((*float32)(p), n)
			copy(dst, m.f32)
			m.f32 = dst
		default:
			dst := unsafe.Slice((*uint16)(p), n)
			copy(dst, m.u16)
			m.u16 = dst
		}
	}
	level := slog.LevelDebug
	if time.Since(start) >= time.Second { // a large model: say where the start-up time went
		level = slog.LevelInfo
	}
	slog.Log(context.Background(), level, "cpu engine: weights copied to 2 MiB pages for faster streaming",
		"size", engine.GiB(total), "took", time.Since(start).Round(time.Millisecond))
	return h, nil
}

// hugePanels maps huge pages for BF16 precision's panels of w's streamed
// matrices (the memory plan counts the panels already), or returns nil as
// newHugeWeights does. Panels stream from memory at batch 1 as the weights do.
func hugePanels(w *weights) (*hugeWeights, error) {
	return newHugeWeights(streamedBytes(w, func(m *matrix) int64 { return bf16PanelBytes(m.rows, m.cols) }))
}

// release unmaps the memory; nothing may read the matrices or panels in it
// afterwards.
func (h *hugeWeights) release() {
	if h != nil && h.mapping != nil {
		unmapHuge(h.mapping)
		h.mapping = nil
	}
}
