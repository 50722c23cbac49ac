"""A Kafka Streams 4.4 word count with processing.guarantee=exactly_once_v2
(drivers/java/streams/WordCountEos.java) SIGKILLed mid-run and restarted on
the same state directory: the output read at read_committed holds, for each
word, exactly the counts 1, 2, ..., n in order (record caches are off, so
every input word gives one update; a duplicate or lost update would show),
and the last count of each word is exact. Runs in the java run of the suite
(ctest compat_java_txn)."""
from __future__ import annotations

import collections
import random

import pytest

from harness.data import Rec
from harness.java_txn import driver, streams_app
from test_admin import name, only_for

pytestmark = pytest.mark.timeout(230)
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
         "india", "juliet", "kilo", "lima", "mike", "november"]


def lines(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(n)]


def produce(client, broker, topic, text: list[str]) -> None:
    res = client.produce(broker.bootstrap, topic, [Rec(p=i % 3, k=None, v=t.encode()) for i, t in enumerate(text)],
                         timeout=60)
    assert all("error" not in r for r in res), [r for r in res if "error" in r][:3]


def committed_counts(broker, topic, to_end: bool) -> dict[str, list[int]]:
    """word -> the counts read at read_committed, in offset order."""
    res = driver().call({"op": "read", "bootstrap": broker.bootstrap, "topic": topic, "partitions": 3,
                         "isolation": "read_committed", "read_ms": 15000 if to_end else 3000,
                         "to_end": to_end}, 45)["read"]
    seen: dict[str, list[int]] = collections.defaultdict(list)
    for r in sorted(res["records"], key=lambda r: (r["p"], r["o"])):
        seen[r["k"]].append(int(r["v"]))
    return dict(seen)


def test_streams_word_count_exactly_once_after_sigkill(client, broker, tmp_path):
    only_for(client, "java")
    src, dst, app = name("wc-in"), name("wc-out"), name("wc-app")
    first, second = lines(2000, 15), lines(1000, 16)
    want = collections.Counter(w for t in first + second for w in t.split())
    produce(client, broker, src, first)
    state = tmp_path / "state"

    # Run 1: 1 ms of work per count update, so the kill lands between commits
    # (every 200 ms), after about 3000 of the first part's ~7000 updates.
    with streams_app(broker.bootstrap, app, src, dst, state, tmp_path / "run1.log", sleep_ms=1) as run1:
        run1.wait_for(lambda t: "UPDATES 3000\n" in t, 120, "run 1 making 3000 updates")
    # (SIGKILLed on leaving the block.)
    partial = committed_counts(broker, dst, to_end=False)
    done = sum(len(v) for v in partial.values())
    assert 0 < done < sum(want.values()), f"the kill did not land mid-run: {done} updates committed"

    produce(client, broker, src, second)
    seen: dict[str, list[int]] = {}
    with streams_app(broker.bootstrap, app, src, dst, state, tmp_path / "run2.log") as run2:
        run2.wait_for(lambda t: "STATE RUNNING" in t, 120, "run 2 RUNNING")
        for _ in range(12):
            seen = committed_counts(broker, dst, to_end=True)
            if {w: c[-1] for w, c in seen.items()} == dict(want):
                break
            run2.wait_for(lambda t: True, 1, "run 2 alive")
    assert {w: c[-1] for w, c in seen.items()} == dict(want), (seen, want)
    for w, n in want.items():
        assert seen[w] == list(range(1, n + 1)), f"{w}: {seen[w]}"
