#!/usr/bin/env bash
# Builds the container image with `make image` (buildah from Debian, vfs storage) and
# checks the OCI archive it writes: files, entrypoint, user, version label, a static
# binary, and the binary run from the image's root filesystem under chroot
# (TestContainerImage). Containers themselves cannot be run on these machines.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v podman >/dev/null && ! command -v buildah >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends buildah >/dev/null
fi
make image
ENTROPIX_IMAGE="$PWD/bin/entropix-eval-image.tar" go test -count=1 -run '^TestContainerImage$' ./cmd/entropix-eval/
