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
# WARM=1: the every-minute steady state instead of a first run over a fresh copy. Before the
# timed settle, a `run gift-settle` with the 50,000 pending gifts moved aside (it settles nothing
# and leaves its reject memo, docs/storage/reject-memos.md), then the gifts move back. Before
# each timed run, the same `plan leaderboard-rebuild` reads the users and transactions, so both
# timed runs read files that are cached and whose access times are already set, as on a data
# directory read every day (the copy moved every file's ctime, and with `relatime` the first
# read after that writes each inode's access time).
set -euo pipefail
. "$(dirname "$0")/bench-timed.sh"
B=$(realpath "$1"); PRISTINE=$(realpath "$2"); ROUNDS=${3:-3}; WARM=${WARM:-0}
NOW=2026-11-18T12:00:00Z
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"  # no ./Config/hearth.toml: the built-in defaults, no provider or webhook configured
fresh() {
  rm -rf "$WORK/data"; cp -al "$PRISTINE" "$WORK/data"
  rm -rf "$WORK/data/.hearth"; cp -a "$PRISTINE/.hearth" "$WORK/data/.hearth" 2>/dev/null || true
  sync
  # The copy moved every file's ctime; a memo remembers only files older than 2 s.
  if [ "$WARM" = 1 ]; then sleep 2; fi
}
for r in $(seq "$ROUNDS"); do
  fresh
  if [ "$WARM" = 1 ]; then
    mkdir "$WORK/aside"
    find "$WORK/data/transactions" -name 'bench-gift-*.json' -exec mv -t "$WORK/aside" {} +
    "$B" run gift-settle --no-deliver --data "$WORK/data" --now $NOW --log-level error > /dev/null
    find "$WORK/aside" -name 'bench-gift-*.json' -exec mv -t "$WORK/data/transactions" {} +
    rmdir "$WORK/aside"
    "$B" plan leaderboard-rebuild --data "$WORK/data" --now $NOW --log-level error > /dev/null
  fi
  timed settle "$B" run gift-settle --no-deliver --data "$WORK/data" --now $NOW --log-level error
  timed deliver "$B" outbox deliver --data "$WORK/data" --log-level error
  fresh
  if [ "$WARM" = 1 ]; then "$B" plan leaderboard-rebuild --data "$WORK/data" --now $NOW --log-level error > /dev/null; fi
  timed rebuild "$B" run leaderboard-rebuild --data "$WORK/data" --now $NOW --log-level error
done
