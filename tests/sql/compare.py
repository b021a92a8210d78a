#!/usr/bin/env python3
"""Compare two `gpuaudit report --format json` documents on every figure a
report from partial sums renders (tests/sql.rs): window, layers, ratios, cost,
waterfall, groups, GPUs, held rule, the data-quality counts, and the
timeline and purchase answer when the partials carry them. Exact for
text, counts and nulls; numbers to --rel relative (default 1e-9). Prints each
difference; exit 1 on any."""
import json
import sys

SECTIONS = ["window", "held_rule", "layers", "ratios", "cost", "waterfall", "groups", "gpu_count", "gpus"]
QUALITY = ["duplicates", "unobserved_gpu_hours", "held_unknown_activity_gpu_hours",
           "held_unknown_gpu_hours", "rows_outside_window"]


IGNORED = set()


def walk(path, a, b, rel, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted((set(a) | set(b)) - IGNORED):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'pulled' if k in a else 'partials'}")
            else:
                walk(f"{path}.{k}", a[k], b[k], rel, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(f"{path}[{i}]", x, y, rel, out)
    elif isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
        if a != b:
            out.append(f"{path}: {a!r} vs {b!r}")
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if abs(a - b) > rel * max(abs(a), abs(b)) and abs(a - b) > 1e-12:
            out.append(f"{path}: {a!r} vs {b!r}")
    elif a != b:
        out.append(f"{path}: {a!r} vs {b!r}")


def main():
    argv = sys.argv[1:]
    args, rel = [], 1e-9
    while argv:
        a = argv.pop(0)
        if a == "--rel":
            rel = float(argv.pop(0))
        elif a == "--ignore":
            IGNORED.add(argv.pop(0))
        else:
            args.append(a)
    with open(args[0]) as f:
        pulled = json.load(f)
    with open(args[1]) as f:
        partial = json.load(f)
    out = []
    for s in SECTIONS:
        walk(s, pulled.get(s), partial.get(s), rel, out)
    # the timeline and the purchase answer: when the partials carry buckets (sql --bucket)
    for s in ["timeline", "purchase"]:
        if partial.get(s) is not None:
            walk(s, pulled.get(s), partial.get(s), rel, out)
    for q in QUALITY:
        walk(f"data_quality.{q}", pulled["data_quality"].get(q), partial["data_quality"].get(q), rel, out)
    for line in out[:60]:
        print(line)
    if out:
        print(f"{len(out)} differences")
        sys.exit(1)
    print("figures agree")


main()
