package reports

// Opt is a value that may be absent; it maps to a nullable Arrow column.
// A struct rather than a pointer so that millions of trace rows cost no
// allocations.
type Opt[T any] struct {
	V     T
	Valid bool
}

// Some returns a present value.
func Some[T any](v T) Opt[T] { return Opt[T]{V: v, Valid: true} }

// None returns an absent value.
func None[T any]() Opt[T] { return Opt[T]{} }

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.V, o.Valid }
