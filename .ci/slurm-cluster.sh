#!/usr/bin/env bash
# Runs a command against a real one-node Slurm cluster (Debian's slurm-wlm and munge):
#
#   .ci/slurm-cluster.sh go test -count=1 -run '^TestSlurm' ./cmd/entropix-eval/
#
# Installs the packages if they are missing, writes slurm.conf for this machine (its real
# hostname, CPUs and memory, from `slurmd -C`) into a temporary directory that also holds
# the munge key and socket, the controller's state, slurmd's spool, every log and pid
# file, starts munged, slurmctld and slurmd in the foreground as children of this script,
# and runs the command with SLURM_CONF and ENTROPIX_SLURM=1 set, which makes the Slurm
# tests required. On exit the daemons are stopped by pid and the directory is removed;
# nothing is left running. Daemon logs are printed when the command fails.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/entropix-slurm.XXXXXX")
chmod 711 "$dir"  # munged wants its socket directory searchable by all
pids=()
cmd=""
stop() {
  local rc=$?
  if [ -n "${cmd:-}" ] && kill -0 "$cmd" 2>/dev/null; then
    kill -TERM -- "-$cmd" 2>/dev/null || true
    wait "$cmd" 2>/dev/null || true
  fi
  # Jobs first (their processes are slurmstepd's children), then the daemons, newest first.
  if [ -n "${SLURM_CONF:-}" ] && [ "${#pids[@]}" -gt 0 ]; then
    timeout 10 scancel --full --quiet --user "$(id -un)" 2>/dev/null || true
    for _ in $(seq 30); do
      # squeue lists pending, running and completing jobs (and prints nothing on error).
      [ -z "$(timeout 5 squeue --noheader 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -ne 0 ]; then
    for log in "$dir"/*.stderr.log; do
      [ -f "$log" ] || continue
      echo "== $log (last 40 lines)" >&2
      tail -n 40 "$log" >&2
    done
  fi
  rm -rf "$dir"
  exit "$rc"
}
trap stop EXIT
trap 'exit 130' INT TERM

# A free TCP port on the loopback interface, from the given one upwards.
free_port() {
  local p=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
  echo "$p"
}
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))

# munge: a fresh key, its own socket, pid, log and seed files.
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --foreground --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
  >>"$dir/munged.stderr.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$dir/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge.socket" ] || { echo "munged did not start" >&2; exit 1; }

host=$(hostname -s)
# "NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105"
node=$(slurmd -C | head -n 1)
case "$node" in
  "NodeName=$host "*) ;;
  *) echo "slurmd -C printed '$node', not a line for host $host" >&2; exit 1 ;;
esac
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<EOF
ClusterName=entropix-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# A requeued job may start again only after cred_expire (default 120 s) plus ~15 s;
# 10 s keeps the requeue test short.
AuthInfo=socket=$dir/munge.socket,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
# Finished jobs stay visible to scontrol for the tests' lifetime.
MinJobAge=900
KillWait=5
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/plugstack.conf"
export SLURM_CONF="$dir/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.stderr.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$dir/slurmd.stderr.log" 2>&1 &
pids+=($!)

# Up when the node is idle and takes jobs.
state=""
for _ in $(seq 150); do
  state=$(sinfo --noheader --nodes="$host" --format=%T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || { echo "Slurm node $host is '$state', not idle" >&2; exit 1; }
echo "slurm cluster up: $(sinfo --version), node $host ($node), conf $SLURM_CONF" >&2

export ENTROPIX_SLURM=1
# In its own process group, waited for in the background: a TERM or INT to this script
# then runs the traps at once, and stop() ends the whole command (go test and its test
# binary) before the jobs and daemons.
setsid "$@" &
cmd=$!
wait "$cmd"
