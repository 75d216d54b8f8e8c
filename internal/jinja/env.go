package jinja

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// limitsKey is where a render's counters sit in its context, for the filters.
const limitsKey = "__jinja_limits"

// environment is gonja's default environment with every filter and method
// wrapped in size checks (see bounded), built once.
var environment = sync.OnceValue(func() *exec.Environment {
	d := gonja.DefaultEnvironment
	filters := map[string]exec.FilterFunction{}
	for _, name := range mapKeys(d.Filters, "filters") {
		fn, _ := d.Filters.Get(name)
		filters[name] = boundFilter(name, fn)
	}
	m := d.Methods
	return &exec.Environment{
		Context: d.Context, Filters: exec.NewFilterSet(filters), Tests: d.Tests, ControlStructures: d.ControlStructures,
		Methods: exec.Methods{
			Bool: m.Bool, Int: m.Int, Float: m.Float, Dict: boundMethods(m.Dict),
			Str: boundMethods(m.Str), List: boundMethods(withListIndex(m.List)),
		},
	}
})

// mapKeys lists the names in a gonja set's unexported map field: the sets can
// be read by name but not listed, and every entry must be wrapped.
func mapKeys(set any, field string) []string {
	var out []string
	for _, k := range reflect.ValueOf(set).Elem().FieldByName(field).MapKeys() {
		out = append(out, k.String())
	}
	return out
}

func boundMethods[I any](set *exec.MethodSet[I]) *exec.MethodSet[I] {
	out := map[string]exec.Method[I]{}
	for _, name := range mapKeys(set, "methods") {
		fn, _ := set.Get(name)
		out[name] = func(self I, selfValue *exec.Value, args *exec.VarArgs) (any, error) {
			if err := checkArgs("method "+name, selfValue, args); err != nil {
				return nil, err
			}
			res, err := fn(self, selfValue, args)
			if err != nil {
				return res, err
			}
			// List methods grow their list in place (append, extend).
			if err := checkSize("method "+name, selfValue); err != nil {
				return nil, err
			}
			return res, checkSize("method "+name, exec.ToValue(res))
		}
	}
	return exec.NewMethodSet(out)
}

func boundFilter(name string, fn exec.FilterFunction) exec.FilterFunction {
	return func(e *exec.Evaluator, in *exec.Value, params *exec.VarArgs) *exec.Value {
		if l, ok := e.Environment.Context.Get(limitsKey); ok {
			if err := l.(*limits).check(); err != nil {
				return exec.AsValue(err)
			}
		}
		if err := checkArgs("filter "+name, in, params); err != nil {
			return exec.AsValue(err)
		}
		out := fn(e, in, params)
		if err := checkSize("filter "+name, out); err != nil {
			return exec.AsValue(err)
		}
		return out
	}
}

