"""`import`: `hearth data import` of the seed into a fresh PostgreSQL database, per size."""
import subprocess

from . import postgres
from .common import bins, data_options, load
from .data import pristine
from .store import Store


def options(p):
    data_options(p, backend=False, users="10000,100000")
    p.add_argument("--cold", action="store_true", help="drop the page cache first (root only): the seed's files read from the disk")


def run(a):
    bins(a)
    with postgres.server() as pg:
        print("| users | documents | `data import` (s) | its CPU, user + system (s) | peak RSS (MiB) |")
        print("|---:|---:|---:|---:|---:|")
        for users in [int(s) for s in a.users.split(",")]:
            seed = pristine(a, users, a.busy)
            docs = int(subprocess.run(f"find {seed} -name '*.json' -not -path '*/.hearth/*' | wc -l", shell=True, capture_output=True, text=True).stdout)
            s = Store(a, "postgres", users, seed, pg)
            if a.cold:  # the seed's files out of the page cache, as after a reboot
                subprocess.run(["sync"], check=True)
                with open("/proc/sys/vm/drop_caches", "w") as f:
                    f.write("3\n")
            s.load()
            print(f"| {users:,} | {docs:,} | {s.import_seconds:.1f} | {s.import_cpu:.1f} | {s.import_rss:.0f} |")
        print(f"\nload average {load():.1f}")
