#!/usr/bin/env bash
# Benchmark (not a test): gig-quality-score over 10,000 gigs with the built-in rubric.
#
#   scripts/bench-gigs.sh [GIGS]          (default 10000)
#
# Writes GIGS gig documents straight into a fresh temporary data directory (a small
# deterministic Python generator: every component level and penalty occurs, ~4% duplicates,
# ~5% closed/deleted), builds `hearth` in release mode (or uses $BIN), then times with
# /usr/bin/time -v:
#   1. a dry run (plan of GIGS updates),
#   2. the real run (scores and writes every open gig),
#   3. a second real run (No changes.),
# and prints wall time, gigs per second and peak RSS for each.
#
# Environment: BIN=path/to/hearth (skip the build), SCRATCH=.build (SwiftPM scratch path),
# KEEP=1 (keep the data directory).
set -euo pipefail
cd "$(dirname "$0")/.."
GIGS=${1:-10000}
SCRATCH=${SCRATCH:-.build}
if [ -z "${BIN:-}" ]; then
  swift build -c release --scratch-path "$SCRATCH" --product hearth >&2
  BIN=$SCRATCH/release/hearth
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hearth-bench-gigs.XXXXXX")
DATA=$WORK/data
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi
NOW=2026-11-18T12:00:00Z

python3 - "$DATA" "$GIGS" <<'PY'
import json, os, random, sys
from datetime import datetime, timedelta, timezone

data, n = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(data, "gigs"), exist_ok=True)
rng = random.Random(1)
T = datetime(2026, 11, 18, 12, tzinfo=timezone.utc)
words = ("join our friendly team and help students every day while learning useful skills "
         "in a flexible environment that fits your class schedule").split()
titles = ["Barista, morning shift", "Research assistant", "URGENT HIRING NOW: BARISTA", "Tutor", "Cook",
          "Front desk assistant at the rec center", "Delivery driver", "Lab technician (chemistry)",
          "Weekend event staff", "Dog walker needed for two friendly labradors near campus"]
companies = ["Badger Brew", "UW Psychology", "", "QuickShip", "Rec Sports", "Camp Lakeside", "Fetch Media"]
iso = lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.000Z")
for i in range(1, n + 1):
    # ~4% repeat an earlier gig's title and company (duplicates).
    if i > 10 and rng.random() < 0.04:
        k = rng.randint(1, i - 1)
        title, company = titles[k % len(titles)] + " #%d" % k, companies[k % len(companies)]
    else:
        title, company = titles[i % len(titles)] + " #%d" % i, companies[i % len(companies)]
    desc = " ".join(words[j % len(words)] for j in range(rng.choice([5, 14, 15, 39, 40, 79, 80, 120, 300])))
    r = rng.random()
    if r < 0.03: desc += " Call (608) 555-0199 or write jobs@example.com"
    elif r < 0.06: desc += " Earn $$ fast!!!"
    g = {"title": title, "description": desc, "company": company,
         "location": rng.choice(["Madison, WI", "Madison, WI", ""]), "isRemote": rng.random() < 0.2}
    p = i % 3
    if p == 0: g["payMin"], g["payMax"] = rng.randint(12, 18), rng.randint(18, 25)
    elif p == 1: g["compensation"] = rng.choice(["$15/hour", "Competitive", "DOE"])
    g["postedAt"] = iso(T - timedelta(days=rng.randint(0, 45), seconds=rng.randint(0, 86399)))
    if rng.random() < 0.1: g["expiresAt"] = iso(T + timedelta(days=rng.randint(-10, 10)))
    g["source"] = rng.choice(["internal", "indeed", "handshake"])
    if g["source"] != "internal":
        g["externalUrl"] = rng.choice(["https://jobs.example.com/%d" % i, "http://jobs.example.com/%d" % i, "https://localhost/%d" % i])
    g["status"] = "closed" if rng.random() < 0.03 else "deleted" if rng.random() < 0.02 else "active"
    g["postedBy"] = "employer-%d" % (i % 50)
    with open(os.path.join(data, "gigs", "gig-%05d.json" % i), "w") as f:
        json.dump(g, f, indent=2, ensure_ascii=False)
        f.write("\n")
PY
BYTES=$(du -sb "$DATA/gigs" | cut -f1)
echo "gig-quality-score benchmark: $GIGS gigs ($((BYTES / 1024)) KiB) in $DATA, T=$NOW, $(nproc) cores"

measure() {
  local label=$1; shift
  local log=$WORK/time.log
  /usr/bin/time -v "$@" >"$WORK/out.txt" 2>"$log" || { cat "$log" "$WORK/out.txt" >&2; exit 1; }
  local wall rss summary
  wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
  rss=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
  summary=$(grep -E '^(Plan|Applied):|^No changes\.' "$WORK/out.txt" | tail -1)
  python3 - "$label" "$wall" "$rss" "$GIGS" "$summary" <<'PY'
import sys
label, wall, rss, gigs, summary = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
parts = [float(p) for p in wall.split(":")]
seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
print("%-22s wall %6.2f s  %8.0f gigs/s  peak RSS %6.1f MiB  %s" % (label, seconds, gigs / seconds, rss / 1024, summary))
PY
}

measure "dry run (plan)" "$BIN" plan gig-quality-score --data "$DATA" --now "$NOW" --limit 0
measure "real run" "$BIN" run gig-quality-score --data "$DATA" --now "$NOW" --limit 0
measure "second run" "$BIN" run gig-quality-score --data "$DATA" --now "$NOW" --limit 0
