#!/usr/bin/env bash
# Idle cost of `hearth daemon` (docs/performance.md; a benchmark, not a test).
#
# Builds the release binary, starts the daemon on a small seeded data directory with every job
# enabled on a schedule about a year away (so nothing runs while we measure), then reports
# over DURATION seconds (default 60):
#   - CPU time used (utime + stime from /proc/PID/stat),
#   - context switches of its threads (how often it woke up at all),
#   - resident memory (VmRSS, and the peak VmHWM, from /proc/PID/status), and PSS from
#     /proc/PID/smaps_rollup (shared library pages counted in proportion to their sharers).
# Finally it stops the daemon with SIGTERM and checks that it exits 0.
#
# With SERVER=1 the config also has `[server] listen = "127.0.0.1:0"` (the HTTP endpoint of
# docs/operations/monitoring.md), and /metrics and / are fetched once before measuring.
#
# Usage: scripts/bench-daemon-idle.sh            (DURATION=10 scripts/bench-daemon-idle.sh for a quick look)
#        SERVER=1 scripts/bench-daemon-idle.sh   (with the HTTP endpoint on)
#        SCRATCH=.build-other scripts/bench-daemon-idle.sh   (build directory, default .build)
#        STATIC=0 scripts/bench-daemon-idle.sh   (the default build: Swift runtime as shared libraries)
#        BIN=path/to/hearth scripts/bench-daemon-idle.sh     (a binary already built)
# By default it measures the deployment build of docs/operations/systemd.md#building-for-deployment:
# `swift build -c release --static-swift-stdlib`.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-60}
SERVER=${SERVER:-0}
SCRATCH=${SCRATCH:-.build}
STATIC=${STATIC:-1}

if [ -z "${BIN:-}" ]; then
    FLAGS=(-c release --scratch-path "$SCRATCH")
    if [ "$STATIC" = 1 ]; then FLAGS+=(--static-swift-stdlib); fi
    swift build "${FLAGS[@]}" --product hearth >&2
    BIN="$(swift build "${FLAGS[@]}" --show-bin-path)/hearth"
fi
BIN=$(realpath "$BIN")

WORK=$(mktemp -d)
PID=
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then kill -KILL "$PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN" seed --out "$WORK/data" --users 100 >/dev/null
# A slot two days ago at noon UTC: the next one is about a year away.
read -r DAY MONTH < <(date -u -d '2 days ago' '+%-d %-m')
SCHEDULE="0 12 $DAY $MONTH *"
{
    echo 'dataDir = "data"'
    # From $WORK: not this repository's Config/hearth.toml (its command jobs need their own keys).
    (cd "$WORK" && "$BIN" list --data data --format json) \
        | python3 -c 'import json,sys; [print(j["job"]) for j in json.load(sys.stdin)]' \
        | while read -r job; do printf '[jobs.%s]\nschedule = "%s"\n' "$job" "$SCHEDULE"; done
    if [ "$SERVER" = 1 ]; then printf '[server]\nlisten = "127.0.0.1:0"\n'; fi
} > "$WORK/hearth.toml"

"$BIN" daemon --config "$WORK/hearth.toml" 2> "$WORK/daemon.log" &
PID=$!
sleep 2  # start-up (loading the config, the first scheduler state files)
kill -0 "$PID" || { cat "$WORK/daemon.log" >&2; exit 1; }
if [ "$SERVER" = 1 ]; then
    PORT=$(grep -o 'port=[0-9]*' "$WORK/daemon.log" | head -1 | cut -d= -f2)
    python3 -c 'import sys, urllib.request as u; [u.urlopen(f"http://127.0.0.1:{sys.argv[1]}{p}").read() for p in ("/metrics", "/")]' "$PORT"
    sleep 1
fi

TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
# Per thread: "TID switches" (voluntary + involuntary context switches so far).
switches() {
    for t in /proc/"$PID"/task/*; do
        echo "${t##*/} $(awk '/ctxt_switches/ { n += $2 } END { print n }' "$t/status" 2>/dev/null)"
    done
}
status_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"; }

CPU0=$(cpu_ticks); switches > "$WORK/sw0"
sleep "$DURATION"
CPU1=$(cpu_ticks); switches > "$WORK/sw1"
# Wake-ups over the window, summed over the threads alive at both ends.
WAKEUPS=$(awk 'NR == FNR { before[$1] = $2; next } ($1 in before) { n += $2 - before[$1] } END { print n + 0 }' "$WORK/sw0" "$WORK/sw1")
RSS=$(status_kb VmRSS); HWM=$(status_kb VmHWM); ANON=$(status_kb RssAnon); FILE=$(status_kb RssFile)
PSS=$(awk '$1 == "Pss:" { print $2 }' "/proc/$PID/smaps_rollup")
THREADS=$(ls /proc/"$PID"/task | wc -l)

kill -TERM "$PID"
set +e
wait "$PID"; CODE=$?
set -e
PID=

JOBS=$(grep -c '^\[jobs' "$WORK/hearth.toml")
[ "$SERVER" = 1 ] && echo "with [server] listen = 127.0.0.1:$PORT (after one GET /metrics and one GET /)"
echo "hearth daemon idle: $JOBS jobs on \"$SCHEDULE\" (UTC, next run about a year away), measured over $DURATION s"
awk -v c0="$CPU0" -v c1="$CPU1" -v t="$TICKS" -v d="$DURATION" -v wakeups="$WAKEUPS" -v rss="$RSS" -v hwm="$HWM" -v anon="$ANON" -v file="$FILE" -v pss="$PSS" -v th="$THREADS" -v code="$CODE" 'BEGIN {
    cpu = (c1 - c0) / t
    printf "  CPU time:          %.2f s (%.3f %% of one core; clock tick 1/%d s)\n", cpu, 100 * cpu / d, t
    printf "  context switches:  %d (over its %d threads)\n", wakeups, th
    printf "  resident memory:   %.1f MB VmRSS (peak %.1f MB): %.1f MB anonymous + %.1f MB mapped files (binary, shared libraries)\n", rss / 1024, hwm / 1024, anon / 1024, file / 1024
    printf "  proportional:      %.1f MB PSS (shared library pages divided among the processes using them)\n", pss / 1024
    printf "  SIGTERM:           exit %d\n", code
}'
[ "$CODE" -eq 0 ]
