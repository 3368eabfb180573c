"""`trigger`: write-to-commit latency of triggered runs with a daemon running
(docs/triggers.md#what-it-costs): a pending gift written into `transactions` (a rename on a
data directory, an INSERT on PostgreSQL) until its document says `completed`, one at a time,
--count times; the same for a message until its conversation's `lastMessage` shows it; then
--burst gifts from 4 writers within one second, until all are settled; the daemon's CPU per
one-gift run and its resident memory when idle, with triggers on and off."""
import json
import os
import signal
import subprocess
import sys
import time

from . import postgres
from .common import HERE, backends, cpu_seconds, data_options, iso, load, pct, proc_status
from .data import first_seed
from .store import Store
from .trigger_app import open_app

JOBS = ("gift-settle", "conversation-sync")
BURST_WRITER = os.path.join(HERE, "burst_writer.py")


def options(p):
    data_options(p, users="100000")
    p.add_argument("--count", type=int, default=200, help="gifts (and messages) written one at a time")
    p.add_argument("--burst", type=int, default=10000, help="gifts written by 4 writers within one second")
    p.add_argument("--perf", default="", help="record the daemon with `perf record -g` during the burst into this file")
    p.add_argument("--idle-only", dest="idle_only", action="store_true", help="only the idle figures, triggers off and on")
    p.add_argument("--trigger-delay", dest="trigger_delay", default="20ms", help="triggerDelay of both jobs")
    p.add_argument("--daemons", type=int, default=1, help="daemons sharing the database (PostgreSQL only); the one-gift CPU figure is the first's")


def run(a):
    users, seed = first_seed(a, busy=False)
    with postgres.server(a.backend in ("postgres", "both")) as pg:
        for backend in backends(a):
            Round(a, backend, users, seed, pg).run()


