package cuda

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/entropix-eval/entropix-eval/engine"
)

// packChunkBytes bounds the host staging buffer: a 128k × 2048 embedding is packed and
// uploaded in pieces instead of as one 500 MB slice.
const packChunkBytes = 32 << 20

// packPlacement converts p's source tensors (F32, F16 or BF16) to the device type
// (bf16, or float32 for vectors) and hands the bytes to emit in order, as (offset
// within p, bytes) pieces. BF16 sources going to bf16 are passed through without a
// copy. The slice given to emit is only valid during the call.
func packPlacement(m *engine.Model, p placement, emit func(off int64, b []byte) error) error {
	var off int64
	var stage []byte
	for _, src := range p.Sources {
		t, err := m.Tensor(src.Name)
		if err != nil {
			return err
		}
		if err := t.CheckShape(src.Shape...); err != nil {
			return err
		}
		n := t.Len()
		if len(t.Data) != n*t.DType.Size() {
			return fmt.Errorf("tensor %q: %d bytes for %d %s elements", src.Name, len(t.Data), n, t.DType)
		}
		if !p.F32 && t.DType == engine.BF16 {
			for start := 0; start < len(t.Data); start += packChunkBytes {
				piece := t.Data[start:min(start+packChunkBytes, len(t.Data))]
				if err := emit(off, piece); err != nil {
					return err
				}
				off += int64(len(piece))
			}
			continue
		}
		size := 2
		if p.F32 {
			size = 4
		}
		perChunk := max(1, packChunkBytes/size)
		if cap(stage) < min(n, perChunk)*size {
			stage = make([]byte, min(n, perChunk)*size)
		}
		vals := make([]float32, min(n, perChunk))
		for start := 0; start < n; start += perChunk {
			cnt := min(perChunk, n-start)
			t.DecodeRange(vals[:cnt], start)
			b := stage[:cnt*size]
			if p.F32 {
				for i, v := range vals[:cnt] {
					binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
				}
			} else {
				for i, v := range vals[:cnt] {
					binary.LittleEndian.PutUint16(b[2*i:], engine.F32ToBF16(v))
				}
			}
			if err := emit(off, b); err != nil {
				return err
			}
			off += int64(len(b))
		}
	}
	if off != p.Bytes {
		return fmt.Errorf("weights %s…: packed %d bytes, layout expects %d", p.Sources[0].Name, off, p.Bytes)
	}
	return nil
}
