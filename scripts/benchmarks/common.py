"""What the benchmarks share: the repository's paths, the fixed T, timing a command under
/usr/bin/time, medians, the options of the commands that seed data, the C programs' builds."""
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HEARTH = os.path.join(ROOT, ".build/release/hearth")
NOW = "2026-11-18T12:00:00Z"
NOW_S = 1795003200  # NOW in Unix seconds


def log(message):
    print(message, file=sys.stderr, flush=True)


def load():
    return os.getloadavg()[0]


def timed(cmd, cwd=None, env=None, ok=(0, 2)):
    """Runs cmd under /usr/bin/time; returns (wall s, CPU s, peak RSS MiB, stdout). The wall
    time is this process's clock around the run (time's own %e has 10 ms steps, too coarse for
    a run of 20 ms); CPU and RSS are time's."""
    with tempfile.NamedTemporaryFile("r") as out:
        started = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", out.name] + cmd, cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - started
        fields = out.read().split()[-4:]
    if p.returncode not in ok:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-3000:]}")
    _, user, system, rss = fields
    return wall, float(user) + float(system), int(rss) / 1024, p.stdout


def median_range(values, digits=2):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def pct(values, q):
    """The q-quantile of `values` (nearest rank)."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def interleaved(items, round_index):
    """`items` in order on even rounds, reversed on odd ones: neither always goes first."""
    items = list(items)
    return items if round_index % 2 == 0 else list(reversed(items))


def last_line(out):
    return out.strip().splitlines()[-1] if out.strip() else ""


def iso(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")


@contextlib.contextmanager
def scratch(prefix):
    """A temporary directory, removed afterwards whatever happens."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def proc_status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    """User + system CPU of process `pid` so far (/proc's clock ticks: 10 ms steps)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hearth_option(p, what="the hearth binary"):
    p.add_argument("--bin", default=HEARTH, help=what)


def data_options(p, backend=True, users="10000"):
    """The options of the commands that run `hearth` over a seed."""
    hearth_option(p)
    p.add_argument("--bench-bin", dest="bench_bin", default="", help="hearth-bench (default: beside --bin)")
    p.add_argument("--work", default=os.path.join(ROOT, ".bench-data"), help="seeds and run copies")
    p.add_argument("--users", default=users, help="comma-separated sizes")
    p.add_argument("--busy", action="store_true", help="the busy workload on top of the seed")
    if backend:
        p.add_argument("--backend", default="dir", choices=["dir", "postgres", "both"])


def variant_option(p, metavar="NAME=PATH", **kwargs):
    p.add_argument("--variant", "--binary", action="append", metavar=metavar, **kwargs)


def backends(a):
    return ["dir", "postgres"] if a.backend == "both" else [a.backend]


def bins(a):
    a.bin = os.path.abspath(a.bin)
    if not a.bench_bin:
        a.bench_bin = os.path.join(os.path.dirname(a.bin), "hearth-bench")
    for b in (a.bin, a.bench_bin):
        if not os.access(b, os.X_OK):
            sys.exit(f"{b} not found: swift build -c release --product hearth && swift build -c release --product hearth-bench")


def c_program(name, *libraries):
    """c/NAME.c compiled with `cc -O2` into .build/bench/NAME, again whenever the source is newer."""
    source = os.path.join(HERE, "c", name + ".c")
    binary = os.path.join(ROOT, ".build", "bench", name)
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        subprocess.run(["cc", "-O2", "-o", binary + ".new", source] + list(libraries), check=True)
        os.replace(binary + ".new", binary)
    return binary
