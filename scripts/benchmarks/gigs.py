"""`gigs`: gig-quality-score over GIGS generated gigs: a dry run, the real run, a second run."""
import json
import os
import random
import re
from datetime import datetime, timedelta, timezone

from .common import NOW, bins, data_options, load, scratch, timed

WORDS = ("join our friendly team and help students every day while learning useful skills "
         "in a flexible environment that fits your class schedule").split()
TITLES = ["Barista, morning shift", "Research assistant", "URGENT HIRING NOW: BARISTA", "Tutor", "Cook",
          "Front desk assistant at the rec center", "Delivery driver", "Lab technician (chemistry)",
          "Weekend event staff", "Dog walker needed for two friendly labradors near campus"]
COMPANIES = ["Badger Brew", "UW Psychology", "", "QuickShip", "Rec Sports", "Camp Lakeside", "Fetch Media"]
T = datetime(2026, 11, 18, 12, tzinfo=timezone.utc)


def options(p):
    data_options(p, backend=False)
    p.add_argument("--gigs", type=int, default=10000)


def stamp(d):
    return d.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def gig(i, rng):
    """Gig number `i` (from 1); `rng` advances the same way whatever came before."""
    if i > 10 and rng.random() < 0.04:
        k = rng.randint(1, i - 1)
        title, company = TITLES[k % len(TITLES)] + " #%d" % k, COMPANIES[k % len(COMPANIES)]
    else:
        title, company = TITLES[i % len(TITLES)] + " #%d" % i, COMPANIES[i % len(COMPANIES)]
    desc = " ".join(WORDS[j % len(WORDS)] for j in range(rng.choice([5, 14, 15, 39, 40, 79, 80, 120, 300])))
    r = rng.random()
    if r < 0.03:
        desc += " Call (608) 555-0199 or write jobs@example.com"
    elif r < 0.06:
        desc += " Earn $$ fast!!!"
    g = {"title": title, "description": desc, "company": company,
         "location": rng.choice(["Madison, WI", "Madison, WI", ""]), "isRemote": rng.random() < 0.2}
    p = i % 3
    if p == 0:
        g["payMin"], g["payMax"] = rng.randint(12, 18), rng.randint(18, 25)
    elif p == 1:
        g["compensation"] = rng.choice(["$15/hour", "Competitive", "DOE"])
    g["postedAt"] = stamp(T - timedelta(days=rng.randint(0, 45), seconds=rng.randint(0, 86399)))
    if rng.random() < 0.1:
        g["expiresAt"] = stamp(T + timedelta(days=rng.randint(-10, 10)))
    g["source"] = rng.choice(["internal", "indeed", "handshake"])
    if g["source"] != "internal":
        g["externalUrl"] = rng.choice(["https://jobs.example.com/%d" % i, "http://jobs.example.com/%d" % i, "https://localhost/%d" % i])
    g["status"] = "closed" if rng.random() < 0.03 else "deleted" if rng.random() < 0.02 else "active"
    g["postedBy"] = "employer-%d" % (i % 50)
    return g


def write_gigs(data, n):
    """`n` gigs from a small deterministic generator: every component level and penalty of the
    built-in rubric occurs, ~4% repeat an earlier gig's title and company, ~5% are closed or
    deleted."""
    os.makedirs(os.path.join(data, "gigs"), exist_ok=True)
    rng = random.Random(1)
    for i in range(1, n + 1):
        with open(os.path.join(data, "gigs", "gig-%05d.json" % i), "w") as f:
            json.dump(gig(i, rng), f, indent=2, ensure_ascii=False)
            f.write("\n")


def run(a):
    bins(a)
    with scratch("hearth-bench-gigs-") as work:
        data = work + "/data"
        write_gigs(data, a.gigs)
        print(f"gig-quality-score over {a.gigs:,} gigs, T={NOW}, {os.cpu_count()} cores; load average {load():.1f}")
        print("| run | wall (s) | gigs/s | peak RSS (MiB) | summary |")
        print("|---|---:|---:|---:|---|")
        for label, verb in (("dry run (plan)", "plan"), ("real run", "run"), ("second run", "run")):
            os.sync()
            wall, _, rss, out = timed([a.bin, verb, "gig-quality-score", "--data", data, "--now", NOW, "--limit", "0"], ok=(0,))
            summary = next((l for l in reversed(out.splitlines()) if re.match(r"^(Plan|Applied):|^No changes\.", l)), "")
            print(f"| {label} | {wall:.2f} | {a.gigs / wall:,.0f} | {rss:.1f} | {summary} |")
