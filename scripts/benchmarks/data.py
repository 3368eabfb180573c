"""The seeds the benchmarks run over: `hearth seed --users N --seed 7` into WORK/seed-N, seeded
once and never written, the busy workload on top of it, and copies to run on."""
import os
import random
import shutil
import subprocess
import time

from .common import NOW_S, iso, log, write_json


def make_busy(data, users, gifts=50000, reports=100000, items=10000, xp=200000):
    """The busy workload over a seeded directory: the seed's pending gifts replaced by
    `gifts` random ones (1-50 points, created in the 6 hours before T), its reports by `reports`
    over `items` items, its XP history by `xp` xpTransactions (60 days)."""
    rng = random.Random(18)
    width = max(5, len(str(users)))

    def uid(i):
        return "u" + str(i).zfill(width)
    busy_gifts(data, users, gifts, rng, uid)
    busy_reports(data, users, reports, items, rng, uid)
    busy_xp(data, users, xp, rng, uid)


def emptied(data, collection):
    shutil.rmtree(os.path.join(data, collection), ignore_errors=True)
    os.makedirs(os.path.join(data, collection))
    return os.path.join(data, collection)


def busy_gifts(data, users, gifts, rng, uid):
    tx = os.path.join(data, "transactions")
    for name in os.listdir(tx):
        p = os.path.join(tx, name)
        with open(p) as f:
            if '"status": "pending"' in f.read():
                os.unlink(p)
    for i in range(gifts):
        a = rng.randint(1, users)
        b = rng.randint(1, users - 1)
        b = b + 1 if b >= a else b
        write_json(os.path.join(tx, f"bench-gift-{i:06d}.json"), {
            "type": "gift", "fromUserId": uid(a), "toUserId": uid(b), "amount": rng.randint(1, 50),
            "message": "Thanks!", "status": "pending", "createdAt": iso(NOW_S - rng.randint(60, 6 * 3600))})


def busy_reports(data, users, reports, items, rng, uid):
    folder = emptied(data, "reports")
    half = items // 2
    targets = [("trade", f"trade-{uid(2 * k)}") for k in range(1, half + 1)] + [("user", uid(users - k)) for k in range(items - half)]
    for i in range(reports):
        kind, content = targets[rng.randrange(len(targets))]
        write_json(os.path.join(folder, f"bench-report-{i:06d}.json"), {
            "reporterId": uid(rng.randint(1, users)), "contentId": content, "contentType": kind,
            "reason": rng.choice(["inappropriate", "spam", "harassment", "other"]), "details": "",
            "createdAt": iso(NOW_S - rng.randint(60, 2 * 86400))})


def busy_xp(data, users, xp, rng, uid):
    folder = emptied(data, "xpTransactions")
    sources = [("trade_completed", 500), ("challenge_completed", 300), ("collaboration_completed", 400), ("achievement_unlocked", 100)]
    for i in range(xp):
        source, amount = rng.choice(sources)
        write_json(os.path.join(folder, f"bench-xp-{i:06d}.json"), {
            "userId": uid(rng.randint(1, users)), "amount": amount, "source": source, "sourceId": f"bench-{i}",
            "description": source, "createdAt": iso(NOW_S - rng.randint(60, 60 * 86400))})


def pristine(a, users, busy=False):
    """WORK/seed-N (or seed-N-busy): seeded once, never written."""
    os.makedirs(a.work, exist_ok=True)
    path = os.path.join(a.work, f"seed-{users}" + ("-busy" if busy else ""))
    done = os.path.join(path, ".bench-ready")
    if os.path.exists(done):
        return path
    shutil.rmtree(path, ignore_errors=True)
    t0 = time.time()
    subprocess.run([a.bin, "seed", "--out", path, "--users", str(users), "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
    if busy:
        make_busy(path, users)
    open(done, "w").close()
    log(f"seeded {users:,} users{' (busy)' if busy else ''} in {time.time() - t0:.0f} s")
    return path


def first_seed(a, busy=None):
    """The first of --users' sizes, and its seed (busy when --busy, unless `busy` says)."""
    users = int(a.users.split(",")[0])
    return users, pristine(a, users, a.busy if busy is None else busy)


def fresh_copy(source, target):
    """`target` as a copy of `source`: files hard-linked, `.hearth/` copied for real."""
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(["cp", "-al", source, target], check=True)
    if os.path.isdir(os.path.join(source, ".hearth")):
        shutil.rmtree(os.path.join(target, ".hearth"))
        subprocess.run(["cp", "-a", os.path.join(source, ".hearth"), os.path.join(target, ".hearth")], check=True)
    os.sync()
