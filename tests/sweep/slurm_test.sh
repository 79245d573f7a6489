#!/usr/bin/env bash
# SweepSlurm.LongRunning: `poslab sweep emit --slurm` on a real single-node Slurm cluster. Starts
# MUNGE and Slurm's two daemons by hand (no systemd) on a configuration of their own in a
# temporary directory (its own MUNGE key and socket, free ports), submits a 4-run plan with
# `sbatch --wait`, merges its results and compares them byte for byte with the merge of the same
# plan run by the local pool; then stops the daemons. Exits 77 (ctest's SKIP_RETURN_CODE), saying
# why, only where Slurm cannot be started here: not root and no password-less sudo, the packages
# missing and not installable, or a daemon that does not come up (its log's tail is printed).
#
#   tests/sweep/slurm_test.sh build/release/cpp/poslab
set -euo pipefail

skip() {
  echo "SKIP: $*"
  exit 77
}

[ $# -eq 1 ] || {
  echo "usage: $0 POSLAB_BINARY" >&2
  exit 2
}
poslab=$(realpath "$1")

# The daemons run as root (SlurmUser=root): re-run as root where sudo allows it.
if [ "$(id -u)" -ne 0 ]; then
  if sudo -n true 2>/dev/null; then exec sudo -n bash "$0" "$poslab"; fi
  skip "Slurm's daemons need root, and this user is not root and has no password-less sudo"
fi

packages=(slurmctld slurmd slurm-client munge)
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
  ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  echo "slurm_test: installing ${packages[*]} (scripts/setup.sh lists them)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 &&
      apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1; } ||
    skip "Slurm and MUNGE are not installed and apt-get could not install ${packages[*]}"
fi

work=$(mktemp -d /tmp/poslab-slurm.XXXXXX)
chmod 700 "$work"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT

# log_tails: the end of every daemon's log, for a failure or a skip.
log_tails() {
  for log in "$work"/log/*; do
    echo "--- $log"
    tail -n 15 "$log"
  done
}

mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/submit"
chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged --foreground --force --socket="$socket" --key-file="$work/munge/munge.key" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" \
  --log-file="$work/log/munged.log" >>"$work/log/munged.out" 2>&1 &
pids+=($!)

# Two free TCP ports for slurmctld and slurmd, so a cluster already on this machine is left alone.
read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
node=$(hostname -s)
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=poslabtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || {
  log_tails
  skip "munged did not start"
}
slurmctld -D -i -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || {
  log_tails
  skip "the Slurm node did not come up idle within 30 s (state '${state}')"
}

# Four tiny runs: two methods, two seeds.
plan=$work/plan.json
cat >"$plan" <<'EOF'
{"name": "slurm-test", "tasks": ["copy"], "methods": ["rope", "alibi"], "seeds": 2,
 "options": {"steps": [50], "train-len": [2], "width": [16], "heads": [2], "layers": [1],
             "eval-examples": [4]},
 "resources": {"cpus": 1, "mem": "100M", "time": "00:05:00"}}
EOF

fail() {
  echo "FAIL: $*"
  log_tails
  for out in "$work"/slurm/logs/*; do
    [ -f "$out" ] || continue
    echo "--- $out"
    tail -n 15 "$out"
  done
  exit 1
}

"$poslab" sweep emit "$plan" --out "$work/slurm" --slurm >"$work/emit.out" || fail "sweep emit"
grep -q "sbatch $work/slurm/sweep.sbatch" "$work/emit.out" || fail "emit printed: $(cat "$work/emit.out")"
(cd "$work/submit" && timeout 120 sbatch --wait "$work/slurm/sweep.sbatch") >"$work/sbatch.out" 2>&1 ||
  fail "sbatch --wait: $(cat "$work/sbatch.out")"
runs=$(find "$work/slurm/runs" -name '*.json' | wc -l)
[ "$runs" -eq 4 ] || fail "the job array left $runs results, not 4"
tasks=$(find "$work/slurm/logs" -name '*_*.out' | wc -l)
[ "$tasks" -eq 4 ] || fail "the job array logged $tasks tasks, not 4"
"$poslab" sweep merge "$work/slurm" -o "$work/slurm.json" >/dev/null || fail "merge of the Slurm sweep"

"$poslab" sweep run "$plan" --out "$work/local" --jobs 2 >/dev/null 2>&1 || fail "the local sweep"
"$poslab" sweep merge "$work/local" -o "$work/local.json" >/dev/null || fail "merge of the local sweep"
cmp "$work/slurm.json" "$work/local.json" || fail "the merges differ"
echo "PASS: 4 runs under Slurm ($(sinfo -V)) merge to the bytes of the local pool's"
