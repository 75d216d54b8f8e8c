package jinja

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// The names the bounded operators are called by (a template could call them
// too; they do no more than the operators).
const (
	opMul    = "__jinja_mul"
	opAdd    = "__jinja_add"
	opConcat = "__jinja_concat"
)

// boundOperators replaces, in a parsed template, every `*`, `+` and `~`
// with a call of the bounded operator of the same meaning: gonja evaluates
// them itself (strings.Repeat, string and list concatenation) with no size
// check, and ('x'*100000)*100000 asked for 10 GB. gonja offers no hook for
// operators, so the tree is rewritten; its node types (control structures
// included) keep children in fields that are partly unexported, hence the
// reflection. It also refuses a tree deeper than 4×MaxDepth (a chain like
// 1+1+…+1 has no brackets to count, but evaluating it recurses per term).
func boundOperators(root *nodes.Template) error {
	w := &rewriter{seen: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(root), 0)
	return w.err
}

type rewriter struct {
	seen map[uintptr]bool
	err  error
}

var nodesPkg = reflect.TypeOf(nodes.Template{}).PkgPath()

// gonjaNode says whether t (or what it points to) is one of gonja's types,
// the only ones walked: nodes and the builtin control structures.
func gonjaNode(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	p := t.PkgPath()
	return p == nodesPkg || strings.HasPrefix(p, "github.com/nikolalohinski/gonja/v2/builtins")
}

func (w *rewriter) walk(v reflect.Value, depth int) {
	if w.err != nil {
		return
	}
	if depth > 4*MaxDepth {
		w.err = fmt.Errorf("%w: expressions nested more than %d deep", ErrLimit, 4*MaxDepth)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || !gonjaNode(v.Type()) || w.seen[v.Pointer()] {
			return
		}
		w.seen[v.Pointer()] = true
		w.walk(v.Elem(), depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		inner := v.Elem()
		if !gonjaNode(inner.Type()) {
			return
		}
		w.walk(inner, depth)
		if b, ok := inner.Interface().(*nodes.BinaryExpression); ok && v.CanSet() {
			if call := boundCall(b); call != nil && reflect.TypeOf(call).AssignableTo(v.Type()) {
				v.Set(reflect.ValueOf(call))
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !f.CanSet() && f.CanAddr() {
				f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
			}
			w.walk(f, depth)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i), depth)
		}
	case reflect.Map:
		if v.IsNil() || !gonjaNode(v.Type().Elem()) && v.Type().Elem().Kind() != reflect.Interface {
			return
		}
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			w.walk(e, depth)
			v.SetMapIndex(k, e)
		}
	}
}

// boundCall is the call that replaces b, or nil when b's operator needs no bound.
func boundCall(b *nodes.BinaryExpression) *nodes.Call {
	name := ""
	switch b.Operator.Token.Type {
	case tokens.Multiply:
		name = opMul
	case tokens.Addition:
		name = opAdd
	case tokens.Tilde:
		name = opConcat
	default:
		return nil
	}
	at := *b.Operator.Token
	at.Type, at.Val = tokens.Name, name
	return &nodes.Call{Location: b.Operator.Token, Func: &nodes.Name{Name: &at}, Args: []nodes.Expression{b.Left, b.Right}}
}

// The bounded operators keep gonja's meaning of `*`, `+` and `~` (see
// exec.Evaluator.evalBinaryExpression) and check the size first.

func (l *limits) mul(_ *exec.Evaluator, p *exec.VarArgs) (*exec.Value, error) {
	a, b, err := l.operands(p)
	if err != nil {
		return nil, err
	}
	if a.IsFloat() || b.IsFloat() {
		return exec.AsValue(a.Float() * b.Float()), nil
	}
	if a.IsString() {
		if n := b.Integer(); n > 0 && a.Len() > 0 && n > MaxStringBytes/a.Len() {
			return nil, fmt.Errorf("%w: a string of %d bytes times %d is more than %d bytes", ErrLimit, a.Len(), n, MaxStringBytes)
		}
		return exec.AsValue(strings.Repeat(a.String(), max(b.Integer(), 0))), nil
	}
	return exec.AsValue(a.Integer() * b.Integer()), nil
}

