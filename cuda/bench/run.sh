#!/usr/bin/env bash
# One command for a GPU session: GPU validation (against the CPU backend), the
# compute-sanitizer runs, the benchmarks and the transformers peer. Everything is
# logged under $OUT (default ./cuda-bench-out); see cuda/bench/README.md.
#
# With a Go toolchain on the GPU machine it builds what it needs. Without one, build
# on any machine first (`cuda/bench/run.sh --build-only`, needs ../shared/cuda) and
# carry bin/cuda.test and bin/mkmodel along.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/cuda-bench-out}
mkdir -p "$OUT" bin
MODEL=${ENTROPIX_BENCH_MODEL:-/tmp/entropix-bench-llama-3.2-1b}

build() {
  local inc="${CUDA_INCLUDE:-$ROOT/../shared/cuda/include}" lib="${CUDA_STUBS:-$ROOT/../shared/cuda/lib/stubs}"
  CGO_ENABLED=1 CGO_CFLAGS="-I$inc" CGO_LDFLAGS="-L$lib" go test -tags cuda -c -o bin/cuda.test ./cuda/ &&
    CGO_ENABLED=0 go build -o bin/mkmodel ./cuda/bench/mkmodel
}
if [[ "${1:-}" == "--build-only" ]]; then build; exit $?; fi
if command -v go >/dev/null; then
  build > "$OUT/build.log" 2>&1 || { echo "build failed: see $OUT/build.log"; exit 1; }
fi
[[ -x bin/cuda.test && -x bin/mkmodel ]] || { echo "bin/cuda.test or bin/mkmodel missing: run '$0 --build-only' where Go is installed"; exit 1; }

# cuBLAS: the system's, else the one PyTorch's wheels bring.
if [[ -z "${ENTROPIX_CUBLAS:-}" ]] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas.so.1[123]'; then
  d=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)
  [[ -n "$d" ]] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
fi
# The shared test models: ../shared beside the checkout, or ./shared inside it.
if [[ -z "${ENTROPIX_SHARED:-}" ]]; then
  for s in "$ROOT/../shared" "$ROOT/shared"; do [[ -d "$s/models" ]] && export ENTROPIX_SHARED=$(cd "$s" && pwd) && break; done
fi

{ nvidia-smi; echo; echo "ENTROPIX_SHARED=${ENTROPIX_SHARED:-unset} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; } > "$OUT/env.txt" 2>&1
status=0
cd "$ROOT/cuda"
echo "== GPU tests"; ../bin/cuda.test -test.count=1 -test.v -test.run 'GPU|Cublas|PTX|Mirror' > "$OUT/test-gpu.log" 2>&1 || status=1
tail -3 "$OUT/test-gpu.log"
if command -v compute-sanitizer >/dev/null; then
  echo "== compute-sanitizer"
  compute-sanitizer --tool memcheck --leak-check full ../bin/cuda.test -test.count=1 \
    -test.run 'TestGPUBatchingChunkingAndSplitting|TestGPUFreeAndRefill|TestGPUTopKKernel' > "$OUT/sanitizer-memcheck.log" 2>&1 || status=1
  compute-sanitizer --tool racecheck ../bin/cuda.test -test.count=1 -test.run 'TestGPUFreeAndRefill' > "$OUT/sanitizer-racecheck.log" 2>&1 || status=1
  compute-sanitizer --tool initcheck ../bin/cuda.test -test.count=1 -test.run 'TestGPUFreeAndRefill' > "$OUT/sanitizer-initcheck.log" 2>&1 || status=1
  tail -2 "$OUT"/sanitizer-*.log
else
  echo "compute-sanitizer not installed: skipped" | tee "$OUT/sanitizer-skipped.txt"
fi
cd "$ROOT"
[[ -f "$MODEL/config.json" ]] || bin/mkmodel -preset llama-3.2-1b -out "$MODEL" > "$OUT/mkmodel.log" 2>&1 || { echo "mkmodel failed"; exit 1; }
echo "== Go benchmarks"
(cd cuda && ENTROPIX_BENCH_MODEL="$MODEL" ../bin/cuda.test -test.run '^$' -test.bench . -test.benchtime "${BENCHTIME:-64x}" \
  -test.timeout 30m) > "$OUT/bench-go.txt" 2>&1 || status=1
grep -E '^Benchmark' "$OUT/bench-go.txt"
echo "== transformers peer"
python3 cuda/bench/hf_peer.py --model "$MODEL" --out "$OUT/bench-peer.jsonl" > "$OUT/bench-peer.log" 2>&1 || status=1
tail -5 "$OUT/bench-peer.log"
python3 cuda/bench/summarize.py "$OUT" | tee "$OUT/summary.md"
exit $status
