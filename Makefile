# entropix-eval — every target runs from a fresh clone; `make demo` and `make test` are
# the two set-up commands of the README.
GO              ?= go
BIN             := bin/entropix-eval
# Tests read ../shared through ENTROPIX_SHARED (relative paths are taken from the
# module root). Unset it to run only the tests that need no shared data.
ENTROPIX_SHARED ?= ../shared
export ENTROPIX_SHARED
CUDA_SHARED     := $(abspath $(ENTROPIX_SHARED))/cuda
CUDA_ENV        := CGO_ENABLED=1 CGO_CFLAGS="-I$(CUDA_SHARED)/include" CGO_LDFLAGS="-L$(CUDA_SHARED)/lib/stubs"

.PHONY: build test demo bench bench-sweep lint cuda ptx cuda-bench fuzz

build:
	$(GO) build -o $(BIN) ./cmd/entropix-eval

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

demo: build
	./$(BIN) demo

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The nightly sweep timed on this machine (gsm8k_cot 8-shot, random SmolLM2-135M, 3 samplers
# × 3 seeds × N problems) and llama.cpp on the same weights (node + npm install once).
# BENCH_FLAGS passes more, e.g. BENCH_FLAGS="-no-cache-too -max-new-tokens 64".
N           ?= 24
BENCH_FLAGS ?=
bench-sweep: build
	$(GO) run ./cmd/bench-sweep -bin $(BIN) -n $(N) $(BENCH_FLAGS)

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

# Compiles and vets the GPU backend against ../shared's CUDA headers and link stubs;
# running it needs a GPU machine.
cuda:
	$(CUDA_ENV) $(GO) build -tags cuda ./...
	$(CUDA_ENV) $(GO) vet -tags cuda ./...

# Regenerates the committed, embedded cuda/ptx/*.ptx from cuda/*.cu (nvcc >= 11.8;
# compute_80 PTX, JIT-compiled by the driver for A100/H100 and later). Building needs no nvcc.
NVCC         ?= nvcc
CUDA_KERNELS := $(wildcard cuda/*.cu)
ptx: $(CUDA_KERNELS:cuda/%.cu=cuda/ptx/%.ptx)
cuda/ptx/%.ptx: cuda/%.cu cuda/common.cuh
	$(NVCC) -arch=compute_80 --ptx -O3 -o $@ $<

# GPU validation and benchmarks, on a GPU machine only (logs under $$OUT).
cuda-bench:
	cuda/bench/run.sh

# Short runs of every fuzz target (go test -fuzz takes one target at a time).
FUZZTIME ?= 20s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$$$' -fuzz "^$$f$$$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s $$pkg; \
	  done; done
