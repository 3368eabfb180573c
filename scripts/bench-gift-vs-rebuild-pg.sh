#!/usr/bin/env bash
# gift-settle against leaderboard-rebuild on the PostgreSQL backend, interleaved
# (docs/performance.md, "gift-settle against one rebuild on PostgreSQL").
#   scripts/bench-gift-vs-rebuild-pg.sh HEARTH ADMIN_URL TEMPLATE_DB [ROUNDS]
# TEMPLATE_DB: a database migrated and loaded with `hearth data import` of the
# `scripts/bench-new-jobs.py --prepare-only --users 100000` directory (50,000 pending gifts),
# then `VACUUM ANALYZE`d; never written. ADMIN_URL: a URL of the same server whose user may
# create databases (its password, if any, stays in the environment: this script prints no URL).
# Each timed run gets a fresh copy, `CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY`,
# followed by a `CHECKPOINT`; before each, the same `plan leaderboard-rebuild` reads the users
# and transactions (the settle's and the rebuild's reads then both find the pages cached).
# Per round, in turn: `run gift-settle --no-deliver`, `outbox deliver`, `run leaderboard-rebuild`.
set -euo pipefail
. "$(dirname "$0")/bench-timed.sh"
B=$(realpath "$1"); ADMIN=$2; TEMPLATE=$3; ROUNDS=${4:-3}
NOW=2026-11-18T12:00:00Z
RUN_DB=hearth_bench_run
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export HEARTH_BENCH_STORE=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$ADMIN" "$RUN_DB")
printf 'dataDir = "%s/state"\n\n[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n' "$WORK" > "$WORK/pg.toml"
mkdir -p "$WORK/state"
fresh() {
  psql "$ADMIN" -qX -c "DROP DATABASE IF EXISTS $RUN_DB" -c "CREATE DATABASE $RUN_DB TEMPLATE $TEMPLATE STRATEGY FILE_COPY" -c "CHECKPOINT"
  sync
  "$B" plan leaderboard-rebuild --config "$WORK/pg.toml" --now $NOW --log-level error > /dev/null
}
for r in $(seq "$ROUNDS"); do
  fresh
  timed settle "$B" run gift-settle --no-deliver --config "$WORK/pg.toml" --now $NOW --log-level error
  timed deliver "$B" outbox deliver --config "$WORK/pg.toml" --log-level error
  fresh
  timed rebuild "$B" run leaderboard-rebuild --config "$WORK/pg.toml" --now $NOW --log-level error
done
psql "$ADMIN" -qX -c "DROP DATABASE IF EXISTS $RUN_DB"
