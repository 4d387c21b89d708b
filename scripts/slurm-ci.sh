#!/bin/sh
# The single-node recipe described in docs/slurm.md.
# Single-node Slurm on loopback for CI (Debian bookworm, slurm 22.05.8, munge 0.5.15), no systemd.
# usage (as root):  SLURM_CI_DIR=/var/spool/slurm-ci sh slurm-ci.sh up|test|test_poll|down
set -eu
S=${SLURM_CI_DIR:-/var/spool/slurm-ci}     # state, spool, logs, pid files
N=${SLURM_CI_NODE:-$(hostname -s)}         # node name; need not resolve (slurmd -N, NodeAddr)
CONF=/etc/slurm/slurm.conf                 # default path: sbatch/squeue need no SLURM_CONF

wait_for() {  # wait_for SECONDS CMD... : retry CMD every 0.5 s until it succeeds
  n=$(( $1 * 2 )); shift
  while ! "$@" >/dev/null 2>&1; do
    n=$((n - 1)); [ "$n" -gt 0 ] || { echo "timeout: $*" >&2; return 1; }
    sleep 0.5
  done
}
node_idle() { sinfo -h -n "$N" -o %t | grep -qx idle; }

up() {
  # ---- munge (systemd would create /run/munge; without it we must) -----------
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    echo "munged already running (e.g. started by systemd on install); reusing it"
  else
    install -d -o munge -g munge -m 0755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then               # Debian's postinst normally made one
      mungekey --create --force --keyfile=/etc/munge/munge.key
    fi
    chown munge:munge /etc/munge/munge.key; chmod 0600 /etc/munge/munge.key
    runuser -u munge -- /usr/sbin/munged                 # forks; pid in /run/munge/munged.pid
    install -d -m 0755 "$S"; touch "$S/munged.ours"
    wait_for 10 sh -c 'munge -n | unmunge'
  fi

  # ---- slurm ----------------------------------------------------------------
  install -d -o slurm -g slurm -m 0755 "$S" "$S/ctld" "$S/log"
  install -d -o root -g root -m 0755 "$S/d"
  ncpu=$(nproc)
  mem=$(awk '/^MemTotal:/ {print int($2/1024*0.9)}' /proc/meminfo)   # MiB, 10% headroom
  cat > "$CONF" <<EOF
ClusterName=ci
SlurmctldHost=localhost
SlurmUser=slurm
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/d
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
MailProg=/bin/true
NodeName=$N NodeAddr=127.0.0.1 CPUs=$ncpu RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$N Default=YES MaxTime=INFINITE State=UP
EOF
  chmod 0644 "$CONF"
  /usr/sbin/slurmctld -c        # daemonizes, drops to SlurmUser; -c: ignore state of earlier runs
  wait_for 30 scontrol ping || { tail -n 20 "$S/log/slurmctld.log" >&2; exit 1; }  # rc of slurmctld says nothing
  /usr/sbin/slurmd -N "$N"      # daemonizes, stays root
  wait_for 60 node_idle || { sinfo -R; tail -n 20 "$S/log/slurmd.log" >&2; exit 1; }
  sinfo
}

check_out() {  # check_out DIR : 4 output files with the right content
  [ "$(ls "$1"/*.out | wc -l)" -eq 4 ] || { echo "expected 4 .out files" >&2; ls -l "$1"; return 1; }
  for i in 0 1 2 3; do grep -qx "task $i on $(hostname)" "$1"/*_"$i".out; done
  cat "$1"/*.out; echo ARRAY-OK
}

test_array() {  # variant A: sbatch --wait (simplest; its polling adds ~5 s)
  out=$S/out; rm -rf "$out"; install -d -m 0777 "$out"
  timeout 120 sbatch --wait --array=0-3 -o "$out/%A_%a.out" -e "$out/%A_%a.err" \
    --wrap 'echo task $SLURM_ARRAY_TASK_ID on $(hostname); sleep 1'
  check_out "$out"
}

test_poll() {  # variant B: submit as an unprivileged user, poll squeue every 0.5 s
  u=${SUBMIT_AS:-nobody}
  out=$S/out; rm -rf "$out"; install -d -m 0777 "$out"
  jid=$(cd "$out" && runuser -u "$u" -- sbatch --parsable --array=0-3 \
          -o "$out/%A_%a.out" -e "$out/%A_%a.err" \
          --wrap 'echo task $SLURM_ARRAY_TASK_ID on $(hostname); sleep 1')
  echo "submitted $jid as $u"
  wait_for 120 sh -c "[ -z \"\$(squeue -h -j $jid)\" ]" || { sinfo -R; squeue; exit 1; }
  scontrol show job "$jid" | grep -o 'JobState=[A-Z]*' | sort | uniq -c   # expect 4 COMPLETED
  check_out "$out"
}

down() {
  pids=""
  for p in "$S/slurmd.pid" "$S/slurmctld.pid"; do [ -s "$p" ] && pids="$pids $(cat "$p")"; done
  scontrol shutdown >/dev/null 2>&1 || true    # stops slurmctld and every slurmd (~2 s)
  for pid in $pids; do
    wait_for 30 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
  done
  if [ -e "$S/munged.ours" ] && [ -s /run/munge/munged.pid ]; then
    pid=$(cat /run/munge/munged.pid)
    kill "$pid" 2>/dev/null || true
    wait_for 10 sh -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
    rm -f "$S/munged.ours"
  fi
}

case "${1:-}" in
  up) up ;; test) test_array ;; test_poll) test_poll ;; down) down ;;
  *) echo "usage: $0 up|test|test_poll|down" >&2; exit 2 ;;
esac
