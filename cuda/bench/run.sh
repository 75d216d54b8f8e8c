#!/usr/bin/env bash
# GPU validation and benchmarks of the CUDA backend; logs go under $OUT (default
# ./cuda-bench-out). See cuda/bench/README.md.
#
#   cuda/bench/run.sh [stage...]    stages: build test sanitize bench peer summary
#                                   (default: all of them, in that order)
#
# Each stage fits in a 10-minute command, so a GPU session with a per-command limit
# runs them one by one (the model written by `bench` is reused by `peer`).
# Without Go on the GPU machine, run `build` where Go and ../shared/cuda are and carry
# bin/ along.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/cuda-bench-out}
mkdir -p "$OUT" bin
MODEL=${ENTROPIX_BENCH_MODEL:-/tmp/entropix-bench-llama-3.2-1b}
status=0

stage_build() {
  local inc="${CUDA_INCLUDE:-$ROOT/../shared/cuda/include}" lib="${CUDA_STUBS:-$ROOT/../shared/cuda/lib/stubs}"
  command -v go >/dev/null || { echo "build: no Go toolchain here; using the carried bin/"; return 0; }
  { CGO_ENABLED=1 CGO_CFLAGS="-I$inc" CGO_LDFLAGS="-L$lib" go test -tags cuda -c -o bin/cuda.test ./cuda/ &&
    CGO_ENABLED=0 go build -o bin/mkmodel ./cuda/bench/mkmodel; } > "$OUT/build.log" 2>&1 ||
    { echo "build failed: see $OUT/build.log"; return 1; }
}

need_bins() {
  [[ -x bin/cuda.test && -x bin/mkmodel ]] || { echo "bin/cuda.test or bin/mkmodel missing: run the build stage"; exit 1; }
}

setup_env() {
  # cuBLAS: the system's, else the one PyTorch's wheels bring.
  if [[ -z "${ENTROPIX_CUBLAS:-}" ]] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas.so.1[123]'; then
    local d
    d=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], "lib"))' 2>/dev/null)
    [[ -n "$d" ]] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
  fi
  # The shared test models: ../shared beside the checkout, or ./shared inside it.
  if [[ -z "${ENTROPIX_SHARED:-}" ]]; then
    for s in "$ROOT/../shared" "$ROOT/shared"; do
      [[ -d "$s/models" ]] && export ENTROPIX_SHARED=$(cd "$s" && pwd) && break
    done
  fi
  { nvidia-smi; echo; echo "ENTROPIX_SHARED=${ENTROPIX_SHARED:-unset}"; echo "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"; } > "$OUT/env.txt" 2>&1
}

stage_test() {
  need_bins
  echo "== GPU tests (against the CPU backend)"
  (cd cuda && ../bin/cuda.test -test.count=1 -test.v -test.timeout 9m) > "$OUT/test-gpu.log" 2>&1 || status=1
  grep -E '^(--- |ok|FAIL|PASS|SKIP)' "$OUT/test-gpu.log" | tail -40
}

stage_sanitize() {
  need_bins
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not installed: skipped" | tee "$OUT/sanitizer-skipped.txt"; return 0; }
  echo "== compute-sanitizer"
  local t='TestGPUBatchingChunkingAndSplitting|TestGPUFreeAndRefill|TestGPUTopKKernel'
  (cd cuda && compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 ../bin/cuda.test -test.count=1 -test.run "$t") > "$OUT/sanitizer-memcheck.log" 2>&1 || status=1
  (cd cuda && compute-sanitizer --tool racecheck --error-exitcode 3 ../bin/cuda.test -test.count=1 -test.run TestGPUFreeAndRefill) > "$OUT/sanitizer-racecheck.log" 2>&1 || status=1
  (cd cuda && compute-sanitizer --tool initcheck --error-exitcode 3 ../bin/cuda.test -test.count=1 -test.run TestGPUFreeAndRefill) > "$OUT/sanitizer-initcheck.log" 2>&1 || status=1
  (cd cuda && compute-sanitizer --tool synccheck --error-exitcode 3 ../bin/cuda.test -test.count=1 -test.run TestGPUFreeAndRefill) > "$OUT/sanitizer-synccheck.log" 2>&1 || status=1
  tail -n 2 "$OUT"/sanitizer-*.log
}

make_model() {
  need_bins
  [[ -f "$MODEL/config.json" ]] || bin/mkmodel -preset llama-3.2-1b -out "$MODEL" > "$OUT/mkmodel.log" 2>&1 ||
    { echo "mkmodel failed: see $OUT/mkmodel.log"; exit 1; }
}

stage_bench() {
  make_model
  echo "== Go benchmarks"
  (cd cuda && ENTROPIX_BENCH_MODEL="$MODEL" ../bin/cuda.test -test.run '^$' -test.bench . \
    -test.benchtime "${BENCHTIME:-64x}" -test.timeout 9m) > "$OUT/bench-go.txt" 2>&1 || status=1
  grep -E '^Benchmark|FAIL|panic' "$OUT/bench-go.txt"
}

stage_peer() {
  make_model
  echo "== transformers peer"
  python3 cuda/bench/hf_peer.py --model "$MODEL" --out "$OUT/bench-peer.jsonl" > "$OUT/bench-peer.log" 2>&1 || status=1
  tail -n 6 "$OUT/bench-peer.log"
}

stage_summary() {
  [[ -f "$OUT/bench-go.txt" ]] || { echo "no bench-go.txt yet"; return 0; }
  python3 cuda/bench/summarize.py "$OUT" | tee "$OUT/summary.md"
}

stages=("$@")
[[ ${#stages[@]} -eq 0 ]] && stages=(build test sanitize bench peer summary)
setup_env
for s in "${stages[@]}"; do
  case "$s" in
    build) stage_build || exit 1 ;;
    test | sanitize | bench | peer | summary) "stage_$s" ;;
    *) echo "unknown stage $s (build test sanitize bench peer summary)"; exit 2 ;;
  esac
done
exit $status
