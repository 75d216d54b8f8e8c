package lmevalout

import (
	"fmt"
	"slices"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/eval/loglik"
	"github.com/entropix-eval/entropix-eval/hooks"
	"github.com/entropix-eval/entropix-eval/internal/pyjson"
	"github.com/entropix-eval/entropix-eval/internal/pynumpy"
)

// scoredLine is a scored task's sample line as evaluator.py logs it and
// save_results_samples rewrites it: arguments as gen_args_i/arg_j (one per
// request: context and continuation, a rolling doc's text alone), resps and
// filtered_resps through sanitize_list (every number and bool as Python's
// str: [[["-1.25", "False"]], …] and [["-1.25", "False"], …]; a rolling doc's
// ["-148.6"] and "-148.6"), then each metric's process_results value: a float,
// (log-likelihood, words or bytes) for the weighted perplexities, or (gold,
// str(probabilities)) for brier_score.
func scoredLine(s map[string]any, docID int64, target, docHash, promptHash, targetHash string, metrics []string) (*pyjson.Dict, error) {
	outputType, _ := s["output_type"].(string)
	rawArgs, _ := s["arguments"].([]any)
	rawResps, _ := s["resps"].([]any)
	if len(rawArgs) == 0 || len(rawArgs) != len(rawResps) {
		return nil, fmt.Errorf("sample of doc %d: %d arguments for %d results", docID, len(rawArgs), len(rawResps))
	}
	args := pyjson.NewDict()
	for i, a := range rawArgs {
		parts, _ := a.([]any)
		d := pyjson.NewDict()
		for j, p := range parts {
			d.Set(fmt.Sprintf("arg_%d", j), p)
		}
		args.Set(fmt.Sprintf("gen_args_%d", i), d)
	}
	var resps, filtered []any
	for i, r := range rawResps {
		pair, _ := r.([]any)
		ll, ok1 := pair[0].(float64)
		greedy, ok2 := pair[1].(bool)
		if len(pair) != 2 || !ok1 || !ok2 {
			return nil, fmt.Errorf("sample of doc %d: result %d is not [logprob, is_greedy]", docID, i)
		}
		if outputType == datasets.OutputRolling {
			resps, filtered = append(resps, []string{hooks.PyFloat(ll)}), append(filtered, hooks.PyFloat(ll))
			continue
		}
		tuple := []string{hooks.PyFloat(ll), hooks.PyStr(greedy)}
		resps, filtered = append(resps, [][]string{tuple}), append(filtered, tuple)
	}
	line := pyjson.NewDict(
		"doc_id", docID,
		"doc", s["doc"],
		"target", target,
		"arguments", args,
		"resps", resps,
		"filtered_resps", filtered,
		"filter", "none",
		"metrics", metrics,
		"doc_hash", docHash,
		"prompt_hash", promptHash,
		"target_hash", targetHash)
	weights, _ := s["weights"].(map[string]any)
	for _, m := range metrics {
		v := s[m+",none"]
		if w, ok := weights[m].(float64); ok {
			v = []any{v, int64(w)}
		}
		if m == "brier_score" {
			item, err := brierItem(s, rawResps, metrics)
			if err != nil {
				return nil, fmt.Errorf("sample of doc %d: %w", docID, err)
			}
			v = item
		}
		line.Set(m, v)
	}
	return line, nil
}

// brierItem is brier_score's process_results item as lm-eval's samples file holds
// it: (gold, prob_norm), prob_norm = utils.softmax of the choices' log-likelihoods
// (the conditional ones when acc_mutual_info doubled the requests), a numpy array
// that json.dumps writes as str(array).
func brierItem(s map[string]any, resps []any, metrics []string) ([]any, error) {
	gold, ok := s["gold"].(float64)
	if !ok {
		return nil, fmt.Errorf("brier_score: no gold index in the sample")
	}
	n := len(resps)
	if slices.Contains(metrics, "acc_mutual_info") {
		n /= 2
	}
	lls := make([]float64, n)
	for i := range lls {
		lls[i] = resps[i].([]any)[0].(float64) // checked by scoredLine
	}
	return []any{int64(gold), pynumpy.ArrayStr(loglik.Softmax(lls))}, nil
}

// corpusConfig: a run with corpus metrics (bleu, chrf, ter) used lm-eval's
// default bootstrap_iters for their standard errors (capped at 100).
func corpusConfig(results *pyjson.Dict) {
	if c, ok := field(results, "config").(*pyjson.Dict); ok {
		c.Set("bootstrap_iters", loglik.BootstrapIters)
	}
}

// scoredConfig corrects a scored run's config block: no --gen_kwargs, and
// lm-eval's default bootstrap_iters, which perplexity's stderr used.
func scoredConfig(results *pyjson.Dict) {
	if c, ok := field(results, "config").(*pyjson.Dict); ok {
		c.Set("bootstrap_iters", loglik.BootstrapIters).Set("gen_kwargs", nil)
	}
}
