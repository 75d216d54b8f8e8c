#!/usr/bin/env bash
# Prints the path of an nvcc 11.8.89, the one the committed cuda/ptx/*.ptx came from,
# unpacked (not installed) from Debian 12's nvidia-cuda-toolkit and libnvvm4 (the
# non-free component) into a cache folder on first use:
#
#   make ptx NVCC="$(cuda/nvcc118.sh)" NVCC_FLAGS="-ccbin /usr/bin/g++ -allow-unsupported-compiler"
#
# Its headers are ../shared/cuda/include (ENTROPIX_SHARED). The apt lists and packages
# stay in the cache folder; the system's apt configuration is not touched. Needs a
# Debian 12 machine that reaches Debian's package mirror (apt-get, dpkg-deb).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${ENTROPIX_SHARED:-../shared}" && pwd)
cache=${ENTROPIX_NVCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/entropix-eval/nvcc-11.8.89}
root=$cache/root
nvcc=$root/usr/lib/nvidia-cuda-toolkit/bin/nvcc
if [[ ! -x "$nvcc" ]]; then
  mkdir -p "$cache/lists/partial" "$cache/debs" "$root"
  # The mirror the system already uses, with the components it leaves out.
  mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null ||
    awk '/^deb / { print $2; exit }' /etc/apt/sources.list)
  echo "deb $mirror bookworm contrib non-free" >"$cache/sources.list"
  apt_opts=(-o "Dir::Etc::sourcelist=$cache/sources.list" -o "Dir::Etc::sourceparts=-"
    -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache" -o "Debug::NoLocking=1")
  apt-get "${apt_opts[@]}" -qq update >&2
  (cd "$cache/debs" && apt-get "${apt_opts[@]}" -qq download \
    nvidia-cuda-toolkit=11.8.89~11.8.0-5~deb12u1 libnvvm4=11.8.89~11.8.0-5~deb12u1 >&2)
  for f in "$cache"/debs/*.deb; do dpkg-deb -x "$f" "$root"; done
fi
# nvcc reads nvcc.profile beside itself; Debian's points at /usr and /etc.
bin=$root/usr/lib/nvidia-cuda-toolkit/bin
rm -f "$bin/nvcc.profile"
cat >"$bin/nvcc.profile" <<EOF
NVVMIR_LIBRARY_DIR = $root/usr/lib/nvidia-cuda-toolkit/libdevice
PATH += $bin:$root/usr/bin:
INCLUDES += "-I$shared/cuda/include" \$(_SPACE_)
EOF
echo "$nvcc"
