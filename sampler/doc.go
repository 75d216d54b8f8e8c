// Package sampler turns one decoding step's numbers (a metrics.Dist and the metric
// layer's metrics.AttnStats) into the next token, and says why: every Sample call
// returns a Decision carrying the strategy and the parameters actually used.
//
// Baselines (greedy, temperature, top-k, top-p, min-p and their combination in the
// Hugging Face or vLLM V1 order) and the Entropix variants (original, frog, the SmolLM
// presets; faithful to the upstream quirks or fixed) share one truncation core
// (truncate.go) that works on the sorted candidate list of a Dist: every filter keeps
// a prefix of that list, so truncation is a cut index, never a sort.
//
// Randomness comes from an RNG stream per sequence derived from (run seed, problem
// id, repeat) with SHA-256, and draws are exact exponential races, so a sequence's
// tokens never depend on batch size, worker count or scheduling order.
//
// The package imports nothing internal: the clarifying token of Entropix is resolved
// through a TokenLookup the caller passes in.
package sampler
