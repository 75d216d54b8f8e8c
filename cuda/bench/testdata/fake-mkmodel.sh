#!/usr/bin/env bash
# Stands in for mkmodel (window_test.go): an empty checkpoint where -out says.
while [[ $# -gt 0 ]]; do
  [[ $1 == -out ]] && out=$2
  shift
done
mkdir -p "$out" && : >"$out/config.json" && : >"$out/model.safetensors"
