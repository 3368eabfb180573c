"""`feed-sql`: the change feed's triggers in SQL alone, no hearth process timed: per round,
triggers on and off (alternating), a fresh database (`hearth migrate`), one `COPY` of N `users`
rows of ~300 bytes (as `hearth data import` sends), then one transaction of N/500 `INSERT … ON
CONFLICT DO UPDATE` of 500 rows rewriting them all (as a commit sends). Wall time of each
through psql, and with the triggers on, the trigger function's own time from
pg_stat_user_functions (track_functions = pl)."""
import collections
import os
import random
import subprocess
import time

from . import postgres
from .common import hearth_option, interleaved, load, log, median_range, scratch


def options(p):
    p.add_argument("--rows", type=int, default=100000)
    p.add_argument("--rounds", type=int, default=3)
    hearth_option(p, "the hearth binary (for `hearth migrate`)")


def write_inputs(folder, count):
    """FOLDER/rows.tsv (the COPY's rows), upserts.sql (the transaction), pg.toml."""
    rng = random.Random(7)
    with open(os.path.join(folder, "rows.tsv"), "w") as f:
        for i in range(count):
            doc = '{"name": "user %d", "xp": %d, "level": %d, "friends": ["u%d", "u%d"], "createdAt": "2026-01-01T00:00:00Z", "bio": "%s"}' % (
                i, rng.randint(0, 99999), rng.randint(1, 50), rng.randint(0, 99999), rng.randint(0, 99999), "x" * 150)
            f.write(f"users\tu{i:07d}\t{doc}\t{i}\n")
    with open(os.path.join(folder, "upserts.sql"), "w") as f:
        f.write("BEGIN;\n")
        for c in range(0, count, 500):
            f.write("INSERT INTO documents (collection, id, raw, version) SELECT collection, id, raw || ' ', nextval('document_versions') "
                    f"FROM documents WHERE collection = 'users' AND id >= 'u{c:07d}' ORDER BY id LIMIT 500 "
                    "ON CONFLICT (collection, id) DO UPDATE SET raw = excluded.raw, version = excluded.version;\n")
        f.write("COMMIT;\n")
    postgres.write_config(os.path.join(folder, "pg.toml"))


def psql(url, *args, options=""):
    start = time.monotonic()
    out = subprocess.run(["psql", url, "-qAtX", "-v", "ON_ERROR_STOP=1"] + list(args), check=True, capture_output=True, text=True,
                         env=dict(os.environ, PGOPTIONS=options)).stdout
    return time.monotonic() - start, out


def function_ms(url):
    time.sleep(1.5)  # statistics reach the view within a second of the session's end
    return float(psql(url, "-c", "SELECT coalesce(sum(total_time), 0) FROM pg_stat_user_functions WHERE funcname = 'hearth_notify_documents'")[1] or 0)


def run(a):
    a.bin = os.path.abspath(a.bin)
    figures = collections.defaultdict(list)
    with postgres.server() as pg, scratch("hearth-feed-sql-") as folder:
        write_inputs(folder, a.rows)
        for r in range(a.rounds):
            for state in interleaved(("on", "off"), r):
                measure(a, pg, folder, state, figures)
                log(f"round {r + 1}, triggers {state}: copy {figures[('copy', state)][-1]:.2f} s, upserts {figures[('upsert', state)][-1]:.2f} s")
    print(f"`scripts/bench.py feed-sql --rows {a.rows} --rounds {a.rounds}`; load average {load():.1f}\n")
    print("| step | wall, triggers off (s) | wall, triggers on (s) | the trigger function's time (s) |")
    print("|---|---:|---:|---:|")
    for step, label in (("copy", f"one `COPY` of {a.rows:,} rows"), ("upsert", f"{a.rows // 500:,} upserts of 500 rows, one transaction")):
        print(f"| {label} | {median_range(figures[(step, 'off')])} | {median_range(figures[(step, 'on')])} | {median_range(figures[(step, 'fn')], 3)} |")


def measure(a, pg, folder, state, figures):
    url = pg.database(f"hearth_feed_sql_{state}")
    postgres.migrate(a.bin, os.path.join(folder, "pg.toml"), postgres.store_env(url))
    if state == "off":
        psql(url, "-c", "ALTER TABLE documents DISABLE TRIGGER USER")
    w, _ = psql(url, "-c", f"\\copy documents (collection, id, raw, version) FROM '{folder}/rows.tsv'", options="-c track_functions=pl")
    figures[("copy", state)].append(w)
    copy_ms = function_ms(url) if state == "on" else 0
    psql(url, "-c", "VACUUM ANALYZE documents")
    w, _ = psql(url, "-f", os.path.join(folder, "upserts.sql"), options="-c track_functions=pl")
    figures[("upsert", state)].append(w)
    if state == "on":
        total = function_ms(url)
        figures[("copy", "fn")].append(copy_ms / 1000)
        figures[("upsert", "fn")].append((total - copy_ms) / 1000)
