#!/usr/bin/env bash
# leaderboard-rebuild's first real run on both backends, interleaved (docs/performance.md,
# "Every job at 100,000 users, both backends").
#   scripts/bench-lb-first-run.sh HEARTH PRISTINE_DIR PG_CONFIG [ROUNDS]
# PRISTINE_DIR: a seeded data directory no job has run on (`hearth seed --users 100000 --seed 7`),
# never written: each round runs on a fresh `cp -al` copy of it (the committer replaces files
# by rename, so the hard-linked copy is safe). PG_CONFIG: a config with `[store] kind =
# "postgres"` whose database was imported from the same seed; $HEARTH_BENCH_STORE (or the
# config's urlEnv) holds its URL. Each round resets every user's rank to 999 in the database
# (what the seed writes), so both runs rewrite all users.
set -euo pipefail
B=$1; PRISTINE=$2; PGCONF=$3; ROUNDS=${4:-3}
NOW=2026-11-18T12:00:00Z
COPY=$(mktemp -d)/data
trap 'rm -rf "$(dirname "$COPY")"' EXIT
for r in $(seq "$ROUNDS"); do
  psql "$HEARTH_BENCH_STORE" -qc "UPDATE documents SET raw = regexp_replace(raw, '\"rank\": [0-9]+', '\"rank\": 999'), version = nextval('document_versions') WHERE collection = 'users'" \
    -c "VACUUM ANALYZE documents" -c "CHECKPOINT"
  sync
  "$B" plan leaderboard-rebuild --config "$PGCONF" --now $NOW --log-level error > /dev/null
  sync
  echo "round $r postgres load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "round $r postgres %e s wall, %U s user, %S s sys, %M KB max RSS" \
    "$B" run leaderboard-rebuild --config "$PGCONF" --now $NOW --log-level error
  rm -rf "$COPY"; cp -al "$PRISTINE" "$COPY"; sync
  "$B" plan leaderboard-rebuild --data "$COPY" --now $NOW --log-level error > /dev/null
  sync
  echo "round $r directory load $(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "round $r directory %e s wall, %U s user, %S s sys, %M KB max RSS" \
    "$B" run leaderboard-rebuild --data "$COPY" --now $NOW --log-level error
done
