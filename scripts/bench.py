#!/usr/bin/env python3
"""Hearth's benchmarks, one entry point: the package scripts/benchmarks/ (`scripts/bench.py --help`)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchmarks.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
