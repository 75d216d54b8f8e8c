#!/usr/bin/env bash
# Stands in for the cuda-tagged test binary (window_test.go): lists two GPU tests and
# passes both (FAKE_TESTS=pass), skips the second (skip), dies inside it (cut) or hangs
# there (hang); its benchmarks report fixed figures.
case " $* " in
  *" -test.list "*)
    printf 'TestGPUKernelResources\nTestGPUMatchesCPU\n'
    exit 0
    ;;
  *" -test.bench "*Decode*)
    echo "BenchmarkDecode/batch=1-16    64   1500000 ns/op   0.5333 bw-floor-frac   0.8000 floor-ms/step   1.500 ms/step   666.7 tok/s"
    echo "BenchmarkDecode/batch=64-16   64   5000000 ns/op   5.000 ms/step   12800 tok/s"
    exit 0
    ;;
  *" -test.bench "*Prefill*)
    echo "BenchmarkPrefill/batch=64x512-16   8   200000000 ns/op   163840 tok/s"
    exit 0
    ;;
esac
echo "=== RUN   TestGPUKernelResources"
echo "    gpu_cuda_test.go:31: device 0: Fake GPU, compute capability 9.0"
echo "--- PASS: TestGPUKernelResources (0.01s)"
echo "=== RUN   TestGPUMatchesCPU"
case ${FAKE_TESTS:-pass} in
  pass)
    echo "    gpu_cuda_test.go:81: tiny-qwen2/masked/layer-1: max deviations map[logits_rel_l2:0.001]"
    echo "--- PASS: TestGPUMatchesCPU (1.00s)"
    ;;
  skip) echo "--- SKIP: TestGPUMatchesCPU (0.00s)" ;;
  cut) exit 2 ;;
  hang) exec sleep 300 ;;
esac
echo PASS
