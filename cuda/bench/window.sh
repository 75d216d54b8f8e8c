#!/usr/bin/env bash
# The CUDA backend's GPU window (docs/cuda.md): one command on a GPU machine, from what
# `make gpu-prep` built and copied into .gpuprep/ where Go and ../shared are.
#
#   bash cuda/bench/window.sh           pre-flight, the GPU-vs-CPU tests, decode at batch
#                                       1 and 64 and prefill at 64 x 512 on a
#                                       Llama-3.2-1B-shaped BF16 model, the transformers
#                                       peer on the same weights, summary: < 6 minutes
#   bash cuda/bench/window.sh sanitize  compute-sanitizer memcheck and racecheck on the
#                                       short GPU tests: < 3 minutes
#   bash cuda/bench/window.sh tests     pre-flight and the GPU-vs-CPU tests alone: < 2 minutes
#   bash cuda/bench/window.sh profile   Nsight Compute's per-kernel GPU time over a
#                                       stretch of batch-1 and batch-64 decode steps on
#                                       the benchmark model (after a window run on the
#                                       same machine wrote it): < 3 minutes
#
# Every step runs under its own `timeout`, cut to what is left before the mode's
# deadline, so the whole stays inside its minutes whatever hangs. The command exits
# non-zero when anything did not happen as planned: prepared data missing or corrupt, a
# GPU test skipped, failed or not run, a step timed out or had no time left, a benchmark
# or the peer without its figures, or $OUT beyond what the device tool brings back (8
# files). Logs and summary.md go to $OUT (default out/MODE); the summary prints last.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
MODE=${1:-window}
PREP=${GPUPREP:-$ROOT/.gpuprep}
OUT=${OUT:-$ROOT/out/$MODE}
MODEL=${ENTROPIX_BENCH_MODEL:-/tmp/entropix-bench-llama-3.2-1b}
PRESET=${BENCH_PRESET:-llama-3.2-1b} # any mkmodel preset; the figures are for llama-3.2-1b
OUT_MAX_FILES=8

# Seconds. Steps get at most their own budget and never run past STEPS_END (counted from
# the start; WINDOW_SECONDS sets another); the summary after them takes at most 15 more.
case $MODE in
  window) STEPS_END=${WINDOW_SECONDS:-340} ;;
  sanitize) STEPS_END=${WINDOW_SECONDS:-160} ;;
  profile) STEPS_END=${WINDOW_SECONDS:-160} ;;
  tests) STEPS_END=${WINDOW_SECONDS:-100} ;;
  *) echo "usage: $0 [sanitize|profile|tests]" >&2; exit 2 ;;
esac
T_PREFLIGHT=25 T_MKMODEL=160 T_TESTS=130 T_DECODE=60 T_PREFILL=30 T_PEER=65
T_MEMCHECK=90 T_RACECHECK=50 T_PROFILE=75
mkdir -p "$OUT" || exit 1
PREP=$(cd "$PREP" 2>/dev/null && pwd || echo "$PREP")
export PREP
# A GPU test binary that finds no usable device fails instead of skipping.
export ENTROPIX_REQUIRE_GPU=1

problems=()
problem() { problems+=("$*"); echo "PROBLEM: $*"; }
steps=()

# budget SECONDS: that, or what is left before STEPS_END if less (0: nothing left).
budget() {
  local left=$((STEPS_END - SECONDS))
  ((left < 5)) && left=0
  echo $(($1 < left ? $1 : left))
}

# step NAME SECONDS LOG CMD...: CMD (one program) under `timeout SECONDS`, its output
# appended to LOG; records the outcome and returns CMD's status.
step() {
  local name=$1 secs=$2 log=$3 t0=$SECONDS rc
  shift 3
  if ((secs == 0)); then
    steps+=("| $name | not run: no time left | |")
    problem "$name: not run, no time left before the ${STEPS_END}s deadline"
    return 1
  fi
  echo "== $name (at most ${secs}s)"
  timeout -k 2 "$secs" "$@" >>"$log" 2>&1
  rc=$?
  if [[ $rc == 124 || $rc == 137 ]]; then
    steps+=("| $name | timed out | $((SECONDS - t0))s of ${secs}s |")
    problem "$name timed out after ${secs}s (see $(basename "$log"))"
  else
    steps+=("| $name | exit $rc | $((SECONDS - t0))s of ${secs}s |")
  fi
  return $rc
}

