package reports

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
)

// column ties one Arrow field to one field of a Go row struct. The schema, the
// writer and the reader of a file kind are all built from one []column[R].
type column[R any] struct {
	field arrow.Field
	// appender binds a builder of field.Type once and returns a per-row append,
	// so the type assertion is not paid per cell.
	appender func(b array.Builder) func(r *R)
	// scanner binds an array already checked to be of field.Type and returns a
	// per-row read into r. It may reject the array (bad offsets) with an error.
	scanner func(a arrow.Array) (func(i int, r *R), error)
	// value returns the cell as the writer stores it (nil for null), for checks
	// that compare a file with its rows.
	value func(r *R) any
	// ptr returns the row's Go field (a pointer), for encodings of the row other
	// than Arrow: the journal's positional trace steps (tokenjson.go).
	ptr func(r *R) any
}

type valueBuilder[T any] interface {
	array.Builder
	Append(T)
}

type valueArray[T any] interface {
	arrow.Array
	Value(int) T
}

// plainColumn is a non-nullable fixed-width column (ints, floats, bools).
func plainColumn[R, T any, B valueBuilder[T], A valueArray[T]](name string, dt arrow.DataType, p func(*R) *T) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: dt, Nullable: false},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any { return *p(r) },
		appender: func(b array.Builder) func(*R) {
			tb := b.(B)
			return func(r *R) { tb.Append(*p(r)) }
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			ta := a.(A)
			return func(i int, r *R) { *p(r) = ta.Value(i) }, nil
		},
	}
}

// optColumn is a nullable fixed-width column backed by an Opt field.
func optColumn[R, T any, B valueBuilder[T], A valueArray[T]](name string, dt arrow.DataType, p func(*R) *Opt[T]) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: dt, Nullable: true},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any {
			if o := p(r); o.Valid {
				return o.V
			}
			return nil
		},
		appender: func(b array.Builder) func(*R) {
			tb := b.(B)
			return func(r *R) {
				if o := p(r); o.Valid {
					tb.Append(o.V)
				} else {
					tb.AppendNull()
				}
			}
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			ta := a.(A)
			return func(i int, r *R) {
				if ta.IsNull(i) {
					*p(r) = Opt[T]{}
					return
				}
				*p(r) = Opt[T]{V: ta.Value(i), Valid: true}
			}, nil
		},
	}
}

func int32Column[R any](name string, p func(*R) *int32) column[R] {
	return plainColumn[R, int32, *array.Int32Builder, *array.Int32](name, arrow.PrimitiveTypes.Int32, p)
}

func int64Column[R any](name string, p func(*R) *int64) column[R] {
	return plainColumn[R, int64, *array.Int64Builder, *array.Int64](name, arrow.PrimitiveTypes.Int64, p)
}

func float64Column[R any](name string, p func(*R) *float64) column[R] {
	return plainColumn[R, float64, *array.Float64Builder, *array.Float64](name, arrow.PrimitiveTypes.Float64, p)
}

func boolColumn[R any](name string, p func(*R) *bool) column[R] {
	return plainColumn[R, bool, *array.BooleanBuilder, *array.Boolean](name, arrow.FixedWidthTypes.Boolean, p)
}

func optInt32Column[R any](name string, p func(*R) *Opt[int32]) column[R] {
	return optColumn[R, int32, *array.Int32Builder, *array.Int32](name, arrow.PrimitiveTypes.Int32, p)
}

func optFloat64Column[R any](name string, p func(*R) *Opt[float64]) column[R] {
	return optColumn[R, float64, *array.Float64Builder, *array.Float64](name, arrow.PrimitiveTypes.Float64, p)
}

// intColumn is a non-nullable int32 column over an int field (counts the
// sampler keeps as int); values outside int32 are clamped, which no count
// of a real run reaches.
func intColumn[R any](name string, p func(*R) *int) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32, Nullable: false},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any { return clampInt32(*p(r)) },
		appender: func(b array.Builder) func(*R) {
			ib := b.(*array.Int32Builder)
			return func(r *R) { ib.Append(clampInt32(*p(r))) }
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			ia := a.(*array.Int32)
			return func(i int, r *R) { *p(r) = int(ia.Value(i)) }, nil
		},
	}
}

func clampInt32(v int) int32 { return int32(max(math.MinInt32, min(math.MaxInt32, v))) }

// offNullColumn is a nullable float64 column over a plain field: null where
// on(v) is false (a parameter the decision did not use, or NaN for a
// statistic not computed), read back as off.
func offNullColumn[R any](name string, p func(*R) *float64, on func(float64) bool, off float64) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any {
			if v := *p(r); on(v) {
				return v
			}
			return nil
		},
		appender: func(b array.Builder) func(*R) {
			fb := b.(*array.Float64Builder)
			return func(r *R) {
				if v := *p(r); on(v) {
					fb.Append(v)
				} else {
					fb.AppendNull()
				}
			}
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			fa := a.(*array.Float64)
			return func(i int, r *R) {
				if fa.IsNull(i) {
					*p(r) = off
				} else {
					*p(r) = fa.Value(i)
				}
			}, nil
		},
	}
}

// nanNullColumn stores NaN (not computed) as null.
func nanNullColumn[R any](name string, p func(*R) *float64) column[R] {
	return offNullColumn(name, p, func(v float64) bool { return !math.IsNaN(v) }, math.NaN())
}

