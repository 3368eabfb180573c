"""`python3 scripts/benchmarks` (or `-m benchmarks` from scripts/): the same as scripts/bench.py."""
import os
import sys

if __package__ in (None, ""):  # run as a directory: make the package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.cli import main
else:
    from .cli import main

main()