# check_prep: every file `make gpu-prep` listed is here and intact.
check_prep() {
  local bad
  if [[ ! -f "$PREP/MANIFEST.sha256" ]]; then
    problem "no $PREP/MANIFEST.sha256: run \`make gpu-prep\` where Go and ../shared are, and carry .gpuprep"
    return 1
  fi
  if ! bad=$(cd "$PREP" && timeout 10 sha256sum --check --quiet MANIFEST.sha256 2>&1); then
    problem "prepared data missing or corrupt in $PREP: $(tr '\n' ';' <<<"$bad")"
    # Without the binaries nothing can run; without a shared file the benchmarks and
    # the peer still can, and the GPU tests fail naming it.
    grep -qE '(^|: )(cuda\.test|mkmodel):' <<<"$bad" && return 1
  fi
  # In case the copy to this machine dropped the executable bits.
  chmod u+x "$PREP/cuda.test" "$PREP/mkmodel"
}

# find_cublas prints the libcublas to use: ENTROPIX_CUBLAS, the loader's, a toolkit's,
# or PyTorch's wheel's (CUDA 13 wheels keep it in nvidia/cu13/lib).
find_cublas() {
  local v d p
  [[ -n "${ENTROPIX_CUBLAS:-}" ]] && { echo "$ENTROPIX_CUBLAS"; return; }
  for v in 13 12 11; do
    p=$(ldconfig -p 2>/dev/null | awk -v s="libcublas.so.$v" '$1 == s { print $NF; exit }')
    [[ -n "$p" ]] && { echo "$p"; return; }
  done
  for d in ${CUDA_HOME:+"$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"} /usr/local/cuda/lib64 \
    /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-*/targets/x86_64-linux/lib; do
    for v in 13 12 11; do
      [[ -e "$d/libcublas.so.$v" ]] && { echo "$d/libcublas.so.$v"; return; }
    done
  done
  timeout 10 python3 -c '
import glob, site
for d in site.getsitepackages() + [site.getusersitepackages()]:
    for pat in ("nvidia/cu13/lib/libcublas.so.13", "nvidia/cublas/lib/libcublas.so.1[123]"):
        for f in sorted(glob.glob(d + "/" + pat), reverse=True):
            print(f)
            raise SystemExit' 2>/dev/null
}

setup_cublas() {
  local lib
  lib=$(find_cublas)
  if [[ -z "$lib" ]]; then
    problem "no libcublas.so.13/12/11: not in ldconfig, /usr/local/cuda* or PyTorch's wheels (set ENTROPIX_CUBLAS)"
    return
  fi
  export ENTROPIX_CUBLAS=$lib
  # Its libcublasLt sits beside it.
  LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
}

# setup_libcuda: when the loader cannot find the driver's libcuda.so.1 for the test
# binary, the folder holding it goes on LD_LIBRARY_PATH (a container may mount the
# driver under /usr/local/nvidia without telling the loader). Never a toolkit's stub.
setup_libcuda() {
  local lib
  timeout 10 ldd "$PREP/cuda.test" 2>/dev/null | grep -q 'libcuda.so.1 => not found' || return 0
  lib=$(timeout 10 find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib -maxdepth 3 \
    -name libcuda.so.1 ! -path '*stubs*' ! -path '*compat*' 2>/dev/null | head -1)
  if [[ -z "$lib" ]]; then
    problem "the driver's libcuda.so.1 is nowhere the loader or window.sh looks"
    return
  fi
  LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export LD_LIBRARY_PATH
}

