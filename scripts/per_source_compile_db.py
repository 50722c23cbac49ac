#!/usr/bin/env python3
"""Writes OUT_DIR/compile_commands.json: BUILD_DIR's compilation database
with one entry per source file, for clang-tidy (scripts/check-style.sh).

A unity build (CMAKE_UNITY_BUILD) lists only its batch files
(CMakeFiles/<target>.dir/Unity/unity_N_cxx.cxx), each #including a few
sources; every source of a batch is compiled with the batch's command, so
each gets that command with the batch file replaced by the source. Entries
that are not batches are copied as they are.

Usage: scripts/per_source_compile_db.py BUILD_DIR OUT_DIR
"""
import json
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def per_source(entry):
    batch = entry["file"]
    if "/Unity/unity_" not in batch:
        return [entry]
    out = []
    for src in INCLUDE.findall(Path(batch).read_text()):
        e = dict(entry, file=src)
        if "command" in e:
            e["command"] = e["command"].replace(batch, src)
        if "arguments" in e:
            e["arguments"] = [src if a == batch else a for a in e["arguments"]]
        out.append(e)
    return out


def main():
    build, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
    entries = json.loads((build / "compile_commands.json").read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    expanded = [e for entry in entries for e in per_source(entry)]
    (out_dir / "compile_commands.json").write_text(json.dumps(expanded, indent=1))


if __name__ == "__main__":
    main()
