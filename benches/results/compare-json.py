#!/usr/bin/env python3
"""Compare two `gpuaudit report --format json` outputs number by number.

Usage: compare-json.py A.json B.json [--tol 1e-12]
Prints the worst relative difference and every path whose non-number value
differs or whose relative difference exceeds the tolerance; exit 1 if any.
Keys listed in SKIP (run metadata, not figures) are not compared.
"""
import json
import sys

SKIP = {"generated_at", "elapsed_seconds"}


def walk(a, b, path, out):
    if isinstance(a, bool) or isinstance(b, bool):
        if a != b:
            out["diffs"].append((path, a, b))
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        out["numbers"] += 1
        scale = max(abs(a), abs(b))
        rel = 0.0 if a == b else abs(a - b) / scale
        if rel > out["worst"][0]:
            out["worst"] = (rel, path, a, b)
        if rel > out["tol"]:
            out["diffs"].append((path, a, b))
    elif isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in SKIP:
                continue
            if k not in a or k not in b:
                out["diffs"].append((f"{path}.{k}", a.get(k, "<absent>"), b.get(k, "<absent>")))
            else:
                walk(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out["diffs"].append((f"{path}[len]", len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
    elif a != b:
        out["diffs"].append((path, a, b))


def main():
    args = sys.argv[1:]
    tol = 1e-12
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i : i + 2]
    a, b = (json.load(open(p)) for p in args[:2])
    out = {"numbers": 0, "worst": (0.0, None, None, None), "diffs": [], "tol": tol}
    walk(a, b, "$", out)
    rel, path, x, y = out["worst"]
    print(f"numbers compared: {out['numbers']}; worst relative difference {rel:.3g} at {path} ({x} vs {y})")
    for path, x, y in out["diffs"][:40]:
        print("DIFF", path, repr(x)[:100], "vs", repr(y)[:100])
    print(f"differences beyond {tol:g} or in non-numbers: {len(out['diffs'])}")
    sys.exit(1 if out["diffs"] else 0)


main()
