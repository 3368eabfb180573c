#!/usr/bin/env python3
"""Regenerate the golden cron next-fire vectors used by CronGoldenVectorTests.

The reference is the `cronsim` package from PyPI (it mimics Debian cron, DST handling
included): `pip install cronsim==2.8`, then run from the repository root:

    python3 scripts/gen_cron_vectors.py

It writes Tests/HearthCoreTests/Fixtures/cron/vectors.json:

    {"cronsim": "2.8", "count": 20, "zones": [...],
     "expressions": [{"expr": "@daily", "cronsim": "0 0 * * *",
                      "runs": [[zone_index, base, fire_1, ..., fire_20], ...]}, ...]}

All instants are Unix epoch seconds. `fire_1..fire_20` are the first 20 fire times strictly
after `base` in that zone: cronsim's iteration started at `base`, skipping results that are
not after `base` (a fixed-time job restarted inside the second copy of a repeated hour, which
cronsim evaluates in naive local time, would otherwise return the already-past first copy).

Everything is deterministic: the expression list is fixed plus a seeded random part, and
bases are chosen per expression by a stable rotation, so reruns produce the same file.
"""
from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import cronsim
from cronsim import CronSim

try:
    from importlib.metadata import version as _version

    CRONSIM_VERSION = _version("cronsim")
except Exception:  # pragma: no cover
    CRONSIM_VERSION = "unknown"