# preflight_report prints what the machine is, which driver and libraries the test
# binary loads, and what ptxas makes of each embedded PTX for this GPU. It runs in a
# child shell under the pre-flight's timeout.
preflight_report() {
  local cc m
  echo "# pre-flight $(date -u +%FT%TZ) on $(uname -n), kernel $(uname -r)"
  echo "## nvidia-smi"
  nvidia-smi -L || echo "nvidia-smi -L failed"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  echo "## glibc, and what the test binary loads"
  ldd --version | head -1
  ldd "$PREP/cuda.test"
  echo "cuBLAS: ${ENTROPIX_CUBLAS:-none found}"
  ldconfig -p | grep -E 'libcuda\.so|libcublas(Lt)?\.so' || echo "(no libcuda or libcublas in the ldconfig cache)"
  echo "## toolchain"
  nvcc --version | tail -2 || echo "no nvcc"
  compute-sanitizer --version | head -1 || echo "no compute-sanitizer"
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  echo "## ptxas -v for sm_${cc:-90}: registers and spills per kernel"
  if ! command -v ptxas >/dev/null; then
    echo "no ptxas on PATH: TestGPUKernelResources logs what the driver's JIT made"
    return
  fi
  for m in cuda/ptx/*.ptx; do
    ptxas -arch="sm_${cc:-90}" -v -o /dev/null "$m" 2>&1 |
      awk -v m="$(basename "$m")" '/Compiling entry/ { k = $(NF - 2); gsub("'\''", "", k) } /spill/ { s = $0 } /Used/ { print m, k, $0, "|", s }'
  done
}

preflight() {
  local f=$OUT/preflight.txt
  step "pre-flight" "$(budget "$T_PREFLIGHT")" "$f" bash -c "$(declare -f preflight_report); preflight_report"
  grep -q '^GPU [0-9]*:' "$f" || problem "nvidia-smi lists no GPU (no driver or no device here; see preflight.txt)"
  if grep -qE '=> not found|version .GLIBC.* not found' "$f"; then
    problem "the test binary's libraries do not all load: $(grep -E 'not found' "$f" | tr '\n' ';')"
  fi
}

# gpu_tests NAME SECONDS RUN_REGEX LOG [CMD_PREFIX...]: the prepared binary's tests
# matching RUN_REGEX, which must all pass: a skip (no device, no data) or a test that
# did not run is a failure, since that is what a green run without a GPU looks like.
gpu_tests() {
  local name=$1 secs=$2 regex=$3 log=$4 list names n
  shift 4
  # Go test binaries run in their package's folder.
  cd "$ROOT/cuda" || return
  list=$(timeout 15 "$PREP/cuda.test" -test.list "$regex" 2>&1)
  names=$(grep -E '^Test[A-Za-z0-9_]*$' <<<"$list")
  if grep -qE '^(SKIP|FAIL): no usable CUDA device' <<<"$list"; then
    problem "$name: not run, the test binary found no usable GPU: $(grep -E '^(SKIP|FAIL): ' <<<"$list" | head -1)"
    steps+=("| $name | not run: no GPU | |")
    names=
  elif [[ -z "$names" ]]; then
    problem "$name: the test binary lists no test matching $regex: $(head -3 <<<"$list" | tr '\n' ';')"
    steps+=("| $name | not run | |")
  else
    secs=$(budget "$secs")
    ENTROPIX_SHARED=$PREP/shared step "$name" "$secs" "$log" "$@" "$PREP/cuda.test" \
      -test.run "^($(paste -sd'|' <<<"$names"))\$" -test.v -test.count=1 -test.timeout "$((secs > 10 ? secs - 5 : secs))s"
  fi
  cd "$ROOT" || exit 1
  [[ -z "$names" ]] && return
  local failed=() notrun=()
  for n in $names; do
    if grep -q -- "^--- PASS: $n " "$log"; then continue; fi
    if grep -q -- "^--- FAIL: $n " "$log"; then failed+=("$n"); else notrun+=("$n"); fi
  done
  if grep -qE '^SKIP|^ *--- SKIP' "$log"; then
    problem "$name: skipped: $(grep -E '^SKIP|^ *--- SKIP' "$log" | head -3 | tr '\n' ';')"
  fi
  ((${#failed[@]})) && problem "$name: failed: ${failed[*]} (see $(basename "$log"))"
  ((${#notrun[@]})) && problem "$name: did not run to the end: ${notrun[*]} (see $(basename "$log"))"
}

# bench NAME SECONDS BENCH_REGEX BENCHTIME WANT...: the Go benchmarks matching
# BENCH_REGEX on the model; each WANT (a benchmark name) must report tok/s.
bench() {
  local name=$1 secs=$2 regex=$3 times=$4 log=$OUT/bench-go.txt w
  shift 4
  secs=$(budget "$secs")
  cd "$ROOT/cuda" || return
  ENTROPIX_BENCH_MODEL=$MODEL step "$name" "$secs" "$log" "$PREP/cuda.test" -test.run '^$' \
    -test.bench "$regex" -test.benchtime "$times" -test.timeout "$((secs > 10 ? secs - 5 : secs))s"
  cd "$ROOT" || exit 1
  for w in "$@"; do
    grep -qE "^$w(-[0-9]+)? .* tok/s" "$log" || problem "$name: no figure for $w (see bench-go.txt)"
  done
}

peer() {
  local rows
  step "transformers peer" "$(budget "$T_PEER")" "$OUT/peer.log" env PYTHONUNBUFFERED=1 \
    python3 cuda/bench/hf_peer.py --model "$MODEL" --batches 1,64 --out "$OUT/peer.jsonl"
  rows=$(grep -c '"decode_tok_s"' "$OUT/peer.jsonl" 2>/dev/null)
  ((${rows:-0} >= 2)) || problem "transformers peer: no decode figures for batch 1 and 64 (see peer.log)"
}

# profile_decode BATCH: ncu's per-kernel GPU time for kernel launches of decode steps
# of the decode benchmark at BATCH, skipping its prefills (the benchmark runs once with
# b.N = 1, then 40; a 64 x 512 prefill is 4,900 to 7,000 launches as cuBLAS launches one
# or two kernels per GEMM; cuda/profile_window_test.go checks that both windows fall on
# the second run's decode steps either way), so the sum over kernels can be set against
# the step's wall time: the gap is host and launch overhead.
profile_decode() {
  local log=$OUT/profile-b$1.txt skip=1500 count=800
  (($1 > 1)) && skip=14300 count=1200
  if ! command -v ncu >/dev/null; then
    problem "profile: ncu is not on PATH"
    return
  fi
  cd "$ROOT/cuda" || return
  ENTROPIX_BENCH_MODEL=$MODEL step "profile batch $1" "$(budget "$T_PROFILE")" "$log" \
    ncu --metrics gpu__time_duration.sum --print-summary per-kernel --launch-skip "$skip" --launch-count "$count" \
    "$PREP/cuda.test" -test.run '^$' -test.bench "^BenchmarkDecode\$/^batch=$1\$" -test.benchtime 40x
  cd "$ROOT" || exit 1
  grep -q 'gpu__time_duration' "$log" || problem "profile batch $1: no kernel times (see $(basename "$log"))"
}

start_mkmodel() {
  mkmodel_pid=
  if [[ -f "$MODEL/model.safetensors" ]]; then
    echo "model already at $MODEL" >"$OUT/mkmodel.log"
    return
  fi
  # Written under another name and renamed, so a model cut off midway is never reused.
  rm -rf "$MODEL.partial"
  timeout -k 2 "$T_MKMODEL" "$PREP/mkmodel" -preset "$PRESET" -out "$MODEL.partial" >"$OUT/mkmodel.log" 2>&1 &&
    mv "$MODEL.partial" "$MODEL" &
  mkmodel_pid=$!
}

wait_mkmodel() {
  [[ -z "$mkmodel_pid" ]] && return
  wait "$mkmodel_pid" || problem "mkmodel ($PRESET) failed or timed out after ${T_MKMODEL}s (see mkmodel.log)"
  [[ -f "$MODEL/model.safetensors" ]] || problem "no benchmark model at $MODEL"
}

# check_out: what the device tool brings back is at most 8 files, no deeper than two
# folders; this script writes plain files only. summary.md counts, written or not.
check_out() {
  local n deep
  n=$(($(find "$OUT" -type f ! -path "$OUT/summary.md" | wc -l) + 1))
  deep=$(find "$OUT" -mindepth 3 | head -3 | tr '\n' ' ')
  ((n <= OUT_MAX_FILES)) || problem "$OUT holds $n files; the device tool brings back $OUT_MAX_FILES"
  [[ -z "$deep" ]] || problem "$OUT has entries deeper than two folders: $deep"
}

summary() {
  {
    echo "# CUDA backend, GPU window ($MODE), $(date -u +%FT%TZ), ${SECONDS}s"
    echo
    timeout 5 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/GPU, driver: /'
    echo
    echo "| step | outcome | time |"
    echo "|---|---|---|"
    printf '%s\n' "${steps[@]}"
    echo
    if [[ $MODE == window && -f "$OUT/bench-go.txt" ]]; then
      timeout 10 python3 cuda/bench/summarize.py "$OUT" 2>&1 || echo "(summarize.py failed)"
      echo
    fi
    if [[ $MODE == window || $MODE == tests ]] && [[ -f "$OUT/test-gpu.log" ]]; then
      echo "From test-gpu.log: the device, each kernel's resources, the largest GPU-vs-CPU"
      echo "deviations per model and mode, greedy steps that diverged inside the BF16 noise,"
      echo "and each Entropix variant's decisions against the CPU's:"
      echo
      grep -E '^ +[a-z_]+\.go:[0-9]+: (device |kernel |.*max deviations|.*diverges inside|.*branches differ at)' "$OUT/test-gpu.log" 2>/dev/null |
        sed 's/^ *[a-z_]*\.go:[0-9]*: /    /'
    fi
    if [[ $MODE == sanitize ]]; then
      grep -hE '(ERROR|RACECHECK) SUMMARY' "$OUT"/sanitize-*.log 2>/dev/null
    fi
    if [[ $MODE == profile ]]; then
      grep -hE 'ns/op|, Context |gpu__time_duration|nvocations' "$OUT"/profile-b*.txt 2>/dev/null |
        sed -E 's/ +/ /g' | cut -c1-160
    fi
    echo
    if ((${#problems[@]})); then
      echo "## FAILED: ${#problems[@]} problem(s)"
      printf -- '- %s\n' "${problems[@]}"
    else
      echo "## OK: every step ran and passed"
    fi
  } >"$OUT/summary.md" 2>&1
}

mkmodel_pid=
if check_prep; then
  setup_libcuda
  setup_cublas
  if [[ $MODE == window ]]; then
    start_mkmodel
    preflight
    gpu_tests "GPU tests" "$T_TESTS" '^TestGPU' "$OUT/test-gpu.log"
    wait_mkmodel
    bench "decode benchmarks" "$T_DECODE" '^BenchmarkDecode$/^batch=(1|64)$' 64x \
      'BenchmarkDecode/batch=1' 'BenchmarkDecode/batch=64'
    bench "prefill benchmark" "$T_PREFILL" '^BenchmarkPrefill$/^batch=64x512$' 8x 'BenchmarkPrefill/batch=64x512'
    peer
  elif [[ $MODE == tests ]]; then
    preflight
    gpu_tests "GPU tests" "$T_TESTS" '^TestGPU' "$OUT/test-gpu.log"
  elif [[ $MODE == profile ]]; then
    start_mkmodel
    wait_mkmodel
    profile_decode 1
    profile_decode 64
  elif ! command -v compute-sanitizer >/dev/null; then
    problem "compute-sanitizer is not on PATH"
  else
    gpu_tests "memcheck" "$T_MEMCHECK" '^(TestGPUFreeAndRefill|TestGPUTopKKernelMatchesHostRanking|TestGPUCublasStridedBatchedGemm|TestGPUSplitAttentionMatchesUnsplit)$' \
      "$OUT/sanitize-memcheck.log" compute-sanitizer --tool memcheck --error-exitcode 3 --print-limit 50
    grep -q 'ERROR SUMMARY: 0 errors' "$OUT/sanitize-memcheck.log" 2>/dev/null ||
      problem "memcheck: no 'ERROR SUMMARY: 0 errors' (see sanitize-memcheck.log)"
    gpu_tests "racecheck" "$T_RACECHECK" '^TestGPUFreeAndRefill$' "$OUT/sanitize-racecheck.log" \
      compute-sanitizer --tool racecheck --error-exitcode 3 --print-limit 50
    grep -q 'RACECHECK SUMMARY: 0 hazards' "$OUT/sanitize-racecheck.log" 2>/dev/null ||
      problem "racecheck: no 'RACECHECK SUMMARY: 0 hazards' (see sanitize-racecheck.log)"
  fi
fi
check_out
summary
echo
cat "$OUT/summary.md"
((${#problems[@]} == 0))
