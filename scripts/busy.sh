#!/usr/bin/env bash
# Runs a command while processes spin on every core, as on a shared CI runner, several rounds in a row, and
# fails at the first failing round. The spinners are bounded in time and ended on every exit.
#
#   scripts/busy.sh [-n SPINNERS] [-r ROUNDS] [-t SECONDS] -- COMMAND [ARG...]
#
#   -n  spinning processes (default: 8 per core, BUSY_SPINNERS)
#   -r  rounds of COMMAND in a row (default: 3, BUSY_ROUNDS)
#   -t  longest a spinner lives, in seconds (default: 7200, BUSY_SECONDS); a round that outlasts them runs
#       on a quiet machine from then on, so choose it longer than ROUNDS runs of COMMAND
set -euo pipefail

spinners=${BUSY_SPINNERS:-$((8 * $(nproc)))}
rounds=${BUSY_ROUNDS:-3}
seconds=${BUSY_SECONDS:-7200}
while getopts "n:r:t:" opt; do
  case $opt in
    n) spinners=$OPTARG ;;
    r) rounds=$OPTARG ;;
    t) seconds=$OPTARG ;;
    *) echo "usage: $0 [-n SPINNERS] [-r ROUNDS] [-t SECONDS] -- COMMAND [ARG...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [-n SPINNERS] [-r ROUNDS] [-t SECONDS] -- COMMAND [ARG...]" >&2; exit 2; }

pids=()
stop_spinners() {
  [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  pids=()
}
trap stop_spinners EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$spinners"); do
  timeout "$seconds" sh -c 'while :; do :; done' &
  pids+=($!)
done
echo "busy: $spinners processes spinning on $(nproc) cores (at most ${seconds}s); $rounds round(s) of: $*"

for i in $(seq 1 "$rounds"); do
  began=$(date +%s)
  echo "busy: round $i of $rounds (load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown))"
  if ! "$@"; then
    echo "busy: round $i of $rounds failed after $(( $(date +%s) - began ))s"
    exit 1
  fi
  echo "busy: round $i of $rounds passed in $(( $(date +%s) - began ))s"
done
echo "busy: $rounds round(s) in a row passed beside $spinners spinners"
