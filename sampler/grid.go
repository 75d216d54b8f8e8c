package sampler

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// MaxGridSamplers bounds what one sampler's grid expands to, checked before
// anything is built, so a grid typed with one zero too many is refused
// instead of filling memory.
const MaxGridSamplers = 10_000

// ExpandGrids expands every sampler whose fields hold lists (no sampler
// field takes a list, so a list is a grid) into one sampler per combination:
// {name: min_p, temperature: [0.7, 1.0], min_p: [0.05, 0.1]} is four min_p
// samplers. The grid's fields vary in alphabetical order, the last fastest,
// each through its values as written. A grid sampler's label is its label
// with the grid's settings, "label(min_p=0.05,temperature=0.7)"; without a
// label each gets the label its written-out spec would get. Samplers without
// a list pass through unchanged, so a grid equals the hand-written list.
func ExpandGrids(specs []Spec) ([]Spec, error) {
	var out []Spec
	var errs []error
	for i, s := range specs {
		grid, err := s.gridKeys()
		if err != nil {
			errs = append(errs, fmt.Errorf("samplers[%d]: %w", i, err))
			continue
		}
		if len(grid) == 0 {
			out = append(out, s)
			continue
		}
		n := 1
		for _, k := range grid {
			n *= len(s.Params[k].([]any))
			if n > MaxGridSamplers {
				errs = append(errs, fmt.Errorf("samplers[%d]: the grid over %s makes more than %d samplers", i, strings.Join(grid, ", "), MaxGridSamplers))
				break
			}
		}
		if n <= MaxGridSamplers {
			out = append(out, s.expandGrid(grid, n)...)
		}
	}
	return out, errors.Join(errs...)
}

// gridKeys lists the fields holding lists, sorted, refusing lists that cannot
// be a grid (empty, or holding lists or mappings).
func (s Spec) gridKeys() ([]string, error) {
	var keys []string
	for k, v := range s.Params {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		if len(list) == 0 {
			return nil, fmt.Errorf("%s: an empty list (a grid needs at least one value)", k)
		}
		for j, x := range list {
			switch x.(type) {
			case []any, map[string]any:
				return nil, fmt.Errorf("%s[%d]: a grid's values are numbers, strings or booleans", k, j)
			}
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys, nil
}

// expandGrid makes the n samplers of the grid over keys.
func (s Spec) expandGrid(keys []string, n int) []Spec {
	out := make([]Spec, 0, n)
	idx := make([]int, len(keys))
	for range n {
		one := Spec{Name: s.Name, Params: make(map[string]any, len(s.Params))}
		for k, v := range s.Params {
			one.Params[k] = v
		}
		settings := make([]string, len(keys))
		for j, k := range keys {
			v := normalizeNumber(s.Params[k].([]any)[idx[j]])
			one.Params[k] = v
			settings[j] = k + "=" + formatParam(v)
		}
		if s.Label != "" {
			one.Label = s.Label + "(" + strings.Join(settings, ",") + ")"
		}
		out = append(out, one)
		for j := len(idx) - 1; j >= 0; j-- { // odometer: the last key fastest
			idx[j]++
			if idx[j] < len(s.Params[keys[j]].([]any)) {
				break
			}
			idx[j] = 0
		}
	}
	return slices.Clip(out)
}