ZONES = ["UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "America/Sao_Paulo"]
FIRES = 20
YEARS = (2025, 2026, 2027)
OUT = Path(__file__).resolve().parent.parent / "Tests/HearthCoreTests/Fixtures/cron/vectors.json"

MACROS = {
    "@hourly": "0 * * * *",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@weekly": "0 0 * * 0",
    "@monthly": "0 0 1 * *",
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
}

# Hand-picked expressions, by theme.
FIXED = [
    "0 0 * * *", "5 0 * * *", "0 12 * * *", "59 23 * * *", "30 4 * * *", "15 9 * * *",
    "0 6 * * *", "45 17 * * *", "1 1 * * *", "0 22 * * *", "30 0 * * *", "0 8 * * *",
]
DST_TIMES = [
    # inside / around the skipped and repeated hours of the sample zones
    "30 2 * * *", "0 2 * * *", "59 2 * * *", "1 2 * * *", "15 2 * * *", "29 2 * * *",
    "30 1 * * *", "0 1 * * *", "59 1 * * *", "45 1 * * *", "0 3 * * *", "30 3 * * *",
    "0 2 * * 0", "30 2 * * SUN", "30 2 * * 7", "15,45 2 * * *", "0,30 2 * * *",
    "0 2,3 * * *", "30 1,2,3 * * *", "30 2 * 3 *", "30 2 * 10,11 *", "30 2 * 4 *",
    "30 2 8 3 *", "30 2 1-15 * *", "0-59/20 2 * * *", "0-59/30 1 * * *", "10-50/20 2 * * *",
    "0 1-3 * * *", "30 0-4 * * *", "0,15,30,45 1-2 * * *", "20 2 * * 6,0", "40 2 * * *",
    "0 0-23 * * *", "0-59/15 0-23 * * *", "30 2 25-31 3 *", "30 2 1-7 4 *", "30 2 1-7 10 *",
    "0 2 * * MON-FRI", "30 2,14 * * *", "45 2 * 1-6 *", "0 1 * * SUN", "30 1 * * 0",
    "2 2 2 * *", "30 2 */2 * *", "30 2 * * */2", "0 3 * * SUN", "30 3 * * 0",
]
WALL_CLOCK = [
    "* * * * *", "*/5 * * * *", "*/15 * * * *", "*/7 * * * *", "*/45 * * * *", "*/30 * * * *",
    "0 * * * *", "30 * * * *", "15 * * * *", "59 * * * *", "0,30 * * * *", "5/10 * * * *",
    "* 2 * * *", "* 1 * * *", "*/20 2 * * *", "*/20 1 * * *", "*/10 1-3 * * *", "*/30 2 * * *",
    "0 */2 * * *", "0 */3 * * *", "30 */5 * * *", "15 */4 * * *", "0 */1 * * *", "*/15 1 * * *",
    "* * * * 0", "*/5 * * * SUN", "*/15 2 * * SUN", "30 * * * SUN", "0 * * * 0", "45 */2 * * *",
    "*/2 * * * *", "*/3 1,2 * * *", "* 0-3 * * *", "*/1 2 * * *", "*/59 * * * *",
    "* * 1 * *", "*/10 * * * 1-5", "*/30 * 8 3 *", "*/30 * 1-7 11 *", "0 */6 * * *",
]
STEPS = [
    "1-30/5 * * * *", "5/10 9 * * *", "0 1/3 * * *", "0 0-23/4 * * *", "0 9-17/2 * * *",
    "0 0 1/5 * *", "0 0 */5 * *", "0 0 1-20/3 * *", "0 0 1 */2 *", "0 0 1 1/4 *",
    "0 0 1 2-11/3 *", "0 12 * * 1/2", "0 12 * * 0-6/3", "0 12 * * */3", "10/25 6 * * *",
    "0 6/6 * * *", "0/20 8 * * *", "7/13 */7 * * *", "0 0 */10 * *", "30 12 10/10 * *",
]
LISTS = [
    "0,30 9-17 * * MON-FRI", "0 9,12,18 * * *", "15 8,20 * * 1,3,5", "0 0 1,15 * *",
    "0 0 1,10,20,30 * *", "0 12 * 1,4,7,10 *", "0 6 1-7 * *", "0 18 * * 1-5",
    "0 0 28-31 * *", "0 10 * * 6,0", "5,10,15 0,12 * * *", "0 7 * 6-8 *",
    "0 0 * * 1,2,3,4,5", "30 5 5,25 2,8 *", "0 23 15-17 * *",
]
NAMES = [
    "0 9 * JAN,JUL MON", "0 0 1 jan *", "0 8 * * mon-fri", "0 10 * * Sat,Sun",
    "0 0 * DEC *", "0 12 * feb-apr *", "0 6 * * TUE", "30 18 * * wed,FRI",
    "0 0 1 JAN-MAR,OCT-DEC *", "0 9 * * MON-WED,FRI", "0 0 * * sun", "0 0 13 * FRI",
    "0 12 * MAR-NOV/2 *", "0 0 1 jun,DEC *", "0 8 * * thu",
]
SUNDAY_7 = [
    "0 12 * * 7", "0 12 * * 5-7", "0 12 * * 0,7", "0 12 * * 6-7", "30 1 * * 7",
    "0 0 * * 0-7", "0 0 1 * 7", "0 9 * * 1,7", "0 2 * * 7", "*/30 * * * 7",
]
DAY_OR = [
    "0 0 1,15 * MON", "0 12 13 * FRI", "30 6 1 * 1-5", "0 0 31 * SUN", "0 0 29 2 MON",
    "0 9 1-7 * 1", "0 0 15 * 0", "0 0 30 2 1", "0 0 1 * 1-5", "30 2 1 * 0",
    "0 0 10 * 6", "0 8 1,2 * SAT", "0 0 20-31 * 5",
]
STAR_DAY_QUIRKS = [
    "0 0 */2 * MON", "0 0 1 * */2", "0 0 */3 * */2", "0 0 */2 * *", "0 0 * * */2",
    "0 0 */1 * 5", "0 0 13 * */1", "0 0 */7 * SUN", "0 12 */2 * 1-5", "0 12 1-7 * */6",
    "30 2 */2 * 0", "0 0 */15 * 3",
]
SPARSE = [
    "0 0 29 2 *", "0 0 31 * *", "0 0 30 * *", "0 0 31 12 *", "0 0 1 1 *", "59 23 31 12 *",
    "0 0 29 * *", "0 12 29 2 1", "0 0 31 1,3 *", "0 0 30 4,6 *",
]

VALUES = {
    "minute": (0, 59), "hour": (0, 23), "dom": (1, 31), "month": (1, 12), "dow": (0, 7),
}
MONTH_NAMES = "JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split()
DAY_NAMES = "SUN MON TUE WED THU FRI SAT".split()


def random_field(rng: random.Random, kind: str) -> str:
    lo, hi = VALUES[kind]
    roll = rng.random()
    if roll < 0.25:
        return "*"
    if roll < 0.45:
        value = rng.randint(lo, hi)
        if kind == "month" and rng.random() < 0.4:
            return MONTH_NAMES[value - 1].lower() if rng.random() < 0.3 else MONTH_NAMES[value - 1]
        if kind == "dow" and rng.random() < 0.4 and value < 7:
            return DAY_NAMES[value]
        return str(value)
    if roll < 0.6:
        a = rng.randint(lo, hi)
        b = rng.randint(a, hi)
        return f"{a}-{b}"
    if roll < 0.75:
        values = sorted(rng.sample(range(lo, hi + 1), rng.randint(2, 4)))
        return ",".join(str(v) for v in values)
    if roll < 0.88:
        step = rng.randint(2, max(2, (hi - lo) // 2))
        return f"*/{step}"
    a = rng.randint(lo, hi)
    step = rng.randint(2, max(2, (hi - lo) // 3))
    if rng.random() < 0.5:
        b = rng.randint(a, hi)
        return f"{a}-{b}/{step}"
    return f"{a}/{step}"


def random_expressions(count: int, seed: int = 20250101) -> list[str]:
    rng = random.Random(seed)
    result = []
    while len(result) < count:
        fields = [random_field(rng, k) for k in ("minute", "hour", "dom", "month", "dow")]
        # keep the vectors cheap to compute: avoid every-minute in most random cases
        if fields[0] == "*" and rng.random() < 0.7:
            fields[0] = str(rng.randint(0, 59))
        result.append(" ".join(fields))
    return result


def valid(expr: str) -> bool:
    try:
        it = CronSim(expr, datetime(2025, 1, 1, tzinfo=timezone.utc))
        next(it)
        return True
    except (cronsim.CronSimError, StopIteration):
        return False


def expressions() -> list[tuple[str, str]]:
    """(expression as Hearth reads it, expression given to cronsim)."""
    chosen: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(expr: str) -> None:
        text = MACROS.get(expr, expr)
        if expr in seen or not valid(text):
            return
        seen.add(expr)
        chosen.append((expr, text))

    for group in (FIXED, DST_TIMES, WALL_CLOCK, STEPS, LISTS, NAMES, SUNDAY_7, DAY_OR,
                  STAR_DAY_QUIRKS, SPARSE, list(MACROS)):
        for expr in group:
            add(expr)
    for expr in random_expressions(400):
        if len(chosen) >= 360:
            break
        add(expr)
    return chosen


def transitions(zone: str) -> list[int]:
    """Every UTC-offset change of `zone` during YEARS, as epoch seconds (instant of change)."""
    tz = ZoneInfo(zone)
    start = int(datetime(YEARS[0], 1, 1, tzinfo=timezone.utc).timestamp())
    end = int(datetime(YEARS[-1] + 1, 1, 1, tzinfo=timezone.utc).timestamp())

    def offset(t: int):
        return datetime.fromtimestamp(t, tz).utcoffset()

    found = []
    step = 3600
    t = start
    while t < end:
        if offset(t) != offset(t + step):
            lo, hi = t, t + step
            while hi - lo > 1:
                mid = (lo + hi) // 2
                if offset(mid) == offset(lo):
                    lo = mid
                else:
                    hi = mid
            found.append(hi)
        t += step
    return found


# Bases relative to a transition: well before, just before the affected local hour,
# just before the change itself, and just after it (inside the second copy of a repeated
# hour on fall-back nights).
TRANSITION_OFFSETS = [-3 * 3600, -65 * 60, -10 * 60, 5 * 60 + 17]
ORDINARY_BASES = [
    int(datetime(*args, tzinfo=timezone.utc).timestamp())
    for args in [
        (2025, 1, 1, 0, 0, 0), (2025, 2, 28, 23, 59, 59), (2025, 6, 15, 12, 34, 56),
        (2025, 12, 31, 23, 0, 0), (2026, 1, 31, 10, 0, 0), (2026, 5, 20, 3, 3, 3),
        (2026, 8, 31, 23, 59, 0), (2026, 12, 25, 6, 30, 0), (2027, 2, 28, 12, 0, 0),
        (2027, 7, 4, 18, 45, 30), (2027, 9, 30, 0, 0, 1), (2027, 11, 11, 11, 11, 11),
    ]
]


def fires(expr: str, zone: str, base: int) -> list[int]:
    tz = ZoneInfo(zone)
    start = datetime.fromtimestamp(base, tz)
    result = []
    for fire in CronSim(expr, start):
        ts = int(fire.timestamp())
        if ts <= base:
            continue
        result.append(ts)
        if len(result) == FIRES:
            break
    return result


def main() -> int:
    exprs = expressions()
    zone_transitions = {zone: transitions(zone) for zone in ZONES}
    output = []
    total = 0
    for index, (expr, cron_text) in enumerate(exprs):
        runs = []
        for zone_index, zone in enumerate(ZONES):
            bases = []
            for t_index, t in enumerate(zone_transitions[zone]):
                rotation = (index + t_index) % len(TRANSITION_OFFSETS)
                for k in (rotation, (rotation + 2) % len(TRANSITION_OFFSETS)):
                    bases.append(t + TRANSITION_OFFSETS[k])
            for k in range(2):
                bases.append(ORDINARY_BASES[(index * 2 + zone_index * 5 + k * 7) % len(ORDINARY_BASES)])
            for base in bases:
                values = fires(cron_text, zone, base)
                total += len(values)
                runs.append([zone_index, base] + values)
        entry = {"expr": expr, "runs": runs}
        if cron_text != expr:
            entry["cronsim"] = cron_text
        output.append(entry)

    document = {
        "cronsim": CRONSIM_VERSION,
        "count": FIRES,
        "zones": ZONES,
        "transitions": {zone: zone_transitions[zone] for zone in ZONES},
        "expressions": output,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as f:
        f.write("{\n")
        f.write(f' "cronsim": {json.dumps(document["cronsim"])},\n')
        f.write(f' "count": {FIRES},\n')
        f.write(f' "zones": {json.dumps(ZONES)},\n')
        f.write(f' "transitions": {json.dumps(document["transitions"], separators=(",", ":"))},\n')
        f.write(' "expressions": [\n')
        for i, entry in enumerate(output):
            sep = "," if i + 1 < len(output) else ""
            f.write("  " + json.dumps(entry, separators=(",", ":")) + sep + "\n")
        f.write(" ]\n}\n")
    print(f"{len(exprs)} expressions, {sum(len(e['runs']) for e in output)} runs, "
          f"{total} fire times -> {OUT} ({OUT.stat().st_size // 1024} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
