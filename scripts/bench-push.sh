#!/usr/bin/env bash
# Benchmark (not a test): N pushes through the whole FCM path, outbox bookkeeping included.
#
#   scripts/bench-push.sh [N]          (default 50000)
#
# 1. Makes a throwaway CA (server certificate for localhost), a service account key
#    (Tests/Servers/make_push_credentials.py) and a docroot for Debian's `nghttpd`, which then
#    serves, over HTTP/2 + TLS on 127.0.0.1, both the OAuth token endpoint (`/token`) and
#    FCM's `/v1/projects/hearth-test/messages:send` (a static 200 answer: it validates nothing,
#    which is fine for throughput; the fake in Tests/Servers/fake_fcm.py does the checking).
# 2. Writes N users (one FCM token each) and N unread notifications into a fresh data directory.
# 3. Times `hearth-bench bench-push`: the same N pushes straight through the FCM provider and
#    the libcurl client, 100 in flight, without the outbox — the provider's own ceiling.
# 4. Times `hearth plan notification-fanout` (the job alone: reads, decides, reports), then
#    `hearth run notification-fanout`: reads everything, queues N pushes and commits them
#    to .hearth/outbox/pending/ (batches of 10,000 messages) in one atomic commit (the delivery right after the run cannot
#    start: $BENCH_FCM_SA, the service account variable, is unset during this phase).
# 5. Times `hearth outbox deliver` with the variable set: the OAuth mint, N `messages:send`
#    requests (100 in flight over HTTP/2, [outbox] concurrency), the claim of each batch, one
#    delivery-log record per message, and the removal of each finished batch.
# Prints wall time, pushes per second, CPU time (user + system: far steadier than the wall time on
# a shared machine) and peak RSS (/usr/bin/time -v) for each phase.
#
# Environment: BIN=path/to/hearth (skip the build), SCRATCH=.build (SwiftPM scratch path),
# KEEP=1 (keep the work directory).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-50000}
SCRATCH=${SCRATCH:-.build}
command -v nghttpd >/dev/null || { echo "needs nghttpd (scripts/install-deps installs nghttp2-server)" >&2; exit 69; }
if [ -z "${BIN:-}" ]; then
  swift build -c release --scratch-path "$SCRATCH" --product hearth >&2
  swift build -c release --scratch-path "$SCRATCH" --product hearth-bench >&2
  BIN=$SCRATCH/release/hearth
fi
BIN=$(realpath "$BIN")
BENCH_BIN=${BENCH_BIN:-$(dirname "$BIN")/hearth-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-push.XXXXXX")
NGHTTPD_PID=""
cleanup() {
  if [ -n "$NGHTTPD_PID" ]; then kill "$NGHTTPD_PID" 2>/dev/null || true; fi
  if [ -z "${KEEP:-}" ]; then rm -rf "$WORK"; else echo "kept $WORK" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # run the EXIT trap (stop nghttpd) when interrupted or timed out
NOW=2026-11-20T12:00:00Z

python3 Tests/Servers/make_test_ca.py "$WORK/ca" localhost 127.0.0.1
python3 Tests/Servers/make_push_credentials.py "$WORK/creds"
mkdir -p "$WORK/www/v1/projects/hearth-test"
printf '{"access_token": "ya29.bench-access-token", "expires_in": 3599, "token_type": "Bearer"}' > "$WORK/www/token"
printf '{"name": "projects/hearth-test/messages/0:1"}' > "$WORK/www/v1/projects/hearth-test/messages:send"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nghttpd -a 127.0.0.1 -d "$WORK/www" "$PORT" "$WORK/ca/server.key" "$WORK/ca/server.pem" >/dev/null 2>&1 &
NGHTTPD_PID=$!
for _ in $(seq 100); do
  if curl -s -o /dev/null --cacert "$WORK/ca/ca.pem" "https://localhost:$PORT/token"; then break; fi
  sleep 0.1
done

python3 - "$WORK/data" "$N" <<'PY'
import json, os, sys
data, n = sys.argv[1], int(sys.argv[2])
for c in ("users", "notifications"):
    os.makedirs(os.path.join(data, c), exist_ok=True)
for i in range(n):
    uid = "u%06d" % i
    with open(os.path.join(data, "users", uid + ".json"), "w") as f:
        json.dump({"name": "User %d" % i, "school": "MIT", "fcmTokens": ["bench-fcm-token-%06d-%s" % (i, "x" * 120)]}, f, indent=2)
        f.write("\n")
    with open(os.path.join(data, "notifications", "n%06d.json" % i), "w") as f:
        json.dump({"userId": uid, "type": "gift_received", "title": "Gift received",
                   "message": "Someone sent you %d points" % (i % 100 + 1), "read": False,
                   "createdAt": "2026-11-20T11:59:00.000Z", "actionUrl": "/gifts/t%d" % i}, f, indent=2)
        f.write("\n")
PY

cat > "$WORK/hearth.toml" <<TOML
dataDir = "data"
[http]
caFile = "$WORK/ca/ca.pem"
[outbox]
concurrency = 100
[push]
provider = "fcm"
[push.fcm]
serviceAccountEnv = "BENCH_FCM_SA"
endpoint = "https://localhost:$PORT"
tokenUri = "https://localhost:$PORT/token"
TOML

measure() {  # label count command...
  local label=$1 count=$2
  shift 2
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -v -o "$WORK/time.txt" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" || { cat "$WORK/err.txt" >&2; exit 1; }
  end=$(date +%s.%N)
  local rss cpu
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$WORK/time.txt")
  python3 - "$label" "$count" "$start" "$end" "$rss" "$cpu" <<'PY'
import sys
label, count, start, end, rss, cpu = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
wall = end - start
print("%-32s %7d pushes  %7.2f s  %8.0f pushes/s  CPU %6.2f s  peak RSS %6.1f MiB" % (label, count, wall, count / wall, cpu, rss / 1024))
PY
}

echo "hearth push benchmark: $N pushes, $(nproc) cores, nghttpd on 127.0.0.1:$PORT (HTTP/2 + TLS)"
measure "FCM provider alone (no outbox)" "$N" "$BENCH_BIN" bench-push --service-account "$WORK/creds/service-account.json" \
  --endpoint "https://localhost:$PORT" --token-uri "https://localhost:$PORT/token" --ca-file "$WORK/ca/ca.pem" --count "$N" --concurrency 100
measure "plan notification-fanout (dry)" "$N" env -u BENCH_FCM_SA "$BIN" plan notification-fanout --config "$WORK/hearth.toml" --now "$NOW" --limit 3
measure "run notification-fanout (queue)" "$N" env -u BENCH_FCM_SA "$BIN" run notification-fanout --config "$WORK/hearth.toml" --now "$NOW" --limit 3
count_pending() {  # messages waiting in the outbox (single files and batches)
  "$BIN" outbox list --config "$WORK/hearth.toml" --format json | python3 -c 'import json, sys; print(sum(1 for m in json.load(sys.stdin) if m["state"] == "pending"))'
}
pending=$(count_pending)
[ "$pending" = "$N" ] || { echo "expected $N pending messages, found $pending" >&2; exit 1; }
measure "outbox deliver (FCM)" "$N" env BENCH_FCM_SA="$WORK/creds/service-account.json" "$BIN" outbox deliver --config "$WORK/hearth.toml"
cat "$WORK/out.txt"
left=$(count_pending)
[ "$left" = "0" ] || { echo "$left messages still pending" >&2; exit 1; }