// checkArgs refuses, before a filter or method runs, the arguments that
// would make it allocate beyond the limits: a count or width above
// MaxListLen (center(1e9), ljust, zfill, indent, batch, lipsum) and the
// results whose size follows from the arguments (replace, join, indent,
// expandtabs, format).
func checkArgs(what string, self *exec.Value, args *exec.VarArgs) error {
	all := append([]*exec.Value{}, args.Args...)
	for _, v := range args.KwArgs {
		all = append(all, v)
	}
	for _, a := range all {
		if a.IsInteger() && a.Integer() > MaxListLen || a.IsFloat() && a.Float() > float64(MaxListLen) {
			return fmt.Errorf("%w: %s: argument %s above %d", ErrLimit, what, a.String(), MaxListLen)
		}
	}
	s := ""
	if self != nil && self.IsString() {
		s = self.String()
	}
	arg := func(i int) string {
		if i < len(args.Args) {
			return args.Args[i].String()
		}
		return ""
	}
	name := what[strings.IndexByte(what, ' ')+1:]
	size := 0
	switch name {
	case "replace":
		old, repl := arg(0), arg(1)
		if self == nil || !self.IsString() {
			return nil
		}
		n := len(s) + 1
		if old != "" {
			n = strings.Count(s, old)
		}
		size = len(s) + n*max(0, len(repl)-len(old))
	case "join":
		items := self
		if !self.IsString() { // the filter: list|join(sep)
			s = arg(0)
		} else if len(args.Args) > 0 { // the method: sep.join(list)
			items = args.Args[0]
		}
		if items == nil || !items.IsList() {
			return nil
		}
		n := items.Len()
		size = n * len(s)
		for i := 0; i < n && size <= MaxStringBytes; i++ {
			size += len(items.Index(i).String())
		}
	case "indent", "expandtabs":
		lines := strings.Count(s, "\n") + strings.Count(s, "\t") + 1
		width := 4
		if len(args.Args) > 0 && args.Args[0].IsInteger() {
			width = args.Args[0].Integer()
		}
		size = len(s) + lines*max(width, 0)
	case "format":
		longest := 0
		for _, a := range all {
			longest = max(longest, len(a.String()))
		}
		size = len(s) + (strings.Count(s, "{")+strings.Count(s, "%"))*longest
	}
	if size > MaxStringBytes {
		return fmt.Errorf("%w: %s would build a string of %d bytes (at most %d)", ErrLimit, what, size, MaxStringBytes)
	}
	return nil
}

// checkSize refuses a string or list beyond the limits.
func checkSize(what string, v *exec.Value) error {
	if v == nil {
		return nil
	}
	switch {
	case v.IsError():
		return nil
	case v.IsString() && v.Len() > MaxStringBytes:
		return fmt.Errorf("%w: %s built a string of %d bytes (at most %d)", ErrLimit, what, v.Len(), MaxStringBytes)
	case v.IsList() && v.Len() > MaxListLen:
		return fmt.Errorf("%w: %s built a list of %d items (at most %d)", ErrLimit, what, v.Len(), MaxListLen)
	}
	return nil
}

// globals are the functions a render overrides or adds: range and lipsum
// bounded, the bounded operators, and the counters for the filters.
func (l *limits) globals() map[string]any {
	return map[string]any{
		"range":   l.rangeFunc,
		"lipsum":  func(*exec.VarArgs) (string, error) { return "", errors.New("lipsum is not available") },
		limitsKey: l,
		opMul:     l.mul,
		opAdd:     l.add,
		opConcat:  l.concat,
	}
}

// rangeFunc is Jinja's range with the sandbox's MAX_RANGE and the render's
// step budget; it returns a list (gonja's own range feeds a channel from a
// goroutine that leaks when a loop breaks early).
func (l *limits) rangeFunc(_ *exec.Evaluator, params *exec.VarArgs) ([]int, error) {
	if err := l.check(); err != nil {
		return nil, err
	}
	const usage = "range: expected signature is [start, ]stop[, step] where all arguments are integers"
	ints := make([]int, len(params.Args))
	for i, a := range params.Args {
		if !a.IsInteger() {
			return nil, errors.New(usage)
		}
		ints[i] = a.Integer()
	}
	start, stop, step := 0, 0, 1
	switch len(ints) {
	case 1:
		stop = ints[0]
	case 2:
		start, stop = ints[0], ints[1]
	case 3:
		start, stop, step = ints[0], ints[1], ints[2]
	default:
		return nil, errors.New(usage)
	}
	if step == 0 {
		return nil, errors.New("range: step cannot be 0")
	}
	n := 0
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && start > stop {
		n = (start - stop - step - 1) / -step
	}
	if n > MaxRange {
		return nil, fmt.Errorf("%w: range of %d elements (at most %d, as in Jinja's sandbox)", ErrLimit, n, MaxRange)
	}
	if l.steps += n; l.steps > MaxRangeSteps {
		return nil, fmt.Errorf("%w: loops over range() ran more than %d steps", ErrLimit, MaxRangeSteps)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = start + i*step
	}
	return out, nil
}
