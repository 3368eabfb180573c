"""`calls`: the latency of callable functions (docs/callables.md) through a running daemon's
HTTP endpoint: `hearth seed --users N`, `[auth] jwksFile` with a key made here
(Tests/Servers/id_tokens.py signs one ID token per caller), `hearth daemon` with only
`send-gift` and `award-xp` enabled, on a copy of the seed and on a throwaway PostgreSQL database
imported from it. Then --calls calls of each job at each --concurrency (one keep-alive
`http.client` connection per concurrent caller), after 20 unmeasured ones; per-call latency
(request sent to answer read) p50/p90/p99 and calls/s, by answer:

  send-gift  200 (a gift committed: 1 point to a random user) and 400 insufficient_points (one
             call in five asks for 10,000,000 points: refused after the checks, nothing written)
  award-xp   200 awarded (written) and 200 not awarded (already awarded today: nothing written);
             half daily logins, half skill practices among 6 skills, random callers

Random choices from --seed. The daemon's log is WORK/calls-BACKEND.log."""
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

from . import postgres
from .common import HEARTH, ROOT, backends, load, log, pct
from .data import pristine
from .store import Store

ID_TOKENS = os.path.join(ROOT, "Tests", "Servers", "id_tokens.py")
ISSUER = "https://securetoken.google.com/hearth-bench"
AUDIENCE = "hearth-bench"
JOBS = ("send-gift", "award-xp")
SKILLS = ("swiftui", "figma", "guitar", "spanish", "python", "pottery")
WARMUP = 20


def options(p):
    p.add_argument("--bin", "--hearth", dest="bin", default=HEARTH, help="the hearth binary (default: the release build)")
    p.add_argument("--work", default=os.path.join(ROOT, ".bench-data"), help="seeds and run copies")
    p.add_argument("--users", type=int, default=10000, help="users seeded")
    p.add_argument("--backend", default="both", choices=["dir", "postgres", "both"])
    p.add_argument("--calls", type=int, default=2000, help="calls of each job at each concurrency")
    p.add_argument("--concurrency", default="1,16", help="comma-separated: concurrent callers")
    p.add_argument("--callers", type=int, default=1000, help="users with an ID token, the callers (at most --users)")
    p.add_argument("--seed", type=int, default=11, help="the random choices' seed")


def run(a):
    a.bin = os.path.abspath(a.bin)
    if not os.access(a.bin, os.X_OK):
        sys.exit(f"{a.bin} not found: swift build -c release --product hearth (or --hearth .build/debug/hearth)")
    a.busy = False
    seed = pristine(a, a.users)
    users = sorted(n[:-5] for n in os.listdir(os.path.join(seed, "users")) if n.endswith(".json"))
    rng = random.Random(a.seed)
    callers = sorted(rng.sample(users, min(a.callers, len(users))))
    jwks = os.path.join(a.work, "calls-jwks.json")
    tokens = json.loads(subprocess.run([sys.executable, ID_TOKENS, "--jwks", jwks, "--issuer", ISSUER, "--audience", AUDIENCE, "--uids-from", "-"],
                                       input="\n".join(callers), capture_output=True, text=True, check=True).stdout)
    jobs = json.loads(subprocess.run([a.bin, "list", "--data", seed, "--format", "json"], capture_output=True, text=True, check=True, cwd=a.work).stdout)
    levels = [int(c) for c in a.concurrency.split(",")]
    rows = []
    with postgres.server(a.backend in ("postgres", "both")) as pg:
        for backend in backends(a):
            store = Store(a, backend, a.users, seed, pg, label="_calls")
            store.load()
            config = os.path.join(a.work, f"calls-{backend}.toml")
            with open(config, "w") as f:
                f.write(f'dataDir = "{store.dir}"\n' if backend == "dir" else postgres.CONFIG)
                f.write(f'[auth]\njwksFile = "{jwks}"\nissuer = "{ISSUER}"\naudience = "{AUDIENCE}"\n[server]\nlisten = "127.0.0.1:0"\n')
                f.write("".join(f'[jobs.{j["job"]}]\nenabled = false\n' for j in jobs if j["job"] not in JOBS))
            daemon, port, log_path = start(a, backend, config, store)
            try:
                for job in JOBS:
                    for c in levels:
                        calls = [draw(job, rng, callers, users) for _ in range(WARMUP + a.calls)]
                        send(port, tokens, job, calls[:WARMUP], c)
                        started = time.monotonic()
                        results = send(port, tokens, job, calls[WARMUP:], c)
                        wall = time.monotonic() - started
                        rows.append((backend, job, c, wall, results))
            finally:
                daemon.send_signal(signal.SIGTERM)
                code = daemon.wait(timeout=60)
            if code != 0:
                log(f"the {backend} daemon exited {code}; see {log_path}")
    report(a, rows)


