#!/bin/bash
# One task of a sharded sweep as a Slurm array: task i of n evaluates shard i/n into
# $ENTROPIX_OUT/shard-i. Submit it with configs/slurm-submit.sh, which sets the
# environment below, creates the directories and queues the merge job:
#
#   configs/slurm-submit.sh configs/nightly.yaml 8 runs/nightly --cpus-per-task=16 --mem=32G
#
#   ENTROPIX_EVAL    absolute path of the entropix-eval binary (on storage every node sees)
#   ENTROPIX_SWEEP   the sweep file
#   ENTROPIX_SHARDS  n, the number of shards (the array has tasks 0..n-1)
#   ENTROPIX_OUT     the sweep's directory (shard-i, merged, logs)
#
# CPUs and threads follow the allocation: GOMAXPROCS is SLURM_CPUS_PER_TASK and the
# engine's threads per worker are split from it (--threads 0), whatever the sweep file
# says. A task that is requeued (preempted, `scontrol requeue`, a node failure) or
# resubmitted runs the same command again and resumes from its shard's journal.
#SBATCH --requeue
#SBATCH --open-mode=append
set -euo pipefail

: "${ENTROPIX_EVAL:?set by configs/slurm-submit.sh}"
: "${ENTROPIX_SWEEP:?set by configs/slurm-submit.sh}"
: "${ENTROPIX_SHARDS:?set by configs/slurm-submit.sh}"
: "${ENTROPIX_OUT:?set by configs/slurm-submit.sh}"
: "${SLURM_ARRAY_TASK_ID:?not an array task: submit with configs/slurm-submit.sh}"

threads=()
if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  export GOMAXPROCS=$SLURM_CPUS_PER_TASK
  threads=(--threads 0)
fi

echo "$(date -u +%FT%TZ) job ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID} on $(hostname)" \
  "restart ${SLURM_RESTART_COUNT:-0} cpus ${SLURM_CPUS_PER_TASK:-unset}" >&2

# Log lines rather than bars: stderr is the Slurm log file.
exec "$ENTROPIX_EVAL" run "$ENTROPIX_SWEEP" \
  --shard "${SLURM_ARRAY_TASK_ID}/${ENTROPIX_SHARDS}" \
  "${threads[@]}" \
  --progress log \
  --out "${ENTROPIX_OUT}/shard-${SLURM_ARRAY_TASK_ID}"
