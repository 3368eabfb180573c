"""`functions`: a command job (functions/expire_gigs.py) beside its compiled-in Swift twin
(`hearth-bench run-twin`): GIGS gigs (one in ten past its deadline) and 1,000 users."""
import collections
import os
import shutil
import subprocess

from .common import NOW, ROOT, bins, data_options, load, median_range, scratch, timed, write_json


def options(p):
    data_options(p, backend=False)
    p.add_argument("--gigs", type=int, default=100000)
    p.add_argument("--reps", type=int, default=3)


def write_data(work, gigs):
    """WORK/pristine (the gigs and users) and WORK/hearth.toml (the command job)."""
    data = work + "/pristine"
    os.makedirs(data + "/gigs")
    os.makedirs(data + "/users")
    for u in range(1000):
        write_json(f"{data}/users/u{u:05d}.json", {"name": f"User {u}", "fcmTokens": [f"tok-{u:05d}"]})
    for g in range(gigs):
        write_json(f"{data}/gigs/g{g:06d}.json", {
            "title": f"Gig {g}", "description": "Help wanted for a few hours a week around classes.", "status": "active",
            "postedBy": f"u{g % 3000:05d}", "postedAt": "2026-11-10T09:00:00.000Z",
            "expiresAt": "2026-11-17T00:00:00.000Z" if g % 10 == 0 else "2026-12-17T00:00:00.000Z"})
    with open(work + "/hearth.toml", "w") as f:
        f.write(f'dataDir = "data"\n[notifications]\ntypes = ["gig_expired"]\n[jobs.expire-gigs]\ncommand = ["python3", "{ROOT}/functions/expire_gigs.py"]\n'
                'reads = ["gigs", "users"]\nwrites = ["gigs", "notifications"]\nschedule = "0 * * * *"\ntimeout = "1h"\n')
    return data


def run(a):
    bins(a)
    variants = {
        "command job (Python)": lambda dry: [a.bin, "plan" if dry else "run", "expire-gigs", "--config", "hearth.toml", "--now", NOW, "--limit", "0"],
        "compiled-in twin (Swift)": lambda dry: [a.bench_bin, "run-twin", "--config", "hearth.toml", "--now", NOW] + (["--dry-run"] if dry else []),
    }
    results = collections.defaultdict(list)
    with scratch("hearth-bench-fn-") as work:
        data = write_data(work, a.gigs)
        for _ in range(a.reps):
            for name, cmd in variants.items():
                for dry in (True, False):
                    shutil.rmtree(work + "/data", ignore_errors=True)
                    subprocess.run(["cp", "-a", data, work + "/data"], check=True)
                    os.sync()
                    wall, _, rss, _ = timed(cmd(dry), cwd=work, ok=(0,))
                    results[(name, dry)].append((wall, rss))
        print(f"{a.gigs:,} gigs + 1,000 users read, {a.gigs // 10:,} gigs expired (updated), {a.reps} runs each; load average {load():.1f}")
        print("| job | plan (s) | run (s) | peak RSS, run (MiB) |")
        print("|---|---|---|---:|")
        for name in variants:
            print(f"| {name} | {median_range([r[0] for r in results[(name, True)]])} | {median_range([r[0] for r in results[(name, False)]])} | "
                  f"{max(r[1] for r in results[(name, False)]):.0f} |")