def start(a, backend, config, store):
    """`hearth daemon`, ready once its log says on which port its endpoint listens."""
    log_path = os.path.join(a.work, f"calls-{backend}.log")
    with open(log_path, "w") as out:
        daemon = subprocess.Popen([a.bin, "daemon", "--config", config], cwd=a.work, env=store.env_for(), stdout=subprocess.DEVNULL, stderr=out)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        match = re.search(r"HTTP endpoint listening.* port=(\d+)", open(log_path).read())
        if match:
            return daemon, int(match.group(1)), log_path
        if daemon.poll() is not None:
            sys.exit(f"the daemon exited ({daemon.returncode}); see {log_path}")
        time.sleep(0.1)
    daemon.kill()
    sys.exit(f"the daemon's endpoint did not start within 300 s; see {log_path}")


def draw(job, rng, callers, users):
    """(caller, data) of one call."""
    caller = rng.choice(callers)
    if job == "send-gift":
        to = rng.choice(users)
        while to == caller:
            to = rng.choice(users)
        return caller, {"toUserId": to, "amount": 10_000_000 if rng.random() < 0.2 else 1}
    if rng.random() < 0.5:
        return caller, {"source": "daily_login"}
    return caller, {"source": "skill_practice", "sourceId": rng.choice(SKILLS)}


def outcome(status, body):
    """The answer's class: `200`, `200 awarded` / `200 not awarded`, or `STATUS reason`."""
    try:
        answer = json.loads(body)
    except ValueError:
        return f"{status} not JSON"
    if status == 200:
        result = answer.get("result")
        if isinstance(result, dict) and "awarded" in result:
            return "200 awarded" if result["awarded"] else "200 not awarded"
        return "200"
    error = answer.get("error") or {}
    return f"{status} {(error.get('details') or {}).get('reason') or error.get('status')}"


def send(port, tokens, job, calls, concurrency):
    """Sends `calls` from `concurrency` threads, each on its own keep-alive connection; a list of
    (class, seconds) per call."""
    results, lock, index = [], threading.Lock(), [0]

    def caller():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                if index[0] >= len(calls):
                    break
                uid, data = calls[index[0]]
                index[0] += 1
            body = json.dumps({"data": data})
            headers = {"Content-Type": "application/json", "Authorization": "Bearer " + tokens[uid]}
            t0 = time.perf_counter()
            connection.request("POST", "/call/" + job, body=body, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            elapsed = time.perf_counter() - t0
            with lock:
                results.append((outcome(response.status, raw), elapsed))
        connection.close()

    threads = [threading.Thread(target=caller) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def report(a, rows):
    print(f"\n{a.users:,} users, {a.calls} calls per row group, {os.path.relpath(a.bin, ROOT)}, load average {load():.1f}")
    print("| backend | job | concurrency | answer | calls | p50 ms | p90 ms | p99 ms | calls/s |")
    print("|---|---|---:|---|---:|---:|---:|---:|---:|")
    for backend, job, c, wall, results in rows:
        classes = sorted({k for k, _ in results})
        for k in ["all"] + classes:
            ms = [s * 1000 for kk, s in results if k == "all" or kk == k]
            print(f"| {backend} | {job} | {c} | {k} | {len(ms)} | {pct(ms, .5):.1f} | {pct(ms, .9):.1f} | {pct(ms, .99):.1f} | {len(ms) / wall:.0f} |")
