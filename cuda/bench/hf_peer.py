#!/usr/bin/env python3
"""The Hugging Face transformers peer of the CUDA backend's benchmarks.

Same checkpoint, same workload as `go test -tags cuda -bench . ./cuda/`: random prompts
of 512 tokens, greedy decoding, BF16 weights, SDPA attention, through model.generate,
at the batch sizes of --batches (cuda/bench/window.sh: 1 and 64). Prints one JSON
object per measurement and writes each to --out as it comes. Written for transformers
5.x, which takes `dtype=` (4.x before 4.56 took `torch_dtype=`).

decode tok/s = batch * (N - 1) / (t(generate N tokens) - t(generate 1 token)), so the
prefill is subtracted; prefill tok/s = batch * 512 / t(generate 1 token).
"""
import argparse
import json
import sys
import time

import torch
import transformers
from transformers import AutoModelForCausalLM


def timed_generate(model, ids, new_tokens, eos):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    with torch.inference_mode():
        model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=new_tokens,
            min_new_tokens=new_tokens,
            do_sample=False,
            pad_token_id=eos,
        )
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--context", type=int, default=512)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--batches", default="1,64")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()

    major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    dtype_arg = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"
    model = AutoModelForCausalLM.from_pretrained(
        args.model, attn_implementation="sdpa", **{dtype_arg: torch.bfloat16}
    ).cuda().eval()
    # An ignored dtype argument would time float32 weights without a word.
    if model.dtype != torch.bfloat16:
        sys.exit("hf_peer: the model loaded as %s, not bfloat16" % model.dtype)
    eos = model.config.eos_token_id
    eos = eos[0] if isinstance(eos, list) else eos
    vocab = model.config.vocab_size
    gen = torch.Generator().manual_seed(0)
    # Each row is written as soon as it is measured: a peer stopped by its time limit
    # still leaves what it measured.
    out = open(args.out, "w")

    def emit(row):
        print(json.dumps(row), flush=True)
        out.write(json.dumps(row) + "\n")
        out.flush()

    meta = {
        "peer": "transformers.generate",
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(0),
        "dtype": str(model.dtype),
        "attention": getattr(model.config, "_attn_implementation", "unknown"),
    }
    emit(meta)
    for batch in [int(b) for b in args.batches.split(",")]:
        ids = torch.randint(0, vocab, (batch, args.context), generator=gen).cuda()
        try:
            timed_generate(model, ids, 2, eos)  # warm-up
            t1 = min(timed_generate(model, ids, 1, eos) for _ in range(args.repeats))
            tn = min(timed_generate(model, ids, args.new_tokens, eos) for _ in range(args.repeats))
            row = {
                "batch": batch,
                "context": args.context,
                "new_tokens": args.new_tokens,
                "prefill_tok_s": batch * args.context / t1,
                "decode_tok_s": batch * (args.new_tokens - 1) / max(tn - t1, 1e-9),
                "decode_ms_step": 1e3 * (tn - t1) / (args.new_tokens - 1),
            }
        except torch.cuda.OutOfMemoryError as e:  # report, keep going
            row = {"batch": batch, "error": "out of memory: %s" % str(e).splitlines()[0]}
            torch.cuda.empty_cache()
        emit(row)
    out.close()


if __name__ == "__main__":
    sys.exit(main())
