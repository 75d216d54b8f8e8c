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

.PHONY: build test test-arm64 demo bench bench-sweep lint cuda cudasim ptx gpu-prep fuzz image

# The code revision manifests record, for builds where Go's own VCS stamp is absent.
REVISION        := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED        := $(shell git diff --quiet HEAD -- 2>/dev/null || echo true)
LDFLAGS         := -X github.com/entropix-eval/entropix-eval/eval.buildRevision=$(REVISION) -X github.com/entropix-eval/entropix-eval/eval.buildModified=$(MODIFIED)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/entropix-eval

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# The CPU engine's arm64 NEON kernels, checked on an amd64 machine: the arm64 test
# binary run under qemu-user (Debian's qemu-user-static), the kernel and whole-forward
# comparisons with the Go kernels plus the kernel, invariance and prefix-sharing tests
# that dispatch to NEON, in both matmul precisions (BF16 precision's FMLA kernels are
# held to the Go emulation by the BF16FMA tests); and sampler/metrics' tests (its NEON
# math.Exp kernel).
test-arm64:
	GOARCH=arm64 $(GO) vet ./engine/cpu/ ./sampler/metrics/
	GOARCH=arm64 $(GO) test -c -o bin/metrics-arm64.test ./sampler/metrics/
	cd sampler/metrics && qemu-aarch64-static ../../bin/metrics-arm64.test -test.count=1
	GOARCH=arm64 $(GO) test -c -o bin/cpu-arm64.test ./engine/cpu/
	cd engine/cpu && qemu-aarch64-static ../../bin/cpu-arm64.test -test.count=1 \
		-test.run 'NEON|SIMD|Dot|Axpy|Matmul|Matvec|GroupScores|WeightedSum|Attention|Kernels|Expf|Softmax|Invariance|SharedPrefix|PrefixSharing|BF16FMA'

demo: build
	./$(BIN) demo

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The nightly sweep timed on this machine (gsm8k_cot 8-shot, random SmolLM2-135M, 3 samplers
# × 3 seeds × N problems) and llama.cpp on the same weights (node + npm install once).
# BENCH_FLAGS passes more, e.g. BENCH_FLAGS="-no-cache-too -max-new-tokens 64".
N           ?= 24
BENCH_FLAGS ?=
bench-sweep:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/bench-sweep -n $(N) $(BENCH_FLAGS)

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
# since). Building needs no nvcc. The committed PTX is nvcc 11.8.89's, which
# cuda/nvcc118.sh unpacks from Debian 12's packages (docs/cuda.md):
#   make ptx NVCC="$(cuda/nvcc118.sh)" NVCC_FLAGS="-ccbin /usr/bin/g++ -allow-unsupported-compiler"
NVCC         ?= nvcc
NVCC_FLAGS   ?=
CUDA_KERNELS := $(wildcard cuda/*.cu)
ptx:
	@set -e; for f in $(CUDA_KERNELS); do \
	  echo "$(NVCC) $$f"; $(NVCC) $(NVCC_FLAGS) -arch=compute_80 --ptx -O3 -o cuda/ptx/$$(basename $$f .cu).ptx $$f; done
	cd cuda && sha256sum *.cu common.cuh > ptx/sources.sha256

# What a GPU machine (no Go, no ../shared) needs for cuda/bench/window.sh, built here:
# the cuda-tagged test binary, mkmodel, and exactly the shared files the GPU tests read,
# in $(GPUPREP) (git-ignored) with a checksum manifest. Prints the device tool's carry
# list and commands, ending with `carry: PATH (N MiB)`. On the GPU machine:
# bash cuda/bench/window.sh (docs/cuda.md).
GPUPREP ?= .gpuprep
gpu-prep:
	@mkdir -p $(GPUPREP)
	$(CUDA_ENV) $(GO) test -tags cuda -c -o $(GPUPREP)/cuda.test ./cuda/
	CGO_ENABLED=0 $(GO) build -o $(GPUPREP)/mkmodel ./cuda/bench/mkmodel
	$(GO) run ./cuda/bench/gpuprep -shared $(ENTROPIX_SHARED) -prep $(GPUPREP)

# Short runs of every fuzz target (go test -fuzz takes one target at a time).
FUZZTIME ?= 20s
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$$$' -fuzz "^$$f$$$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 2s $$pkg; \
	  done; done

# The container image (Containerfile): FROM scratch, the static pure-Go binary only.
# Built with podman or buildah on vfs storage (works unprivileged and in VMs without
# overlayfs; set CONTAINER_STORAGE= to use your tool's own), tagged VERSION and latest,
# and saved as an OCI archive too; prints the image's files and entrypoint. The binary is
# stamped with REVISION as `make build`'s is. (No -trimpath:
# it would recompile every package instead of reusing `make test`'s build cache.)
IMAGE             ?= ghcr.io/entropix-eval/entropix-eval
VERSION           ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
CONTAINER         ?= $(shell command -v podman || command -v buildah)
CONTAINER_STORAGE ?= --storage-driver vfs
IMAGE_ARCHIVE     := bin/entropix-eval-image.tar
image:
	@test -n "$(CONTAINER)" || { echo "make image needs podman or buildah (apt-get install buildah)" >&2; exit 1; }
	rm -rf bin/image && mkdir -p bin/image/rootfs/usr/local/bin bin/image/rootfs/tmp && chmod 1777 bin/image/rootfs/tmp
	CGO_ENABLED=0 $(GO) build -ldflags "-s -w $(LDFLAGS)" -o bin/image/rootfs/usr/local/bin/entropix-eval ./cmd/entropix-eval
	$(CONTAINER) $(CONTAINER_STORAGE) build --quiet -f Containerfile --build-arg VERSION=$(VERSION) \
	  --build-arg REVISION=$(REVISION) -t $(IMAGE):$(VERSION) -t $(IMAGE):latest bin/image
	rm -f $(IMAGE_ARCHIVE)
	$(CONTAINER) $(CONTAINER_STORAGE) push --quiet $(IMAGE):$(VERSION) oci-archive:$(IMAGE_ARCHIVE):$(VERSION)
	@echo "image $(IMAGE):$(VERSION) (and :latest); OCI archive $(IMAGE_ARCHIVE)"
	@d=$$(mktemp -d) && tar -xf $(IMAGE_ARCHIVE) -C $$d && for b in $$d/blobs/sha256/*; do \
	  tar -tvf $$b 2>/dev/null || grep -o '"Entrypoint":[^]]*]' $$b || true; done; rm -rf $$d
