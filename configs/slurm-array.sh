#!/bin/bash
# Runs configs/nightly.yaml as an 8-task Slurm array (one shard per task), then a
# dependent job merges the shards:
#
#   jid=$(sbatch --parsable configs/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap \
#     'bin/entropix-eval merge --out runs/nightly/merged runs/nightly/shard-*'
#
# A preempted or failed task is resubmitted with the same command: it resumes
# from its shard's journal. RUNS must be on storage every node sees.
#SBATCH --job-name=entropix-nightly
#SBATCH --array=0-7
#SBATCH --cpus-per-task=16
#SBATCH --mem=32G
#SBATCH --time=12:00:00
#SBATCH --requeue
#SBATCH --output=runs/nightly/slurm-%A_%a.log
set -euo pipefail

RUNS=${RUNS:-runs/nightly}
SHARD="${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}"

# Plain log lines (not bars) go to the Slurm log because stderr is a file.
exec bin/entropix-eval run configs/nightly.yaml \
  --shard "$SHARD" \
  --threads "${SLURM_CPUS_PER_TASK}" \
  --out "${RUNS}/shard-${SLURM_ARRAY_TASK_ID}"