func (l *limits) add(_ *exec.Evaluator, p *exec.VarArgs) (*exec.Value, error) {
	a, b, err := l.operands(p)
	if err != nil {
		return nil, err
	}
	if a.IsList() {
		if !b.IsList() {
			return nil, fmt.Errorf("unable to concatenate list to %s", b.String())
		}
		if a.Len()+b.Len() > MaxListLen {
			return nil, fmt.Errorf("%w: a list of %d items (at most %d)", ErrLimit, a.Len()+b.Len(), MaxListLen)
		}
		out := make([]any, 0, a.Len()+b.Len())
		for _, v := range []*exec.Value{a, b} {
			for i := 0; i < v.Len(); i++ {
				out = append(out, v.Index(i).Interface())
			}
		}
		return exec.AsValue(out), nil
	}
	if a.IsFloat() || b.IsFloat() {
		return exec.AsValue(a.Float() + b.Float()), nil
	}
	if a.IsString() || b.IsString() {
		return concat(a, b)
	}
	return exec.AsValue(a.Integer() + b.Integer()), nil
}

func (l *limits) concat(_ *exec.Evaluator, p *exec.VarArgs) (*exec.Value, error) {
	a, b, err := l.operands(p)
	if err != nil {
		return nil, err
	}
	return concat(a, b)
}

func concat(a, b *exec.Value) (*exec.Value, error) {
	x, y := a.String(), b.String()
	if len(x)+len(y) > MaxStringBytes {
		return nil, fmt.Errorf("%w: a string of %d bytes (at most %d)", ErrLimit, len(x)+len(y), MaxStringBytes)
	}
	return exec.AsValue(x + y), nil
}

func (l *limits) operands(p *exec.VarArgs) (*exec.Value, *exec.Value, error) {
	if err := l.check(); err != nil {
		return nil, nil, err
	}
	if len(p.Args) != 2 {
		return nil, nil, fmt.Errorf("operator: want 2 operands, got %d", len(p.Args))
	}
	return p.Args[0], p.Args[1], nil
}

var (
	blockTag  = regexp.MustCompile(`\{%-?\s*(\w+)([^%]*)`)
	openBlock = map[string]bool{"if": true, "for": true, "macro": true, "block": true, "call": true, "filter": true,
		"with": true, "raw": true, "autoescape": true, "trans": true}
)

// checkNesting refuses a source whose brackets or blocks nest deeper than
// MaxDepth, before the parser (which recurses per level) sees it. Brackets
// are counted everywhere, text and string literals included: a count that
// may overstate, never understate.
func checkNesting(source string) error {
	depth, deepest := 0, 0
	for i := 0; i < len(source); i++ {
		switch source[i] {
		case '(', '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
	}
	if deepest > MaxDepth {
		return fmt.Errorf("%w: brackets nested %d deep (at most %d)", ErrLimit, deepest, MaxDepth)
	}
	depth, deepest = 0, 0
	for _, m := range blockTag.FindAllStringSubmatch(source, -1) {
		word := m[1]
		switch {
		case openBlock[word] || word == "set" && !strings.Contains(m[2], "="):
			depth++
			deepest = max(deepest, depth)
		case strings.HasPrefix(word, "end"):
			depth = max(depth-1, 0)
		}
	}
	if deepest > MaxDepth {
		return fmt.Errorf("%w: blocks nested %d deep (at most %d)", ErrLimit, deepest, MaxDepth)
	}
	return nil
}

var (
	macroDef  = regexp.MustCompile(`\{%-?\s*macro\s+(\w+)\s*\(`)
	macroEnd  = regexp.MustCompile(`\{%-?\s*endmacro\b`)
	callNames = regexp.MustCompile(`\b(\w+)\s*\(`)
)

// recursiveMacros finds a macro that reaches itself through the macros its body
// calls, and returns the cycle ("a → b → a"), or "". Macro bodies are read from
// the source text: a {% macro %} ends at the next {% endmacro %}.
func recursiveMacros(source string) string {
	calls := map[string][]string{}
	for _, m := range macroDef.FindAllStringSubmatchIndex(source, -1) {
		name := source[m[2]:m[3]]
		body := source[m[1]:]
		if e := macroEnd.FindStringIndex(body); e != nil {
			body = body[:e[0]]
		}
		for _, c := range callNames.FindAllStringSubmatch(body, -1) {
			calls[name] = append(calls[name], c[1])
		}
	}
	var path []string
	onPath, done := map[string]bool{}, map[string]bool{}
	var visit func(n string) string
	visit = func(n string) string {
		if onPath[n] {
			i := slices.Index(path, n)
			return strings.Join(append(path[i:], n), " → ")
		}
		if done[n] || calls[n] == nil {
			return ""
		}
		onPath[n] = true
		path = append(path, n)
		for _, c := range calls[n] {
			if _, isMacro := calls[c]; isMacro || c == n {
				if cyc := visit(c); cyc != "" {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		onPath[n], done[n] = false, true
		return ""
	}
	names := make([]string, 0, len(calls))
	for n := range calls {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if cyc := visit(n); cyc != "" {
			return cyc
		}
	}
	return ""
}
