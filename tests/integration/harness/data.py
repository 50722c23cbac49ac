"""Records the scenarios produce, deterministic data sets and byte-exact
comparison of what came back."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field


@dataclass
class Rec:
    p: int | None                     # partition (None: the client's partitioner picks)
    k: bytes | None                   # key (None: null)
    v: bytes | None                   # value (None: null)
    h: list[tuple[str, bytes | None]] = field(default_factory=list)  # headers, in order
    ts: int | None = None             # CreateTime in ms (None: the client sets it)
    o: int | None = None              # offset (consumed records)


@dataclass
class Caps:
    """What a client's API can express (not what the broker supports)."""
    binary: bool = True               # arbitrary bytes in keys/values (kcat: text, no delimiters)
    set_timestamp: bool = True        # producer can set CreateTime per record
    per_record_headers: bool = True   # headers may differ from record to record
    null_header_value: bool = True
    null_key_and_value: bool = True   # a record whose key and value are both null
    keyless_empty: bool = True        # a record with a null key and an empty or null value
    grouped_headers: bool = False     # headers come back grouped by name (kafkajs keeps an object)
    produce_offsets: bool = True      # produce reports each record's offset
    consume_needs_group: bool = False  # no consumer without a group (kafkajs)


TEXT = bytes(range(0x20, 0x7F))


_TO_TEXT = bytes(TEXT[b % len(TEXT)] for b in range(256))


def _bytes(rng: random.Random, n: int, binary: bool) -> bytes:
    b = rng.randbytes(n)
    return b if binary else b.translate(_TO_TEXT)


def blob(n: int, caps: Caps, seed: int) -> bytes:
    """n random bytes (printable text when the client needs text)."""
    return _bytes(random.Random(seed), n, caps.binary)


def dataset(n: int, partitions: int, caps: Caps, seed: int = 1, base_ts: int | None = None,
            max_value: int = 300) -> list[Rec]:
    """n records round-robin over `partitions`, with keys, headers, timestamps."""
    rng = random.Random(seed)
    base_ts = base_ts if base_ts is not None else int(time.time() * 1000) - 600_000
    out = []
    for i in range(n):
        p = i % partitions
        key = b"key-%06d-" % i + _bytes(rng, rng.randint(0, 16), caps.binary)
        value = _bytes(rng, rng.randint(0, max_value), caps.binary)
        if caps.per_record_headers:
            h = [("idx", b"%d" % i), ("blob", _bytes(rng, rng.randint(0, 24), caps.binary))]
            if i % 7 == 0:
                h.append(("idx", b"dup"))   # repeated names are legal and kept in order
            if i % 11 == 0:
                h.append(("empty", b""))
        else:
            h = [("part", b"%d" % p), ("empty", b"")]
        ts = base_ts + i if caps.set_timestamp else None
        out.append(Rec(p=p, k=key, v=value, h=h, ts=ts))
    return out


def norm_headers(h, caps: Caps):
    h = [(name, None if v is None else bytes(v)) for name, v in h]
    if not caps.grouped_headers:
        return h
    order, groups = [], {}
    for name, v in h:
        if name not in groups:
            order.append(name)
            groups[name] = []
        groups[name].append(v)
    return [(name, v) for name in order for v in groups[name]]


def by_partition(records: list[Rec]) -> dict[int, list[Rec]]:
    out: dict[int, list[Rec]] = {}
    for r in records:
        out.setdefault(r.p, []).append(r)
    return out


def check_same(sent: list[Rec], got: list[Rec], caps: Caps, first_offset: int = 0,
               ts_window: tuple[int, int] | None = None) -> None:
    """`got` (one partition, in consumption order) must be `sent` byte for
    byte, at consecutive offsets from first_offset."""
    problems = []
    if len(got) != len(sent):
        problems.append(f"count: sent {len(sent)}, got {len(got)}")
    for i, (s, g) in enumerate(zip(sent, got)):
        where = f"record #{i} (offset {g.o})"
        if g.o != first_offset + i:
            problems.append(f"{where}: offset {g.o}, expected {first_offset + i} (order or gap)")
        if g.k != s.k:
            problems.append(f"{where}: key {g.k!r:.60} != sent {s.k!r:.60}")
        if g.v != s.v:
            problems.append(f"{where}: value differs (len {None if g.v is None else len(g.v)} vs "
                            f"{None if s.v is None else len(s.v)}): {g.v!r:.60} != {s.v!r:.60}")
        if norm_headers(g.h, caps) != norm_headers(s.h, caps):
            problems.append(f"{where}: headers {g.h!r:.120} != sent {s.h!r:.120}")
        if s.ts is not None:
            if g.ts != s.ts:
                problems.append(f"{where}: timestamp {g.ts} != sent {s.ts}")
        elif ts_window is not None and not (ts_window[0] <= g.ts <= ts_window[1]):
            problems.append(f"{where}: timestamp {g.ts} outside the produce window {ts_window}")
        if len(problems) > 10:
            break
    assert not problems, "round trip differs:\n  " + "\n  ".join(problems[:10])
