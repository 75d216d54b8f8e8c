package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"unicode/utf8"
)

// maxHeaderLen is the safetensors library's own cap on the JSON header; a length
// above it is a corrupt or hostile file, not a big model.
const maxHeaderLen = 100_000_000

// stEntry is one tensor of a safetensors header. Begin and End are offsets into the
// data section, which starts right after the header.
type stEntry struct {
	Name       string
	DType      DType
	Shape      []int
	Begin, End int64
}

// stHeader is a parsed safetensors header: its tensors in file order, the user
// metadata, and where the data section starts in the file.
type stHeader struct {
	Tensors   []stEntry
	Metadata  map[string]string
	DataStart int64
}

// parseSafetensors reads and validates the header of a whole safetensors file (data
// is the file's bytes, usually a mapping). It checks everything the safetensors
// library checks, so a file that loads here also loads in Python and vice versa:
// the header length, the JSON, the dtypes, that every data_offsets span matches its
// shape and dtype, and that the spans tile the data section exactly.
func parseSafetensors(data []byte) (*stHeader, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("file is %d bytes, shorter than the 8-byte header length: truncated", len(data))
	}
	n := binary.LittleEndian.Uint64(data)
	if n > maxHeaderLen {
		return nil, fmt.Errorf("header length %d exceeds the %d-byte limit: not a safetensors file or corrupt", n, maxHeaderLen)
	}
	if n > uint64(len(data)-8) {
		return nil, fmt.Errorf("header length %d runs past the end of the %d-byte file: truncated or corrupt", n, len(data))
	}
	raw := data[8 : 8+n]
	if len(raw) == 0 || raw[0] != '{' {
		return nil, errors.New("header does not start with '{': not a safetensors file")
	}
	if !utf8.Valid(raw) {
		return nil, errors.New("header is not valid UTF-8")
	}
	h := &stHeader{DataStart: int64(8 + n)}
	dataLen := int64(len(data)) - h.DataStart
	fields, err := decodeObjectNoDuplicates(bytes.TrimRight(raw, " "))
	if err != nil {
		return nil, fmt.Errorf("header JSON: %w", err)
	}
	for _, f := range fields {
		if f.key == "__metadata__" {
			if err := json.Unmarshal(f.value, &h.Metadata); err != nil {
				return nil, fmt.Errorf("header __metadata__: must map strings to strings: %w", err)
			}
			continue
		}
		e, err := parseEntry(f.key, f.value, dataLen)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, e)
	}
	if err := checkTiling(h.Tensors, dataLen); err != nil {
		return nil, err
	}
	return h, nil
}

func parseEntry(name string, raw json.RawMessage, dataLen int64) (stEntry, error) {
	var info struct {
		DType   *string `json:"dtype"`
		Shape   []int64 `json:"shape"`
		Offsets []int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		return stEntry{}, fmt.Errorf("tensor %q: header entry: %w", name, err)
	}
	if info.DType == nil || info.Shape == nil || info.Offsets == nil {
		return stEntry{}, fmt.Errorf("tensor %q: header entry needs dtype, shape and data_offsets", name)
	}
	e := stEntry{Name: name, DType: DType(*info.DType)}
	switch e.DType {
	case F32, F16, BF16:
	default:
		return stEntry{}, fmt.Errorf("tensor %q: dtype %q unsupported (want F32, F16 or BF16)", name, *info.DType)
	}
	if len(info.Offsets) != 2 {
		return stEntry{}, fmt.Errorf("tensor %q: data_offsets has %d numbers, want [begin, end]", name, len(info.Offsets))
	}
	e.Begin, e.End = info.Offsets[0], info.Offsets[1]
	if e.Begin < 0 || e.End < e.Begin {
		return stEntry{}, fmt.Errorf("tensor %q: data_offsets [%d, %d] are not an interval", name, e.Begin, e.End)
	}
	if e.End > dataLen {
		return stEntry{}, fmt.Errorf("tensor %q: data_offsets [%d, %d] run past the %d-byte data section: truncated file", name, e.Begin, e.End, dataLen)
	}
	numel := int64(1)
	for _, d := range info.Shape {
		if d < 0 {
			return stEntry{}, fmt.Errorf("tensor %q: shape %v has a negative dimension", name, info.Shape)
		}
		if d > 0 && numel > dataLen/d {
			// Also guards the products below against overflow.
			numel = dataLen + 1
		} else {
			numel *= d
		}
		e.Shape = append(e.Shape, int(d))
	}
	if want := numel * int64(e.DType.Size()); numel > dataLen || want != e.End-e.Begin {
		return stEntry{}, fmt.Errorf("tensor %q: data_offsets [%d, %d] span %d bytes, shape %v of %s needs %s",
			name, e.Begin, e.End, e.End-e.Begin, info.Shape, e.DType, tensorBytes(info.Shape, e.DType))
	}
	return e, nil
}

// checkTiling requires the tensors' spans to cover the data section back to back, as
// the safetensors library does: an overlap means two tensors share bytes, a gap or a
// tail means the header and the data disagree.
func checkTiling(ts []stEntry, dataLen int64) error {
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ea, eb := ts[order[a]], ts[order[b]]
		if ea.Begin != eb.Begin {
			return ea.Begin < eb.Begin
		}
		return ea.End < eb.End
	})
	var end int64
	prev := ""
	for _, i := range order {
		e := ts[i]
		switch {
		case e.Begin < end:
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] overlap tensor %q, which ends at %d", e.Name, e.Begin, e.End, prev, end)
		case e.Begin > end:
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] leave a %d-byte gap after offset %d", e.Name, e.Begin, e.End, e.Begin-end, end)
		}
		end, prev = e.End, e.Name
	}
	if end != dataLen {
		return fmt.Errorf("data section is %d bytes but the tensors cover %d: trailing bytes or a lying header", dataLen, end)
	}
	return nil
}

type jsonField struct {
	key   string
	value json.RawMessage
}

// decodeObjectNoDuplicates decodes one JSON object keeping its keys in order, and
// rejects a repeated key (encoding/json would silently keep the last one, which would
// hide a tensor).
func decodeObjectNoDuplicates(raw []byte) ([]jsonField, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	var out []jsonField
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v is not a string", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		if seen[key] {
			return nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		out = append(out, jsonField{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the header object")
	}
	return out, nil
}

// tensorBytes is a shape's byte size in exact arithmetic, for messages: the
// check above stops multiplying past the data section (it printed that
// clamped count as the size a huge shape needs).
func tensorBytes(shape []int64, dt DType) string {
	n := big.NewInt(int64(dt.Size()))
	for _, d := range shape {
		n.Mul(n, big.NewInt(d))
	}
	return n.String()
}
