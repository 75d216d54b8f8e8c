package textmetrics

import "fmt"

// Item is what lm-eval's passthrough metrics "bleu" and "chrf" keep per
// document: the gold reference(s) and the filtered response.
type Item struct {
	Refs []string
	Pred string
}

// LMEvalBLEU is lm-eval's "bleu" aggregation: sacrebleu.corpus_bleu over the
// whole corpus with its defaults, after lm-eval's _sacreformat (one
// reference stream per reference position, cut to the document with the
// fewest references).
func LMEvalBLEU(items []Item) (float64, error) {
	hyps, refs := sacreformat(items)
	s, err := DefaultBLEU().Corpus(hyps, refs)
	return s.Score, err
}

// LMEvalCHRF is lm-eval's "chrf" aggregation: sacrebleu.corpus_chrf with its
// defaults over the corpus, formatted as LMEvalBLEU.
func LMEvalCHRF(items []Item) (float64, error) {
	hyps, refs := sacreformat(items)
	return DefaultCHRF().Corpus(hyps, refs)
}

// sacreformat is lm-eval's _sacreformat: refs per document become streams
// (zip(*refs) stops at the shortest list), predictions a flat list.
func sacreformat(items []Item) ([]string, [][]string) {
	hyps := make([]string, len(items))
	nRefs := -1
	for i, it := range items {
		hyps[i] = it.Pred
		if nRefs < 0 || len(it.Refs) < nRefs {
			nRefs = len(it.Refs)
		}
	}
	refs := make([][]string, max(nRefs, 0))
	for k := range refs {
		refs[k] = make([]string, len(items))
		for i, it := range items {
			refs[k][i] = it.Refs[k]
		}
	}
	return hyps, refs
}

// ItemsFromPairs reads lm-eval's passthrough metric values, one
// [reference, response] pair per doc (decoded JSON), a list of references
// allowed.
func ItemsFromPairs(values []any) ([]Item, error) {
	out := make([]Item, len(values))
	for i, v := range values {
		pair, ok := v.([]any)
		if !ok || len(pair) != 2 {
			return nil, fmt.Errorf("doc value %d: want [reference, response], got %T", i, v)
		}
		pred, ok := pair[1].(string)
		if !ok {
			return nil, fmt.Errorf("doc value %d: the response is %T, not a string; end the filter with take_first", i, pair[1])
		}
		switch ref := pair[0].(type) {
		case string:
			out[i] = Item{Refs: []string{ref}, Pred: pred}
		case []any:
			for _, r := range ref {
				s, ok := r.(string)
				if !ok {
					return nil, fmt.Errorf("doc value %d: a reference is %T, not a string", i, r)
				}
				out[i].Refs = append(out[i].Refs, s)
			}
			out[i].Pred = pred
		default:
			return nil, fmt.Errorf("doc value %d: the reference is %T, not a string", i, pair[0])
		}
	}
	return out, nil
}
