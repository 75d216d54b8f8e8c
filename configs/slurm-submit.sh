#!/bin/bash
# Submits a sweep to Slurm as N shards and a merge:
#
#   configs/slurm-submit.sh SWEEP.yaml N OUT [sbatch options...]
#   configs/slurm-submit.sh configs/nightly.yaml 8 runs/nightly --cpus-per-task=16 --mem=32G --time=12:00:00
#
# queues an N-task array (configs/slurm-array.sh; task i runs `entropix-eval run SWEEP
# --shard i/N --out OUT/shard-i`, requeueable) and a job that waits for every task to
# succeed (afterok) and runs `entropix-eval merge --out OUT/merged OUT/shard-*`. It
# prints both job ids. OUT and OUT/logs are created first (Slurm does not create the
# directory of a log file); each task logs to OUT/logs/shard-i.log, appending across
# requeues, and the merge to OUT/logs/merge.log. If a task fails for good the merge job
# is cancelled; run the script again with the same arguments to resume the unfinished
# shards from their journals.
#
# The sbatch options (partition, account, QoS, time, CPUs, memory, GPUs...) apply to both
# jobs, so pass no --array (throttle with `scontrol update JobId=ID ArrayTaskThrottle=K`). Jobs run in the current directory, so relative paths in the sweep file are taken
# from here. The binary is $ENTROPIX_EVAL, else entropix-eval on PATH, else bin/ of this
# checkout (`make build`); it, the sweep, the model, the data and OUT must be on storage
# every node sees.
set -euo pipefail

usage() {
  sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^# *//' >&2
  exit 2
}
die() {
  echo "slurm-submit.sh: $*" >&2
  exit 1
}

[ "$#" -ge 3 ] || usage
sweep=$1 shards=$2 out=$3
shift 3
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer, got '$shards'"
[ -f "$sweep" ] || die "sweep file $sweep not found"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"
for opt in "$@"; do
  case "$opt" in
    --array | --array=* | -a*) die "the array is N tasks; pass no $opt (throttle with scontrol update JobId=ID ArrayTaskThrottle=K)" ;;
  esac
done

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${ENTROPIX_EVAL:-}
if [ -z "$bin" ]; then
  bin=$(command -v entropix-eval || echo "$here/../bin/entropix-eval")
fi
[ -x "$bin" ] || die "no entropix-eval binary at $bin (set ENTROPIX_EVAL or run 'make build')"

mkdir -p "$out/logs"
export ENTROPIX_EVAL ENTROPIX_SWEEP ENTROPIX_SHARDS ENTROPIX_OUT
ENTROPIX_EVAL=$(realpath "$bin")
ENTROPIX_SWEEP=$(realpath "$sweep")
ENTROPIX_SHARDS=$shards
ENTROPIX_OUT=$(realpath "$out")
name=$(basename "$sweep")
name=entropix-${name%.*}

# --parsable prints "jobid" or "jobid;cluster".
array=$(sbatch --parsable --job-name="$name" --array="0-$((shards - 1))" --requeue \
  --open-mode=append --output="$ENTROPIX_OUT/logs/shard-%a.log" --export=ALL \
  "$@" "$here/slurm-array.sh")
array=${array%%;*}

dirs=()
for ((i = 0; i < shards; i++)); do dirs+=("$ENTROPIX_OUT/shard-$i"); done
merge_cmd=$(printf '%q ' exec "$ENTROPIX_EVAL" merge --out "$ENTROPIX_OUT/merged" "${dirs[@]}")
if ! merge=$(sbatch --parsable --job-name="$name-merge" --dependency="afterok:$array" \
  --kill-on-invalid-dep=yes --open-mode=append --output="$ENTROPIX_OUT/logs/merge.log" \
  "$@" --wrap "$merge_cmd"); then
  scancel "$array" || true
  die "submitting the merge job failed; cancelled array job $array"
fi
merge=${merge%%;*}

echo "array job $array: $shards tasks, logs in $ENTROPIX_OUT/logs"
echo "merge job $merge: writes $ENTROPIX_OUT/merged once every task has succeeded"
