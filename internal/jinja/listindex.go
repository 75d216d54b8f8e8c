package jinja

import (
	"fmt"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// withListIndex is gonja's list methods plus Python's list.index, which
// lm-eval's task templates call (ARC's doc_to_target is
// "{{choices.label.index(answerKey)}}") and gonja lacks.
func withListIndex(set *exec.MethodSet[[]any]) *exec.MethodSet[[]any] {
	methods := map[string]exec.Method[[]any]{"index": listIndex}
	for _, name := range mapKeys(set, "methods") {
		methods[name], _ = set.Get(name)
	}
	return exec.NewMethodSet(methods)
}

// listIndex is list.index(x): the first position holding a value equal to x
// (numbers compare by value), an error when there is none.
func listIndex(self []any, _ *exec.Value, arguments *exec.VarArgs) (any, error) {
	var x any
	if err := arguments.Take(exec.PositionalArgument("x", nil, exec.AnyArgument(&x))); err != nil {
		return nil, exec.ErrInvalidCall(err)
	}
	want := exec.ToValue(x)
	for i, e := range self {
		if exec.ToValue(e).EqualValueTo(want) {
			return i, nil
		}
	}
	return nil, fmt.Errorf("%v is not in list", x)
}
