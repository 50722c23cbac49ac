#!/usr/bin/env python3
"""How long the web console's topics view takes to load with many topics.

  ~/.cache/skiff/compat/venv/bin/python -m bench.console [--smoke] [--topics N] [--loads N] [--budget S]

Run it with the test venv's Python, which has confluent-kafka and playwright
(scripts/install-test-clients.sh confluent_kafka). Starts skiff on loopback
(free ports, a fresh data dir in a temporary directory, removed afterwards),
creates N topics (default 1,000) of one
partition with the Admin API, then loads the console's #/topics in headless
Debian chromium (/usr/bin/chromium) `--loads` times (default 10), each in a
fresh browser context (no cache): the time from navigation start to the
topics table rendered with all N rows (the page's performance mark
"skiff:topics-rendered"). Prints each load, p50 and max, and the time of a
bare GET /api/topics for comparison. Everything is bounded: the whole run
by --budget seconds (default 300), each wait by its own timeout.
"""
from __future__ import annotations

import http.client
import shutil
import statistics
import sys
import time
from pathlib import Path

from bench import brokers
from bench.brokers import log
from bench.results import Report, add_out_arg, parser, table

CHROMIUM = "/usr/bin/chromium"


def create_topics(bootstrap: str, n: int, deadline: float) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = [f"bench-{i:05d}" for i in range(n)]
    for i in range(0, n, 100):  # batches: one CreateTopics request each
        futures = admin.create_topics([NewTopic(t, 1, 1) for t in names[i:i + 100]],
                                      request_timeout=30, operation_timeout=30)
        for t, f in futures.items():
            f.result(max(1.0, deadline - time.monotonic()))


def api_topics_ms(port: int) -> tuple[float, int]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        t0 = time.perf_counter()
        conn.request("GET", "/api/topics")
        r = conn.getresponse()
        body = r.read()
        ms = (time.perf_counter() - t0) * 1000
        if r.status != 200:
            sys.exit(f"bench.console: GET /api/topics: {r.status} {body[:300]!r}")
        return ms, len(body)
    finally:
        conn.close()


RENDERED = """n => {
  const rows = document.querySelectorAll('[data-testid=topic-row]').length;
  return rows >= n;
}"""
MARK = """n => {
  const m = performance.getEntriesByName('skiff:topics-rendered').find(e => e.detail >= n);
  return m ? m.startTime : null;
}"""


def measure_loads(port: int, n: int, loads: int, deadline: float) -> list[float]:
    from playwright.sync_api import sync_playwright
    url = f"http://127.0.0.1:{port}/#/topics"
    out = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, timeout=60_000)
        try:
            for i in range(loads):
                left_ms = max(1000, (deadline - time.monotonic()) * 1000)
                ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = ctx.new_page()
                page.goto(url, wait_until="commit", timeout=min(30_000, left_ms))
                page.wait_for_function(RENDERED, arg=n, timeout=min(60_000, left_ms), polling=50)
                ms = page.evaluate(MARK, n)
                if ms is None:
                    sys.exit("bench.console: no performance mark skiff:topics-rendered (an older app.js?)")
                out.append(ms)
                log(f"load {i + 1:2}: {ms:8.1f} ms")
                ctx.close()
        finally:
            browser.close()
    return out


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--loads", type=int, default=10)
    ap.add_argument("--budget", type=float, default=300.0, help="seconds for the whole run")
    ap.add_argument("--smoke", action="store_true", help="100 topics, 2 loads: checks the benchmark works")
    brokers.add_build_args(ap)
    add_out_arg(ap)
    a = ap.parse_args()
    if a.smoke:
        a.topics, a.loads = 100, 2
    if not Path(CHROMIUM).exists():
        sys.exit(f"bench.console: no {CHROMIUM} (scripts/install-test-clients.sh confluent_kafka)")
    brokers.stop_on_sigterm()
    brokers.need(a, "skiff")
    deadline = time.monotonic() + a.budget
    report = Report("console", a)
    work = brokers.scratch("skiff-bench-console-")
    try:
        with brokers.running(brokers.Skiff(work, a.skiff, props={"num.partitions": "1"})) as b:
            brokers.wait_listening(b.http_port, b.proc)
            t0 = time.monotonic()
            create_topics(b.bootstrap, a.topics, deadline)
            created_s = time.monotonic() - t0
            log(f"created {a.topics} topics in {created_s:.1f} s")
            ms, size = api_topics_ms(b.http_port)
            log(f"GET /api/topics: {ms:.1f} ms, {size} bytes")
            loads = measure_loads(b.http_port, a.topics, a.loads, deadline)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.run("skiff", {"topics": a.topics, "create_s": round(created_s, 2), "api_topics_ms": round(ms, 1),
                         "api_topics_bytes": size, "loads_ms": loads})
    report.add(table(["topics view, navigation start -> table rendered", "topics", "loads", "p50 ms", "max ms",
                      "GET /api/topics ms"],
                     [["skiff", str(a.topics), str(len(loads)), f"{statistics.median(loads):.1f}",
                       f"{max(loads):.1f}", f"{ms:.1f}"]]))
    report.finish()


if __name__ == "__main__":
    main()
