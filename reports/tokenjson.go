package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/entropix-eval/entropix-eval/sampler"
)

// A TokenRecord is stored in a run's journal as a positional JSON array:
// traces dominate the journal's size, and keys would triple it. The entries
// are journalColumns' fields in order (traces.arrow's columns from token_id
// on), so adding a trace column to schemas.go adds it to the journal too.
// Journals written before the last columns existed hold fewer entries (15 in
// schema version 3) and read back with the missing ones zero. Non-finite
// numbers are the strings "NaN", "+Inf", "-Inf": JSON has no literal for them
// and they are legitimate metric values.
var journalColumns = traceColumns[slices.IndexFunc(traceColumns, func(c column[TraceRow]) bool { return c.field.Name == ColTokenID }):]

// oldestJournalFields is the shortest trace step a journal holds (schema 3).
const oldestJournalFields = 15

// MarshalJSON writes the positional array.
func (t TokenRecord) MarshalJSON() ([]byte, error) {
	row := TraceRow{TokenRecord: t}
	b := make([]byte, 0, 256)
	b = append(b, '[')
	for i, c := range journalColumns {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSONValue(b, c.ptr(&row)); err != nil {
			return nil, fmt.Errorf("trace step %s: %w", c.field.Name, err)
		}
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads the array MarshalJSON writes, or a shorter one from an
// older journal.
func (t *TokenRecord) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("trace step: %w", err)
	}
	if len(raw) < oldestJournalFields || len(raw) > len(journalColumns) {
		return fmt.Errorf("trace step: %d fields, want %d (or from %d in an older journal)", len(raw), len(journalColumns), oldestJournalFields)
	}
	var row TraceRow
	for i, v := range raw {
		c := journalColumns[i]
		if err := readJSONValue(v, c.ptr(&row)); err != nil {
			return fmt.Errorf("trace step field %d (%s): %w", i, c.field.Name, err)
		}
	}
	*t = row.TokenRecord
	return nil
}

// appendJSONValue writes one journal entry from a row field's pointer.
func appendJSONValue(b []byte, ptr any) ([]byte, error) {
	switch v := ptr.(type) {
	case *int32:
		return strconv.AppendInt(b, int64(*v), 10), nil
	case *int:
		return strconv.AppendInt(b, int64(*v), 10), nil
	case *int64:
		return strconv.AppendInt(b, *v, 10), nil
	case *float64:
		return appendJSONFloat(b, *v), nil
	case *bool:
		return strconv.AppendBool(b, *v), nil
	case *string:
		return appendJSONString(b, *v)
	case *sampler.Strategy:
		return appendJSONString(b, string(*v))
	}
	return nil, fmt.Errorf("no journal encoding for %T", ptr)
}

// readJSONValue reads one journal entry into a row field.
func readJSONValue(raw json.RawMessage, ptr any) error {
	if f, ok := ptr.(*float64); ok {
		return parseJSONFloat(raw, f)
	}
	return json.Unmarshal(raw, ptr)
}

func appendJSONString(b []byte, s string) ([]byte, error) {
	q, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// appendJSONFloat writes the shortest text that reads back to the same
// float64, so a resumed run's numbers are bit-identical to an uninterrupted one.
func appendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"+Inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Inf"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func parseJSONFloat(raw json.RawMessage, dst *float64) error {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("number %q: %w", s, err)
		}
		*dst = f
		return nil
	}
	return json.Unmarshal(raw, dst)
}
