#!/usr/bin/env python3
"""Turns the benchmark logs in OUT (bench-go.txt, peer.jsonl) into one markdown table:
the Go CUDA backend against the transformers peer, measured in the same session on the
same GPU, then the goals the backend is held to (docs/cuda.md)."""
import json
import re
import sys
from pathlib import Path

# Goals for the first GPU run (issue 25).
GOAL_B64_VS_PEER = 2.0
GOAL_B1_BW_FRACTION = 0.70


def go_benchmarks(path):
    """Benchmark name (without the -GOMAXPROCS suffix) -> {unit: value}."""
    out = {}
    if not path.exists():
        return out
    for line in path.read_text(errors="replace").splitlines():
        m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$", line)
        if m:
            out[m.group(1)] = {unit: float(v) for v, unit in re.findall(r"([\d.e+-]+) (\S+)", m.group(2))}
    return out


def peer_rows(path):
    """(batch size -> the peer's row for it, the peer's versions line or None)."""
    rows, meta = {}, None
    if not path.exists():
        return rows, meta
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "batch" in r:
            rows[r["batch"]] = r
        elif "peer" in r:
            meta = r
    return rows, meta


def fmt(v):
    return "%.0f" % v if v else "n/a"


def main():
    out = Path(sys.argv[1])
    go = go_benchmarks(out / "bench-go.txt")
    peer, meta = peer_rows(out / "peer.jsonl")
    ratios = {}
    print("| workload (Llama-3.2-1B shape, BF16) | cuda (Go) | transformers | ratio |")
    print("|---|---|---|---|")
    rows = []
    for name in sorted(go):
        m = re.match(r"^BenchmarkDecode/batch=(\d+)$", name)
        if m:
            b = int(m.group(1))
            rows.append(("decode tok/s, batch %d, context 512" % b, name, b, "decode_tok_s"))
        m = re.match(r"^BenchmarkPrefill/batch=(\d+)x(\d+)$", name)
        if m:
            b = int(m.group(1))
            rows.append(("prefill tok/s, %d x %s" % (b, m.group(2)), name, b, "prefill_tok_s"))
    for label, name, batch, key in rows:
        g = go[name].get("tok/s")
        p = peer.get(batch, {}).get(key)
        ratio = g / p if g and p else None
        ratios[name] = ratio
        shown_p = fmt(p) if p else peer.get(batch, {}).get("error", "n/a")
        print("| %s | %s | %s | %s |" % (label, fmt(g), shown_p, "%.2fx" % ratio if ratio else "n/a"))

    print()
    if meta:
        print("peer: %s, transformers %s, torch %s, %s, %s attention" % (
            meta.get("peer"), meta.get("transformers"), meta.get("torch"), meta.get("dtype", "?"), meta.get("attention", "?")))
    d1 = go.get("BenchmarkDecode/batch=1", {})
    if "bw-floor-frac" in d1:
        print("batch-1 step %.3f ms; memory-bandwidth floor %.3f ms; fraction of the floor achieved: %.2f"
              % (d1.get("ms/step", 0), d1.get("floor-ms/step", 0), d1["bw-floor-frac"]))
    on = go.get("BenchmarkStats/batch=64/stats=true", {}).get("ms/step")
    off = go.get("BenchmarkStats/batch=64/stats=false", {}).get("ms/step")
    if on and off:
        print("statistics overhead at batch 64: %.3f ms of %.3f ms per step (%.1f%%)" % (on - off, on, 100 * (on - off) / on))

    print()
    r64 = ratios.get("BenchmarkDecode/batch=64")
    print("goal: decode at batch 64 >= %.0fx the peer: %s" % (
        GOAL_B64_VS_PEER, "n/a" if r64 is None else ("met (%.2fx)" % r64 if r64 >= GOAL_B64_VS_PEER else "MISSED (%.2fx)" % r64)))
    frac = d1.get("bw-floor-frac")
    print("goal: batch-1 decode >= %.0f%% of the HBM bandwidth floor: %s" % (
        100 * GOAL_B1_BW_FRACTION, "n/a" if frac is None else ("met (%.0f%%)" % (100 * frac) if frac >= GOAL_B1_BW_FRACTION else "MISSED (%.0f%%)" % (100 * frac))))


if __name__ == "__main__":
    main()