class Round:
    """One backend's measurements: idle without triggers (before any run, after a slot's runs),
    then with triggers: idle, one write at a time, a burst."""

    def __init__(self, a, backend, users, seed, pg):
        if a.daemons > 1 and backend != "postgres":
            sys.exit("--daemons: only daemons on one PostgreSQL database share a store; use --backend postgres")
        self.a, self.backend, self.users = a, backend, users
        self.store = Store(a, backend, users, seed, pg, label="_trigger")
        self.store.load()
        self.cfg = os.path.join(a.work, f"trigger-{backend}.toml")
        self.log_path = os.path.join(a.work, f"trigger-{backend}.log")
        self.jobs = json.loads(subprocess.run([a.bin, "list", "--data", seed, "--format", "json"], capture_output=True, text=True, check=True, cwd=a.work).stdout)
        # Both jobs' slots are two days ago (as in `idle`): only writes start runs, so neither the
        # latencies nor the idle figures include a scheduled full run.
        day = time.gmtime(time.time() - 2 * 86400)
        self.far = f"0 12 {day.tm_mday} {day.tm_mon} *"
        self.user_ids = sorted(n[:-5] for n in os.listdir(os.path.join(seed, "users")) if n.endswith(".json"))[:200]
        self.conversations = []
        for n in sorted(os.listdir(os.path.join(seed, "conversations"))):
            c = json.load(open(os.path.join(seed, "conversations", n)))
            if isinstance(c.get("participantIds"), list) and len(c["participantIds"]) >= 2:
                self.conversations.append((n[:-5], c["participantIds"]))
            if len(self.conversations) >= 50:
                break
        self.app = None

    def config(self, triggers, schedule=None):
        with open(self.cfg, "w") as f:
            f.write(f'dataDir = "{self.store.dir}"\n' if self.backend == "dir" else postgres.CONFIG)
            for j in self.jobs:
                if j["job"] in JOBS:
                    f.write(f'[jobs.{j["job"]}]\nschedule = "{schedule or self.far}"\ntriggerDelay = "{self.a.trigger_delay}"\n' + ("" if triggers else "triggers = []\n"))
                else:
                    f.write(f'[jobs.{j["job"]}]\nenabled = false\n')

    def gift(self, i, label):
        ids = self.user_ids
        return f"{label}-{i:05d}", {"type": "gift", "status": "pending", "fromUserId": ids[(2 * i) % len(ids)], "toUserId": ids[(2 * i + 1) % len(ids)],
                                    "amount": 1, "message": "bench", "createdAt": iso(time.time())}

    def message(self, i):
        cid, members = self.conversations[i % len(self.conversations)]
        return f"bench-m-{i:05d}", cid, {"conversationId": cid, "senderId": members[0], "content": f"bench message {i}",
                                         "type": "text", "createdAt": iso(time.time()), "readBy": [members[0]]}

    def daemon(self, log_path=None):
        stderr = open(log_path, "w") if log_path else subprocess.DEVNULL
        return subprocess.Popen([self.a.bin, "daemon", "--config", self.cfg], cwd=self.a.work, env=self.store.env_for(), stdout=subprocess.DEVNULL, stderr=stderr)

    def start_daemon(self, trigger="write"):
        proc = self.daemon(self.log_path)
        # Ready once both jobs' first run is recorded: with triggers, the start-up run (the
        # backstop); without, the slot's.
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            out = self.store.hearth("history", "--limit", "50", "--format", "json", check=False).stdout
            if set(JOBS) <= {r["job"] for r in json.loads(out or "[]") if r["trigger"] == trigger}:
                return proc
            if proc.poll() is not None:
                sys.exit(f"the daemon exited ({proc.returncode}); see {self.log_path}")
            time.sleep(0.5)
        sys.exit(f"the daemon's start-up runs did not finish; see {self.log_path}")

    def start_others(self):
        """More daemons on the same database (`--daemons N`, PostgreSQL only), each ready once
        its start-up runs of both jobs are logged."""
        others = []
        for k in range(1, self.a.daemons):
            other_log = f"{self.log_path}.{k}"
            others.append(self.daemon(other_log))
            deadline = time.monotonic() + 600
            while sum(1 for line in open(other_log) if "run succeeded" in line) < 2:
                if time.monotonic() > deadline or others[-1].poll() is not None:
                    sys.exit(f"daemon {k + 1} did not finish its start-up runs; see {other_log}")
                time.sleep(0.5)
        return others

    def idle_figures(self, proc, seconds=20):
        """(CPU share, VmRSS, RssAnon, RssFile) over `seconds`, once the start-up runs'
        aftermath (the outbox pass over their messages) is over, i.e. a second with under
        20 ms of CPU; at most two minutes."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            c = cpu_seconds(proc.pid)
            time.sleep(1)
            if cpu_seconds(proc.pid) - c < 0.02:
                break
        time.sleep(2)
        c0 = cpu_seconds(proc.pid)
        time.sleep(seconds)
        return ((cpu_seconds(proc.pid) - c0) / seconds, proc_status(proc.pid, "VmRSS") / 1024, proc_status(proc.pid, "RssAnon") / 1024,
                proc_status(proc.pid, "RssFile") / 1024)

    def idle_without_triggers(self):
        """Without triggers, twice on the same data: before any run (nothing runs at start: no
        trigger, no slot due), then after both jobs have run once at a slot. The first run of
        either daemon does the seed's one-time work (gift-settle fails its expired pending
        gifts), so the daemon with triggers starts on a fresh copy and its start-up runs do the
        same."""
        self.config(False)
        proc = self.daemon()
        time.sleep(5)
        idle_none = self.idle_figures(proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        slot = time.gmtime(time.time() + 65)  # the next whole minute at least 5 s away, once a year
        self.config(False, schedule=f"{slot.tm_min} {slot.tm_hour} {slot.tm_mday} {slot.tm_mon} *")
        proc = self.start_daemon(trigger="schedule")
        idle_off = self.idle_figures(proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        return idle_none, idle_off

    def run(self):
        idle_none, idle_off = self.idle_without_triggers()
        self.store.load()
        self.app = open_app(self.store)  # after the copy: nobody may be connected to a database copied over
        self.config(True)
        proc = self.start_daemon()
        others = self.start_others()
        self.app.watch("transactions")
        self.app.watch("conversations")
        try:
            idle_on = self.idle_figures(proc)
            if self.a.idle_only:
                proc.send_signal(signal.SIGTERM)
                code = proc.wait(timeout=60)
                print(f"\n{self.backend}, {self.users:,} users; daemon exit {code}")
                print(idle_line(idle_none, idle_off, idle_on))
                return
            one = self.one_at_a_time(proc)
            burst = self.burst(proc)
        finally:
            for p in others:
                p.send_signal(signal.SIGTERM)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
            for p in others:
                p.wait(timeout=60)
            self.app.close()
        self.report(code, one, burst, idle_line(idle_none, idle_off, idle_on))

    def one_at_a_time(self, proc):
        """--count gifts, then --count messages, each written once the one before is done."""
        a, app = self.a, self.app
        gift_ms = []
        c0 = cpu_seconds(proc.pid)
        for i in range(a.count):
            doc_id, obj = self.gift(i, "bench-g")
            app.write("transactions", doc_id, obj)
            t0 = time.monotonic()
            t1 = app.wait_for("transactions", doc_id, lambda d: d.get("status") == "completed")
            gift_ms.append((t1 - t0) * 1000)
            time.sleep(0.05)  # the run records itself after its commit
        # /proc's CPU times tick every 10 ms: the mean over all the one-gift runs.
        cpu_per_gift = (cpu_seconds(proc.pid) - c0) * 1000 / a.count
        msg_ms = []
        for i in range(a.count):
            doc_id, cid, obj = self.message(i)
            app.write("messages", doc_id, obj)
            t0 = time.monotonic()
            t1 = app.wait_for("conversations", cid, lambda d, text=obj["content"]: d.get("lastMessage") == text)
            msg_ms.append((t1 - t0) * 1000)
            time.sleep(0.02)
        history = self.store.hearth("history", "gift-settle", "--limit", "5", "--format", "json", check=False).stdout
        reads = [r["counts"]["documentsRead"] for r in json.loads(history) if r["trigger"] == "write"]
        return {"gift_ms": gift_ms, "msg_ms": msg_ms, "cpu_per_gift": cpu_per_gift, "reads": reads}

    def runs_logged(self):
        logs = [self.log_path] + [f"{self.log_path}.{k}" for k in range(1, self.a.daemons)]
        return sum(1 for log in logs for line in open(log) if "run succeeded" in line and " job=gift-settle " in line and "trigger=write" in line)

    def burst_batches(self):
        """The burst's gifts in 4 files, one per writer; their ids."""
        ids, paths = [], []
        per = self.a.burst // 4
        for w in range(4):
            batch = [self.gift(w * per + k, f"bench-b{w}") for k in range(per)]
            ids += [d for d, _ in batch]
            paths.append(os.path.join(self.a.work, f"burst-{w}.json"))
            with open(paths[-1], "w") as f:
                json.dump(batch, f)
        return ids, paths

    def burst(self, proc):
        """--burst gifts from 4 writers within about one second, until all are settled."""
        a = self.a
        before = self.runs_logged()
        ids, batches = self.burst_batches()
        profiler = None
        if a.perf:  # the daemon's samples during the burst alone
            profiler = subprocess.Popen(["perf", "record", "-g", "-F", "997", "-p", str(proc.pid), "-o", a.perf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        first_write = time.monotonic()
        writers = [subprocess.Popen([sys.executable, BURST_WRITER, self.backend, self.app.target, p]) for p in batches]
        for p in writers:
            p.wait()
        last_write = time.monotonic()
        pending = set(ids)
        while pending and time.monotonic() - last_write < 120:
            pending = {d for d in pending if (self.app.read("transactions", d) or {}).get("status") != "completed"}
            if pending:
                time.sleep(0.02)
        settled_after = time.monotonic() - last_write
        if profiler:
            profiler.send_signal(signal.SIGINT)
            profiler.wait(timeout=60)
        time.sleep(0.5)  # the last run's log line follows its commit
        return {"seconds": last_write - first_write, "pending": len(pending), "settled_after": settled_after, "runs": self.runs_logged() - before}

    def report(self, code, one, burst, idle):
        a = self.a
        print(f"\n{self.backend}, {self.users:,} users, {a.daemons} daemon(s), triggerDelay {a.trigger_delay}, load average {load():.1f}; daemon exit {code}")
        print("| measure | p50 | p90 | p99 | max |")
        print("|---|---:|---:|---:|---:|")
        for label, v in (("gift written → completed (ms)", one["gift_ms"]), ("message written → conversation summary (ms)", one["msg_ms"])):
            print(f"| {label} | {pct(v, .5):.1f} | {pct(v, .9):.1f} | {pct(v, .99):.1f} | {max(v):.1f} |")
        print(f"daemon CPU per one-gift run (mean over {a.count}): {one['cpu_per_gift']:.1f} ms")
        print(f"documents read by the last one-gift runs: {one['reads']}")
        print(f"burst: {a.burst:,} gifts from 4 writers in {burst['seconds']:.2f} s; {burst['pending']} not settled; "
              f"all settled {burst['settled_after']:.2f} s after the last write; {burst['runs']} gift-settle runs")
        print(idle)


def idle_line(none, off, on):
    """The idle figures of `trigger`, each (CPU share, VmRSS, RssAnon, RssFile): triggers off
    before any run and after a slot's runs, triggers on after the start-up runs."""
    def figures(f):
        return f"{f[0] * 100:.2f}% CPU, {f[1]:.1f} MiB resident ({f[2]:.1f} anonymous, {f[3]:.1f} files)"
    return (f"idle daemon, 20 s: triggers off, before any run: {figures(none)}; triggers off, after a slot's runs: {figures(off)}; "
            f"triggers on, after its start-up runs: {figures(on)}; on − off after runs: {on[1] - off[1]:+.1f} MiB")
