package runreport

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Pairing is how a sampler of the new run found its reference.
const (
	PairedBySpec  = "spec"  // the same canonical spec
	PairedByLabel = "label" // the same label, the spec changed
	PairedByHand  = "hand"  // --pair A=B
)

// samplerPair is one sampler of run B with its reference in run A.
type samplerPair struct {
	A, B string
	How  string
}

// pairSamplers pairs run b's samplers with run a's: first the pairs given by
// hand ("A=B", A a label of run a, B of run b), then by canonical spec, then,
// for samplers still alone, by label (the spec changed: a note says how). It
// returns the pairs in b's sampler order, the unpaired labels of each run and
// the notes.
func pairSamplers(a, b *run, byHand []string) (pairs []samplerPair, onlyA, onlyB, notes []string, err error) {
	labelsA, labelsB := a.samplerOrder(), b.samplerOrder()
	refOf := map[string]samplerPair{}
	usedA := map[string]bool{}
	for _, p := range byHand {
		la, lb, err := splitPair(p, labelsA, labelsB)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if _, dup := refOf[lb]; dup || usedA[la] {
			return nil, nil, nil, nil, fmt.Errorf("compare: --pair %s: %s or %s is already paired by another --pair", p, la, lb)
		}
		refOf[lb], usedA[la] = samplerPair{A: la, B: lb, How: PairedByHand}, true
	}
	specA, specB := a.canonicalSpecs(), b.canonicalSpecs()
	bySpecA := map[string]string{}
	for _, l := range labelsA {
		if !usedA[l] {
			if _, taken := bySpecA[specA[l]]; !taken {
				bySpecA[specA[l]] = l
			}
		}
	}
	for _, l := range labelsB {
		if _, done := refOf[l]; done {
			continue
		}
		if la, ok := bySpecA[specB[l]]; ok && !usedA[la] {
			refOf[l], usedA[la] = samplerPair{A: la, B: l, How: PairedBySpec}, true
		}
	}
	for _, l := range labelsB {
		if _, done := refOf[l]; done || usedA[l] || !slices.Contains(labelsA, l) {
			continue
		}
		refOf[l], usedA[l] = samplerPair{A: l, B: l, How: PairedByLabel}, true
		notes = append(notes, fmt.Sprintf("%s: spec changed (%s), paired by label", l, specChange(specA[l], specB[l])))
	}
	for _, l := range labelsB {
		if p, ok := refOf[l]; ok {
			pairs = append(pairs, p)
		} else {
			onlyB = append(onlyB, l)
		}
	}
	for _, l := range labelsA {
		if !usedA[l] {
			onlyA = append(onlyA, l)
		}
	}
	return pairs, onlyA, onlyB, notes, nil
}

// splitPair reads "A=B" where labels may hold "=" themselves
// (min_p(min_p=0.1,temperature=1)): the one split whose sides are a label of
// run A and a label of run B.
func splitPair(p string, labelsA, labelsB []string) (string, string, error) {
	var found [][2]string
	for i := range len(p) {
		if p[i] == '=' && slices.Contains(labelsA, p[:i]) && slices.Contains(labelsB, p[i+1:]) {
			found = append(found, [2]string{p[:i], p[i+1:]})
		}
	}
	switch len(found) {
	case 1:
		return found[0][0], found[0][1], nil
	case 0:
		return "", "", fmt.Errorf("compare: --pair %s: want A=B with A a sampler of the reference run (%s) and B one of the new run (%s)",
			p, strings.Join(labelsA, ", "), strings.Join(labelsB, ", "))
	}
	return "", "", fmt.Errorf("compare: --pair %s reads as %d different pairs; rename a sampler with label:", p, len(found))
}

// specChange says what differs between two canonical specs, field by field
// ("min_p 0.1 → 0.05"), or that they cannot be compared field by field.
func specChange(a, b string) string {
	var ma, mb map[string]any
	okA := strings.HasPrefix(a, "spec:") && json.Unmarshal([]byte(strings.TrimPrefix(a, "spec:")), &ma) == nil
	okB := strings.HasPrefix(b, "spec:") && json.Unmarshal([]byte(strings.TrimPrefix(b, "spec:")), &mb) == nil
	if !okA || !okB {
		return "its parameters are not recorded in both manifests"
	}
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		va, inA := ma[k]
		vb, inB := mb[k]
		ja, _ := json.Marshal(va)
		jb, _ := json.Marshal(vb)
		switch {
		case !inA:
			diffs = append(diffs, fmt.Sprintf("%s added: %s", k, jb))
		case !inB:
			diffs = append(diffs, fmt.Sprintf("%s removed (was %s)", k, ja))
		case string(ja) != string(jb):
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", k, ja, jb))
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, ", ")
}
