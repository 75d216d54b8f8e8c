#!/usr/bin/env python3
"""Turns run.sh's logs into one markdown table: the Go CUDA backend against the
transformers peer, measured in the same session on the same GPU."""
import json
import re
import sys
from pathlib import Path

out = Path(sys.argv[1])
go = {}
for line in (out / "bench-go.txt").read_text(errors="replace").splitlines():
    m = re.match(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$", line)
    if not m:
        continue
    metrics = dict((unit, float(v)) for v, unit in re.findall(r"([\d.e+-]+) (\S+)", m.group(2)))
    go[m.group(1)] = metrics

peer = {}
peer_file = out / "bench-peer.jsonl"
if peer_file.exists():
    for line in peer_file.read_text().splitlines():
        r = json.loads(line)
        if "batch" in r:
            peer[r["batch"]] = r

print("| workload | cuda (Go) | transformers | ratio |")
print("|---|---|---|---|")
for b in (1, 16, 64, 256):
    g = go.get("BenchmarkDecode/batch=%d" % b, {}).get("tok/s")
    p = peer.get(b, {}).get("decode_tok_s")
    ratio = "%.2f×" % (g / p) if g and p else "n/a"
    print("| decode tok/s, batch %d, ctx 512 | %s | %s | %s |" % (b, "%.0f" % g if g else "n/a", "%.0f" % p if p else peer.get(b, {}).get("error", "n/a"), ratio))
for b in (1, 16):
    g = go.get("BenchmarkPrefill/batch=%dx512" % b, {}).get("tok/s")
    p = peer.get(b, {}).get("prefill_tok_s")
    ratio = "%.2f×" % (g / p) if g and p else "n/a"
    print("| prefill tok/s, %d × 512 | %s | %s | %s |" % (b, "%.0f" % g if g else "n/a", "%.0f" % p if p else "n/a", ratio))
d1 = go.get("BenchmarkDecode/batch=1", {})
if "bw-floor-frac" in d1:
    print("\nbatch-1 step %.3f ms; memory-bandwidth floor %.3f ms; fraction of the floor achieved: %.2f"
          % (d1.get("ms/step", 0), d1.get("floor-ms/step", 0), d1["bw-floor-frac"]))
on = go.get("BenchmarkStats/batch=64/stats=true", {}).get("ms/step")
off = go.get("BenchmarkStats/batch=64/stats=false", {}).get("ms/step")
smp = go.get("BenchmarkSampler", {}).get("ms/batch64")
if on and off:
    print("statistics overhead at batch 64: %.3f ms of %.3f ms per step (%.1f%%)" % (on - off, on, 100 * (on - off) / on))
if smp is not None:
    print("Entropix sampler on the host, 64 sequences: %.3f ms per step" % smp)
