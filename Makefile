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

.PHONY: build test demo bench lint cuda cudasim ptx cuda-bench fuzz

# The code revision manifests record, for builds where Go's own VCS stamp is absent.
REVISION        := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED        := $(shell git diff --quiet HEAD -- 2>/dev/null || echo true)
LDFLAGS         := -X github.com/entropix-eval/entropix-eval/eval.buildRevision=$(REVISION) -X github.com/entropix-eval/entropix-eval/eval.buildModified=$(MODIFIED)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/entropix-eval

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

demo: build
	./$(BIN) demo

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

# Compiles and vets the GPU backend against ../shared's CUDA headers and link stubs;
# running it needs a GPU machine.
cuda:
	$(CUDA_ENV) $(GO) build -tags cuda ./...
	$(CUDA_ENV) $(GO) vet -tags cuda ./...

# Runs the GPU backend's kernels on the CPU: the unmodified cuda/*.cu compiled with the
# system C++ compiler (g++) behind the cudasim tag, with barrier, shuffle, bounds and
# shared-memory race checks, under every pipeline test (cuda/README.md).
cudasim:
	CGO_ENABLED=1 $(GO) vet -tags cudasim ./cuda/...
	CGO_ENABLED=1 $(GO) test -count=1 -tags cudasim ./cuda/...

# Regenerates the committed, embedded cuda/ptx/*.ptx from cuda/*.cu (nvcc >= 11.8;
# compute_80 PTX, JIT-compiled by the driver for A100/H100 and later), always all of
# them, and records the sources' hashes beside them (a test fails when a .cu changed
# since). Building needs no nvcc.
NVCC         ?= nvcc
CUDA_KERNELS := $(wildcard cuda/*.cu)
ptx:
	@set -e; for f in $(CUDA_KERNELS); do \
	  echo "$(NVCC) $$f"; $(NVCC) -arch=compute_80 --ptx -O3 -o cuda/ptx/$$(basename $$f .cu).ptx $$f; done
	cd cuda && sha256sum *.cu common.cuh > ptx/sources.sha256

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
