#!/usr/bin/env bash
# gift-settle's first real run against leaderboard-rebuild's on the same users, interleaved
# (docs/performance.md, "gift-settle against one leaderboard rebuild").
#   scripts/bench-gift-vs-rebuild.sh HEARTH PRISTINE_DIR [ROUNDS]
# PRISTINE_DIR: `scripts/bench-new-jobs.py --prepare-only --users 100000` output (50,000 pending
# gifts), never written: each run gets a fresh `cp -al` copy (the committer replaces files by
# rename, so the hard-linked copy is safe; .hearth/ is copied for real). Per round, in turn:
#   settle   `run gift-settle --no-deliver`  (the settlement: read, decide, one commit)
#   deliver  `outbox deliver` right after it  (sending or dropping what the settlement queued)
#   rebuild  `run leaderboard-rebuild`        (its outbox is empty: nothing to deliver)
set -euo pipefail
B=$(realpath "$1"); PRISTINE=$(realpath "$2"); ROUNDS=${3:-3}
NOW=2026-11-18T12:00:00Z
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"  # no ./Config/hearth.toml: the built-in defaults, no provider or webhook configured
fresh() {
  rm -rf "$WORK/data"; cp -al "$PRISTINE" "$WORK/data"
  rm -rf "$WORK/data/.hearth"; cp -a "$PRISTINE/.hearth" "$WORK/data/.hearth" 2>/dev/null || true
  sync
}
timed() {
  local label=$1; shift
  echo "round $r $label load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "round $r $label %e s wall, %U s user, %S s sys, %M KB max RSS" "$@" > "$WORK/out" 2>&1 \
    || { cat "$WORK/out"; exit 1; }
  grep -E "^Applied|^Outbox|^No changes|round" "$WORK/out" | sed "s/^/  /"
}
for r in $(seq "$ROUNDS"); do
  fresh
  timed settle "$B" run gift-settle --no-deliver --data "$WORK/data" --now $NOW --log-level error
  timed deliver "$B" outbox deliver --data "$WORK/data" --log-level error
  fresh
  timed rebuild "$B" run leaderboard-rebuild --data "$WORK/data" --now $NOW --log-level error
done
