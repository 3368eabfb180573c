#!/usr/bin/env bash
# Idle daemons side by side (docs/performance.md, "After: lld, packed relocations, no exported
# symbols"; a benchmark, not a test): every binary given starts `hearth daemon` at the same time,
# each on its own copy of one seeded data directory with the config of scripts/bench-daemon-idle.sh
# (every job on a slot about a year away); VmRSS, RssAnon and RssFile 30 s later; then SIGTERM.
# The start order rotates each round.
#   ROUNDS=5 scripts/bench-daemon-idle-ab.sh BIN_A BIN_B ...
set -euo pipefail
ROUNDS=${ROUNDS:-3}
[ $# -ge 1 ] || { echo "usage: ROUNDS=N $0 HEARTH_BINARY..." >&2; exit 64; }
BINS=(); for b in "$@"; do BINS+=("$(realpath "$b")"); done
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

"${BINS[0]}" seed --out "$WORK/seed/data" --users 100 >/dev/null
read -r DAY MONTH < <(date -u -d '2 days ago' '+%-d %-m')
{
    echo 'dataDir = "data"'
    (cd "$WORK/seed" && "${BINS[0]}" list --data data --format json) \
        | python3 -c 'import json,sys; [print(j["job"]) for j in json.load(sys.stdin)]' \
        | while read -r job; do printf '[jobs.%s]\nschedule = "0 12 %s %s *"\n' "$job" "$DAY" "$MONTH"; done
} > "$WORK/seed/hearth.toml"

N=${#BINS[@]}
for r in $(seq "$ROUNDS"); do
    PIDS=()
    for k in $(seq 0 $((N - 1))); do
        i=$(( (k + r - 1) % N ))
        rm -rf "$WORK/$i"; cp -a "$WORK/seed" "$WORK/$i"
        (cd "$WORK/$i" && exec "${BINS[$i]}" daemon --config hearth.toml 2>daemon.log) &
        PIDS[$i]=$!
    done
    sleep 30
    for i in $(seq 0 $((N - 1))); do
        echo "round $r ${BINS[$i]}: $(grep -E '^(VmRSS|RssAnon|RssFile)' "/proc/${PIDS[$i]}/status" | tr -s ' \t\n' ' ')load $(cut -d' ' -f1 /proc/loadavg)"
    done
    for p in "${PIDS[@]}"; do kill -TERM "$p"; done
    for p in "${PIDS[@]}"; do wait "$p" || { echo "a daemon exited $?" >&2; exit 1; }; done
    PIDS=()
done
