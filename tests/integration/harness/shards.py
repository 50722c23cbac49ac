"""Splits one client's run of the suite into shards of whole test modules
(`--shard K/N`), so that ctest can run the longest clients' runs side by side:
much of the suite waits (on timeouts, throttles, JVM starts), and one
client's run was CI's longest test.

A module stays whole (its broker fixture is module-scoped). Modules are dealt
longest first to the least loaded shard, with the seconds each took in a
recorded run (module_seconds.json next to conftest.py); a module not recorded
counts as the median. The split only changes which shard runs a module, never
whether it runs: every module runs in exactly one shard.

Recording (after a run that wrote JUnit XML, e.g. ctest in build/):
  python3 tests/integration/harness/shards.py build/tests/integration/compat_*.xml
"""
from __future__ import annotations

import json
import re
import statistics
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SECONDS_FILE = Path(__file__).resolve().parents[1] / "module_seconds.json"


def parse_spec(spec: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)/(\d+)", spec)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise ValueError(f"--shard wants K/N with 1 <= K <= N, got {spec!r}")
    return int(m.group(1)), int(m.group(2))


def recorded_seconds(client: str) -> dict[str, float]:
    if not SECONDS_FILE.exists():
        return {}
    return json.loads(SECONDS_FILE.read_text()).get(client, {})


def modules_of_shard(spec: str, modules: list[str], seconds: dict[str, float]) -> set[str]:
    """The modules (paths relative to tests/integration) shard K of N runs."""
    k, n = parse_spec(spec)
    default = statistics.median(seconds.values()) if seconds else 1.0
    load = [0.0] * n
    mine: set[str] = set()
    for m in sorted(set(modules), key=lambda m: (-seconds.get(m, default), m)):
        i = min(range(n), key=lambda j: (load[j], j))
        load[i] += seconds.get(m, default)
        if i == k - 1:
            mine.add(m)
    return mine


def record(xml_paths: list[str]) -> None:
    """Writes module_seconds.json from JUnit XML files named compat_<client>[_<K>of<N>].xml."""
    sys.path.insert(0, str(SECONDS_FILE.parent))
    from harness.clients import CLIENTS
    data: dict[str, dict[str, float]] = {}
    for p in xml_paths:
        m = re.fullmatch(r"compat_(.+?)(_\d+of\d+)?\.xml", Path(p).name)
        if not m or m.group(1) not in CLIENTS:
            continue  # compat_txn_*, compat_java_txn, compat_connect: not sharded
        per = data.setdefault(m.group(1), {})
        for case in ET.parse(p).iter("testcase"):
            module = case.get("classname", "").replace(".", "/") + ".py"
            per[module] = round(per.get(module, 0.0) + float(case.get("time", 0)), 1)
    SECONDS_FILE.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {SECONDS_FILE} ({', '.join(sorted(data))})")


if __name__ == "__main__":
    record(sys.argv[1:])
