#!/usr/bin/env python3
"""Keeps the JSON lines (one row object each, as `basalt iceberg scan
--format json` prints them) for which a Python expression over the row `r`
is true: the filter applied after an unpruned, unfiltered scan, as an oracle
independent of basalt's expression evaluation.

    post_filter.py 'r["id"] is not None and r["id"] > 3' < rows.json

Helpers: nn(v) is v is not None; dec(v) the float of a decimal string."""
import json
import sys


def nn(v):
    return v is not None


def dec(v):
    return None if v is None else float(v)


def main():
    expr = compile(sys.argv[1], "<filter>", "eval")
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        r = json.loads(line)
        if eval(expr, {"nn": nn, "dec": dec}, {"r": r}):
            print(line)


main()
