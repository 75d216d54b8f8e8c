package engine

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// tensorSource is a tensor to write whose values are produced in order, chunk by
// chunk, so a multi-gigabyte checkpoint never sits in memory.
type tensorSource struct {
	Name  string
	DType DType
	Shape []int
	// Fill writes the next len(dst) values of the tensor (row-major) into dst.
	Fill func(dst []float32)
}

func (s *tensorSource) numel() int64 {
	n := int64(1)
	for _, d := range s.Shape {
		n *= int64(d)
	}
	return n
}

func (s *tensorSource) bytes() int64 { return s.numel() * int64(s.DType.Size()) }

// writeSafetensors writes tensors to path the way the safetensors library does: an
// 8-byte little-endian header length, a compact JSON header with __metadata__ first
// and then the tensors sorted by name, padded with spaces to a multiple of 8, then
// the data back to back in the same order. It sorts tensors in place.
func writeSafetensors(path string, tensors []tensorSource, metadata map[string]string) (err error) {
	sort.Slice(tensors, func(i, j int) bool { return tensors[i].Name < tensors[j].Name })
	header, err := safetensorsHeader(tensors, metadata)
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	buf := newStreamBuffers()
	for i := range tensors {
		if err := buf.streamTensor(w, &tensors[i]); err != nil {
			return fmt.Errorf("safetensors %s: tensor %q: %w", path, tensors[i].Name, err)
		}
	}
	return w.Flush()
}

// safetensorsHeader builds the padded JSON header. Tensors must be sorted by name.
func safetensorsHeader(tensors []tensorSource, metadata map[string]string) ([]byte, error) {
	type entry struct {
		DType       DType   `json:"dtype"`
		Shape       []int   `json:"shape"`
		DataOffsets []int64 `json:"data_offsets"`
	}
	// Go sorts map keys, and "__metadata__" sorts before every lower-case tensor
	// name, but not before upper-case ones; so write the object by hand.
	buf := []byte{'{'}
	if metadata != nil {
		m, err := json.Marshal(metadata)
		if err != nil {
			return nil, err
		}
		buf = append(append(buf, `"__metadata__":`...), m...)
	}
	var off int64
	for i := range tensors {
		t := &tensors[i]
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		name, err := json.Marshal(t.Name)
		if err != nil {
			return nil, err
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		e, err := json.Marshal(entry{t.DType, shape, []int64{off, off + t.bytes()}})
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, name...), ':'), e...)
		off += t.bytes()
	}
	buf = append(buf, '}')
	for len(buf)%8 != 0 {
		buf = append(buf, ' ')
	}
	return buf, nil
}

// streamBuffers hold one chunk of values and its encoding, reused for every tensor
// of a file.
type streamBuffers struct {
	vals []float32
	out  []byte
}

func newStreamBuffers() *streamBuffers {
	const chunk = 1 << 16
	return &streamBuffers{vals: make([]float32, chunk), out: make([]byte, 4*chunk)}
}

// streamTensor encodes a tensor's values in its dtype, one chunk at a time.
func (s *streamBuffers) streamTensor(w io.Writer, t *tensorSource) error {
	for left := t.numel(); left > 0; {
		n := int(min(left, int64(len(s.vals))))
		t.Fill(s.vals[:n])
		b := encodeFloats(s.out, s.vals[:n], t.DType)
		if _, err := w.Write(b); err != nil {
			return err
		}
		left -= int64(n)
	}
	return nil
}

// encodeFloats stores vals in dtype (rounding to nearest even) into buf.
func encodeFloats(buf []byte, vals []float32, dtype DType) []byte {
	switch dtype {
	case BF16:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(buf[2*i:], F32ToBF16(v))
		}
		return buf[:2*len(vals)]
	case F16:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(buf[2*i:], F32ToF16(v))
		}
		return buf[:2*len(vals)]
	default:
		for i, v := range vals {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		return buf[:4*len(vals)]
	}
}