// offNullIntColumn is offNullColumn for an int field stored as int32.
func offNullIntColumn[R any](name string, p func(*R) *int, on func(int) bool, off int) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any {
			if v := *p(r); on(v) {
				return clampInt32(v)
			}
			return nil
		},
		appender: func(b array.Builder) func(*R) {
			ib := b.(*array.Int32Builder)
			return func(r *R) {
				if v := *p(r); on(v) {
					ib.Append(clampInt32(v))
				} else {
					ib.AppendNull()
				}
			}
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			ia := a.(*array.Int32)
			return func(i int, r *R) {
				if ia.IsNull(i) {
					*p(r) = off
				} else {
					*p(r) = int(ia.Value(i))
				}
			}, nil
		},
	}
}

// stringColumn is a non-nullable utf8 column over a string-kinded field.
//
// Writing: Arrow utf8 must be valid UTF-8, but a byte-level BPE token can be half
// of a multi-byte character and a response cut at the token limit can end in
// one; invalid bytes are replaced by U+FFFD so every reader accepts the file
// (token_id keeps the exact identity).
//
// Reading: values are copied out of the Arrow buffers so rows outlive the batch.
// Short values are interned per record batch: run_id, task and strategy take a
// handful of values and token texts repeat heavily, so a million trace rows cost
// thousands of string allocations instead of millions.
func stringColumn[R any, S ~string](name string, p func(*R) *S) column[R] {
	return column[R]{
		field: arrow.Field{Name: name, Type: arrow.BinaryTypes.String, Nullable: false},
		ptr:   func(r *R) any { return p(r) },
		value: func(r *R) any { return validUTF8(string(*p(r))) },
		appender: func(b array.Builder) func(*R) {
			sb := b.(*array.StringBuilder)
			return func(r *R) {
				sb.Append(validUTF8(string(*p(r))))
			}
		},
		scanner: func(a arrow.Array) (func(int, *R), error) {
			sa := a.(*array.String)
			if err := checkOffsets(sa); err != nil {
				return nil, err
			}
			var last string
			interned := make(map[string]string)
			return func(i int, r *R) {
				v := sa.Value(i) // aliases the Arrow buffer
				if v != last {
					s, ok := interned[v]
					if !ok {
						s = strings.Clone(v)
						if len(s) <= internMaxLen && len(interned) < internMaxEntries {
							interned[s] = s
						}
					}
					last = s
				}
				*p(r) = S(last)
			}, nil
		},
	}
}

// Interning bounds per record batch: long strings (responses) are unlikely to
// repeat, and the table must not grow with a batch of distinct values.
const (
	internMaxLen     = 64
	internMaxEntries = 1 << 14
)

// checkOffsets validates a utf8 array's offsets against its data buffer. The
// Arrow Go reader does not, and a corrupt file would otherwise panic or return
// bytes of the wrong row.
func checkOffsets(a *array.String) error {
	n := a.Len()
	if n == 0 {
		return nil
	}
	bufs := a.Data().Buffers()
	if len(bufs) != 3 || bufs[1] == nil {
		return fmt.Errorf("utf8 array without an offsets buffer")
	}
	data := 0
	if bufs[2] != nil {
		data = bufs[2].Len()
	}
	offs := a.ValueOffsets() // length n+1 is checked by the array constructor
	prev := offs[0]
	if prev < 0 {
		return fmt.Errorf("negative first offset %d", prev)
	}
	for i := 1; i <= n; i++ {
		if offs[i] < prev {
			return fmt.Errorf("row %d: offsets decrease (%d after %d)", i-1, offs[i], prev)
		}
		prev = offs[i]
	}
	if int(prev) > data {
		return fmt.Errorf("last offset %d exceeds the %d-byte data buffer", prev, data)
	}
	return nil
}

// schemaOf derives the Arrow schema of a column list. The metadata names the file
// kind and schema version so a reader can tell results.arrow from traces.arrow.
func schemaOf[R any](kind string, cols []column[R]) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = c.field
	}
	md := arrow.NewMetadata(
		[]string{metaKind, metaVersion},
		[]string{kind, SchemaVersion},
	)
	return arrow.NewSchema(fields, &md)
}

// Schema metadata keys and the current version of every schema in this package.
const (
	metaKind    = "entropix.schema"
	metaVersion = "entropix.schema_version"
	// SchemaVersion changes whenever a column is added, removed or retyped.
	// 2: comparisons.arrow's problem-level columns (issue 11).
	// 3: results.arrow is generic over the task's filters and metrics (task,
	// answer,<filter> and <metric>,<filter> columns replace extracted_* and
	// correct_*); traces.arrow carries every field of the sampler's decision;
	// summary and comparisons hold a score key ("metric,filter") in "filter".
	// 4: run_key in traces, results and summary; sampler and seed in traces;
	// provenance (Meta*) in every file's schema metadata.
	// 5: comparisons.arrow's alternative, n_differing, *_deterministic,
	// normal_ci_*, boot_beyond_zero, holm_family, holm_m, mde_alpha and
	// mcnemar_test; ci_low/ci_high are the inverted sign-flip test's interval
	// (issue 26).
	// 6: attn_mode and pad_len in traces; sampler_spec, model and date in
	// results and summary (issue 31).
	SchemaVersion = "6"
)

// validUTF8 replaces each run of invalid bytes by U+FFFD, as written to utf8 columns.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
