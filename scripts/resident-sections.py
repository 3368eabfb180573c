#!/usr/bin/env python3
"""Which parts of an executable a running process keeps resident (docs/performance.md, "After:
lld, packed relocations, no exported symbols"; a measurement tool, not a test).

    scripts/resident-sections.py PID /path/to/hearth

For every page of the process's mappings of that file, bit 63 of /proc/PID/pagemap says whether
the page is present; the page's file offset names its ELF section (`readelf -SW`). Prints the
resident KB of each section (with the mapping's permissions) against its size. Needs to read
/proc/PID/pagemap: the process's own user or root.
"""
import collections
import os
import re
import signal
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def sections(exe):
    """(file offset start, end, name) of every section that is loaded."""
    out = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            off, size = int(m.group(3), 16), int(m.group(4), 16)
            found.append((off, off + size, m.group(1)))
    return found


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pid, exe = sys.argv[1], os.path.realpath(sys.argv[2])
    secs = sections(exe)
    resident, total = collections.Counter(), collections.Counter()
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for line in open(f"/proc/{pid}/maps"):
            fields = line.split()
            if len(fields) < 6 or os.path.realpath(fields[5]) != exe:
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            offset, perms = int(fields[2], 16), fields[1]
            pages = (end - start) // PAGE
            pagemap.seek(start // PAGE * 8)
            entries = pagemap.read(pages * 8)
            for i in range(pages):
                at = offset + i * PAGE
                name = next((n for s, e, n in secs if s <= at < e), "(between sections)")
                key = f"{name} {perms}"
                total[key] += 1
                if struct.unpack_from("<Q", entries, i * 8)[0] >> 63:
                    resident[key] += 1
    kb = PAGE // 1024
    for key, n in resident.most_common():
        print(f"{n * kb:9,d} KB resident of {total[key] * kb:9,d} KB  {key}")
    print(f"{sum(resident.values()) * kb:9,d} KB resident in all")


if __name__ == "__main__":
    main()
