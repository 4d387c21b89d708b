#!/usr/bin/env bash
# A real Slurm test: brings up a single-node Slurm on loopback (Debian's packages; recipe in
# docs/slurm.md), runs a small experiment as a job array of 4 shards plus the dependent
# merge job through `warlab slurm --submit`, checks the merged data against a local run byte for
# byte, and shuts Slurm down. Needs root and apt (Debian bookworm); about a minute.
#   usage: sudo scripts/slurm-test.sh [--if-possible]        (or: just slurm-test)
# With --if-possible (as .ci/run calls it), a machine where Slurm cannot be installed (not root,
# no apt, no Debian mirror) skips the test with a message; once Slurm is there, any failure fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

skip() {
  if [ "${1:-}" = "--if-possible" ]; then
    echo "SLURM-SKIPPED: $2"
    exit 0
  fi
  echo "error: $2" >&2
  exit 1
}
mode=${1:-}
if ! command -v sbatch >/dev/null || ! command -v slurmctld >/dev/null; then
  [ "$(id -u)" = 0 ] || skip "$mode" "Slurm is not installed and installing it needs root"
  command -v apt-get >/dev/null || skip "$mode" "Slurm is not installed and there is no apt-get"
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      slurmctld slurmd slurm-client munge; } >/tmp/warlab-slurm-apt.log 2>&1 \
    || skip "$mode" "cannot install Slurm from apt (see /tmp/warlab-slurm-apt.log)"
fi
[ "$(id -u)" = 0 ] || skip "$mode" "starting slurmctld and slurmd needs root"
cargo build -q -p warlab-cli
warlab="$root/target/debug/warlab"

export SLURM_CI_DIR=/var/spool/slurm-ci
# Every directory above the job's files must be traversable by Slurm (see docs/slurm.md).
work=/var/tmp/warlab-slurm-test
rm -rf "$work"; install -d -m 0755 "$work"
trap 'sh scripts/slurm-ci.sh down >/dev/null 2>&1 || true' EXIT
sh scripts/slurm-ci.sh up

cat > "$work/small.toml" <<'TOML'
name = "slurm-small"
description = "Slurm test: 4 variants, rows on"
games = 20000
seed = 11
rows = true
[sweep]
pickup = ["shuffled", "seat"]
war_down = [1, 3]
TOML

(cd "$work" && "$warlab" slurm small.toml --shards 4 --cpus-per-task 1 --time 00:10:00 \
   --out "$work/data" --dir "$work/slurm" --submit) | tee "$work/submit.txt"
merge_id=$(sed -n 's/.*merge job \([0-9]*\).*/\1/p' "$work/submit.txt")
[ -n "$merge_id" ] || { echo "no merge job id" >&2; exit 1; }

# Wait for every job of ours to leave the queue (2 minutes at most).
for _ in $(seq 240); do
  [ -z "$(squeue -h)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h)" ] || { squeue; sinfo -R; echo "jobs did not finish" >&2; exit 1; }
state=$(scontrol show job "$merge_id" 2>/dev/null | grep -o 'JobState=[A-Z]*' || true)
echo "merge job $merge_id: ${state:-gone from the controller}"
cat "$work"/slurm/*.out

(cd "$work" && "$warlab" run small.toml --out "$work/local" --no-report >/dev/null)
for f in summary.parquet summary.csv lengths.parquet games.parquet aggregates.json; do
  cmp "$work/local/slurm-small/$f" "$work/data/slurm-small/$f"
done
echo "SLURM-OK: 4 shards on Slurm, merged by a dependent job, byte-identical to a local run"
