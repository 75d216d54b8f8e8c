// Package datasets loads benchmark data (Parquet in the Hugging Face layout and
// JSON Lines) into Problems and turns them into prompts the way
// EleutherAI's lm-evaluation-harness does for its GSM8K tasks.
//
// The split follows lm-eval: a Task says how one doc becomes text and target,
// which few-shot examples go in front of it, where generation stops and which
// regexes extract the answer (as plain data; the filters themselves live in
// package eval). The package knows nothing of engines or tokenizers: chat
// prompts are returned as []Message for the tokenizer's template to render.
//
// Doc ids: a dataset given as a glob is read file by file in sorted (byte-wise
// lexical) path order, and a problem's Index is its row index across all those
// files. This equals lm-eval's doc_id for the Hugging Face shards
// (split-00000-of-0000N.parquet sort in row order).
package datasets
