"""`idle`: idle `hearth daemon`s (each binary given, started together on copies of one 100-user
seed, every job on a slot about a year away): CPU time and context switches over --duration
seconds, VmRSS (anonymous + file), PSS; then SIGTERM, which must exit 0."""
import collections
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

from .common import cpu_seconds, load, proc_status, scratch, variant_option


def options(p):
    variant_option(p, metavar="PATH", default=[])
    p.add_argument("--duration", type=int, default=60)
    p.add_argument("--server", action="store_true", help="with [server] listen on 127.0.0.1")
    p.add_argument("--sections", action="store_true", help="also the resident KB of each ELF section (stderr)")


def elf_sections(exe):
    """(file offset, end, name) of each section of `exe` that occupies memory."""
    out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True, check=True).stdout
    secs = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            off, size = int(m.group(3), 16), int(m.group(4), 16)
            secs.append((off, off + size, m.group(1)))
    return secs


def resident_sections(pid, exe):
    """Resident KB of each ELF section of `exe` in process `pid` (bit 63 of /proc/PID/pagemap)."""
    secs = elf_sections(exe)
    page = os.sysconf("SC_PAGE_SIZE")
    resident, total = collections.Counter(), collections.Counter()
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{pid}/maps"):
            fields = line.split()
            if len(fields) < 6 or os.path.realpath(fields[5]) != exe:
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            offset, perms = int(fields[2], 16), fields[1]
            pages = (end - start) // page
            pagemap.seek(start // page * 8)
            entries = pagemap.read(pages * 8)
            for i in range(pages):
                at = offset + i * page
                key = next((n for s, e, n in secs if s <= at < e), "(between sections)") + " " + perms
                total[key] += 1
                if struct.unpack_from("<Q", entries, i * 8)[0] >> 63:
                    resident[key] += 1
    kb = page // 1024
    for key, n in resident.most_common():
        print(f"    {n * kb:9,d} KB resident of {total[key] * kb:9,d} KB  {key}")


def switches(pid):
    n = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            for line in open(f"/proc/{pid}/task/{t}/status"):
                if "ctxt_switches" in line:
                    n += int(line.split()[1])
        except FileNotFoundError:
            pass
    return n


def write_seed(a, hearth, seed):
    """A 100-user seed and its hearth.toml: every job on a slot two days ago; the job count."""
    subprocess.run([hearth, "seed", "--out", seed + "/data", "--users", "100"], check=True, stdout=subprocess.DEVNULL)
    day = time.gmtime(time.time() - 2 * 86400)
    jobs = json.loads(subprocess.run([hearth, "list", "--data", "data", "--format", "json"], cwd=seed, capture_output=True, text=True, check=True).stdout)
    with open(seed + "/hearth.toml", "w") as f:
        f.write('dataDir = "data"\n')
        for j in jobs:
            f.write(f'[jobs.{j["job"]}]\nschedule = "0 12 {day.tm_mday} {day.tm_mon} *"\n')
        if a.server:
            f.write('[server]\nlisten = "127.0.0.1:0"\n')
    return len(jobs)


def run(a):
    paths = [os.path.abspath(p) for p in (a.variant or [".build/release/hearth"])]
    procs = []
    with scratch("hearth-bench-idle-") as work:
        try:
            jobs = write_seed(a, paths[0], work + "/seed")
            for i, path in enumerate(paths):
                shutil.copytree(work + "/seed", f"{work}/{i}")
                err = open(f"{work}/{i}/daemon.log", "w")
                procs.append(subprocess.Popen([path, "daemon", "--config", "hearth.toml"], cwd=f"{work}/{i}", stdout=subprocess.DEVNULL, stderr=err))
            time.sleep(2)  # start-up
            measure(a, procs, paths, jobs)
            procs = []
        finally:
            for p in procs:
                p.kill()


def measure(a, procs, paths, jobs):
    before = [(cpu_seconds(p.pid), switches(p.pid)) for p in procs]
    time.sleep(a.duration)
    print(f"idle daemons: {jobs} jobs on a slot about a year away, over {a.duration} s; load average {load():.1f}")
    print("| binary | CPU (s) | context switches | VmRSS (MiB) | anonymous / files (MiB) | PSS (MiB) | threads | SIGTERM |")
    print("|---|---:|---:|---:|---|---:|---:|---|")
    rows = []
    for (c0, s0), p, path in zip(before, procs, paths):
        pss = 0
        for line in open(f"/proc/{p.pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
        rows.append([path, cpu_seconds(p.pid) - c0, switches(p.pid) - s0, proc_status(p.pid, "VmRSS") / 1024,
                     f"{proc_status(p.pid, 'RssAnon') / 1024:.1f} / {proc_status(p.pid, 'RssFile') / 1024:.1f}", pss / 1024,
                     len(os.listdir(f"/proc/{p.pid}/task"))])
        if a.sections:
            print(f"  resident sections of {path}:", file=sys.stderr)
            resident_sections(p.pid, os.path.realpath(path))
    for p, r in zip(procs, rows):
        p.send_signal(signal.SIGTERM)
        code = p.wait(timeout=30)
        print(f"| {r[0]} | {r[1]:.2f} | {r[2]} | {r[3]:.1f} | {r[4]} | {r[5]:.1f} | {r[6]} | exit {code} |")
