package reports

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// checkFooter walks the footer of an Arrow IPC file before the Arrow Go reader
// parses it.
//
// The Arrow Go reader trusts the flatbuffer vector lengths of the footer's
// schema: it makes slices of that length (fields, children, metadata) before
// reading any element, so one corrupt length asks for gigabytes, which is a fatal
// error rather than a recoverable panic. Nothing else in the footer is sized
// before use (other bad offsets make out-of-range reads, which the reader
// recovers from). All arithmetic here is in int64, so an offset that would wrap
// around in flatbuffers' uint32 arithmetic is rejected instead.
func checkFooter(r io.ReaderAt, size int64) error {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < 6+2+tail {
		return fmt.Errorf("file too small (%d bytes)", size)
	}
	buf := make([]byte, tail)
	if _, err := r.ReadAt(buf, size-tail); err != nil {
		return err
	}
	if !bytes.Equal(buf[4:], []byte("ARROW1")) {
		return errors.New("no Arrow file magic at the end: truncated, an Arrow IPC stream rather than a file, or not Arrow at all")
	}
	n := int64(binary.LittleEndian.Uint32(buf))
	if n <= 0 || n+6+2+tail > size {
		return fmt.Errorf("footer length %d does not fit the %d-byte file", n, size)
	}
	fb := make(flatBuf, n)
	if _, err := r.ReadAt(fb, size-tail-n); err != nil {
		return err
	}
	footer, err := fb.root()
	if err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	for _, slot := range []int64{8, 10} { // dictionaries, recordBatches: [Block]
		if _, err := fb.vector(footer, slot, 24); err != nil {
			return fmt.Errorf("footer blocks: %w", err)
		}
	}
	schema, ok, err := fb.child(footer, 6)
	if err != nil || !ok {
		return fmt.Errorf("footer schema: missing or %v", err)
	}
	if err := fb.checkFields(schema, 6, 0); err != nil {
		return fmt.Errorf("schema fields: %w", err)
	}
	if err := fb.checkMetadata(schema, 8); err != nil {
		return fmt.Errorf("schema metadata: %w", err)
	}
	if _, err := fb.vector(schema, 10, 8); err != nil { // features: [long]
		return fmt.Errorf("schema features: %w", err)
	}
	return nil
}

// maxFieldDepth bounds nested children; the harness's schemas are flat.
const maxFieldDepth = 64

type flatBuf []byte

func (b flatBuf) u32(pos int64) (int64, error) {
	if pos < 0 || pos+4 > int64(len(b)) {
		return 0, fmt.Errorf("offset %d outside the %d-byte footer", pos, len(b))
	}
	return int64(binary.LittleEndian.Uint32(b[pos:])), nil
}

func (b flatBuf) u16(pos int64) (int64, error) {
	if pos < 0 || pos+2 > int64(len(b)) {
		return 0, fmt.Errorf("offset %d outside the %d-byte footer", pos, len(b))
	}
	return int64(binary.LittleEndian.Uint16(b[pos:])), nil
}

// table checks the table at pos and its vtable.
func (b flatBuf) table(pos int64) error {
	soff, err := b.u32(pos)
	if err != nil {
		return err
	}
	vt := pos - int64(int32(uint32(soff)))
	vtSize, err := b.u16(vt)
	if err != nil {
		return err
	}
	if vtSize < 4 || vt+vtSize > int64(len(b)) {
		return fmt.Errorf("vtable at %d of size %d outside the footer", vt, vtSize)
	}
	return nil
}

func (b flatBuf) root() (int64, error) {
	pos, err := b.u32(0)
	if err != nil {
		return 0, err
	}
	return pos, b.table(pos)
}

// field returns the position of a present field of the table at pos (slot is
// the vtable offset, as in the generated flatbuf code).
func (b flatBuf) field(pos, slot int64) (int64, bool, error) {
	soff, _ := b.u32(pos) // checked by table
	vt := pos - int64(int32(uint32(soff)))
	vtSize, _ := b.u16(vt)
	if slot >= vtSize {
		return 0, false, nil
	}
	o, err := b.u16(vt + slot)
	if err != nil || o == 0 {
		return 0, false, err
	}
	return pos + o, true, nil
}

// child returns the position of the table a field refers to.
func (b flatBuf) child(pos, slot int64) (int64, bool, error) {
	f, ok, err := b.field(pos, slot)
	if err != nil || !ok {
		return 0, false, err
	}
	off, err := b.u32(f)
	if err != nil {
		return 0, false, err
	}
	return f + off, true, b.table(f + off)
}

// vector checks the vector a field refers to and returns the positions of its
// elements (for elemSize 4, the offsets of tables or strings).
func (b flatBuf) vector(pos, slot, elemSize int64) ([]int64, error) {
	f, ok, err := b.field(pos, slot)
	if err != nil || !ok {
		return nil, err
	}
	off, err := b.u32(f)
	if err != nil {
		return nil, err
	}
	start := f + off
	n, err := b.u32(start)
	if err != nil {
		return nil, err
	}
	if start+4+n*elemSize > int64(len(b)) {
		return nil, fmt.Errorf("vector of %d elements at %d overruns the %d-byte footer", n, start, len(b))
	}
	if elemSize != 4 {
		return nil, nil
	}
	elems := make([]int64, n)
	for i := range elems {
		p := start + 4 + int64(i)*4
		o, _ := b.u32(p)
		elems[i] = p + o
	}
	return elems, nil
}

// checkString checks the string a field refers to.
func (b flatBuf) checkString(pos, slot int64) error {
	f, ok, err := b.field(pos, slot)
	if err != nil || !ok {
		return err
	}
	off, err := b.u32(f)
	if err != nil {
		return err
	}
	n, err := b.u32(f + off)
	if err != nil {
		return err
	}
	if f+off+4+n > int64(len(b)) {
		return fmt.Errorf("string of %d bytes at %d overruns the footer", n, f+off)
	}
	return nil
}

// checkFields checks a [Field] vector: each field's name, metadata and children.
func (b flatBuf) checkFields(pos, slot int64, depth int) error {
	if depth > maxFieldDepth {
		return fmt.Errorf("fields nested deeper than %d", maxFieldDepth)
	}
	fields, err := b.vector(pos, slot, 4)
	if err != nil {
		return err
	}
	for i, f := range fields {
		if err := b.table(f); err != nil {
			return fmt.Errorf("field %d: %w", i, err)
		}
		if err := b.checkString(f, 4); err != nil {
			return fmt.Errorf("field %d name: %w", i, err)
		}
		if err := b.checkMetadata(f, 16); err != nil {
			return fmt.Errorf("field %d metadata: %w", i, err)
		}
		if err := b.checkFields(f, 14, depth+1); err != nil {
			return fmt.Errorf("field %d children: %w", i, err)
		}
	}
	return nil
}

// checkMetadata checks a [KeyValue] vector.
func (b flatBuf) checkMetadata(pos, slot int64) error {
	kvs, err := b.vector(pos, slot, 4)
	if err != nil {
		return err
	}
	for i, kv := range kvs {
		if err := b.table(kv); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if err := b.checkString(kv, 4); err != nil {
			return fmt.Errorf("entry %d key: %w", i, err)
		}
		if err := b.checkString(kv, 6); err != nil {
			return fmt.Errorf("entry %d value: %w", i, err)
		}
	}
	return nil
}
