#!/usr/bin/env python3
"""Compare the figures of two `gpuaudit report --format json` outputs (two builds
on one input, benches/ab.sh): the twelve figures benches/duckdb_report.py checks
against DuckDB, relative 1e-9 unless told.

  compare_figures.py A.json B.json [REL]      exit 1 on any figure beyond REL
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from duckdb_report import FIGURES  # noqa: E402


def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    rel = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-9
    worst, bad = 0.0, []
    for name, (section, key) in FIGURES.items():
        x, y = a.get(section, {}).get(key), b.get(section, {}).get(key)
        if x is None or y is None:
            if x != y:
                bad.append(f"{name}: {x} vs {y}")
            continue
        d = 0.0 if x == y else abs(x - y) / max(abs(x), abs(y))
        worst = max(worst, d)
        if d > rel:
            bad.append(f"{name}: {x} vs {y} (relative {d:.2e})")
    if bad:
        print("\n".join(bad))
        return 1
    print(f"all {len(FIGURES)} figures agree within relative {rel:g} (worst {worst:.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
