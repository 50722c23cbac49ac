"""confluent-kafka's ShareConsumer (confluent-kafka 2.16, librdkafka 2.16:
ShareFetch v1) under the share drivers' common contract (drivers/README.md,
"Share consumers"): share_consumer.py key=value... ; JSON lines on stdout,
one per event, flushed at once; bounded by timeout_ms.

Keys: bootstrap, group, topics (comma-separated), ack (implicit | accept |
release | reject | none | release_until:N | reject_even | release_even),
max_records (close after that many), hold_ms and late_ack (ack=none: hold the
first poll's records without polling, then optionally acknowledge them late),
stop_file (close once it exists), sleep_ms (after each record: processing
time), name, timeout_ms. `mixed`: offset % 3 == 0 reject, 1 release at
delivery 1 then accept, 2 accept."""
from __future__ import annotations

import json
import os
import sys
import time

from confluent_kafka import AcknowledgeType, ShareConsumer

TYPES = {"accept": AcknowledgeType.ACCEPT, "release": AcknowledgeType.RELEASE, "reject": AcknowledgeType.REJECT}


def emit(ev: str, **kw) -> None:
    sys.stdout.write(json.dumps({"ev": ev, **kw}) + "\n")
    sys.stdout.flush()


def decide(rule: str, off: int, dc: int) -> str:
    if rule in TYPES:
        return rule
    if rule.startswith("release_until:"):
        return "release" if dc < int(rule.split(":", 1)[1]) else "accept"
    if rule == "reject_even":
        return "reject" if off % 2 == 0 else "accept"
    if rule == "mixed":  # offset % 3: 0 reject, 1 release at delivery 1 then accept, 2 accept
        return "reject" if off % 3 == 0 else "release" if off % 3 == 1 and dc == 1 else "accept"
    if rule == "release_even":
        return "release" if off % 2 == 0 and dc == 1 else "accept"
    raise ValueError(f"unknown ack rule {rule}")


def text(b):
    return None if b is None else b.decode(errors="replace")


def main(argv: list[str]) -> int:
    a = dict(x.split("=", 1) for x in argv)
    deadline = time.monotonic() + int(a.get("timeout_ms", "60000")) / 1000
    ack = a.get("ack", "implicit")
    explicit = ack != "implicit"
    max_records = int(a.get("max_records", 1 << 30))
    stop_file = a.get("stop_file")
    conf = {"bootstrap.servers": a["bootstrap"], "group.id": a["group"],
            "client.id": a.get("name", "confluent-share"),
            "share.acknowledgement.mode": "explicit" if explicit else "implicit"}
    c = ShareConsumer(conf)

    def on_commit(offsets, err):
        for tp, offs in offsets.items():
            emit("ack_result", t=tp.topic, p=tp.partition, offsets=sorted(offs),
                 error=None if err is None else str(err))

    c.set_acknowledgement_commit_callback(on_commit)
    received, holding, error = 0, False, None
    try:
        c.subscribe(a["topics"].split(","))
        emit("ready")
        while time.monotonic() < deadline and received < max_records:
            if stop_file and os.path.exists(stop_file):
                break
            msgs = c.poll(min(0.5, max(0.01, deadline - time.monotonic())))
            got = []
            for m in msgs:
                if m.error():
                    emit("poll_error", error=str(m.error()))
                    continue
                got.append(m)
                received += 1
                dc = m.delivery_count()
                what = "none" if ack == "none" else decide(ack, m.offset(), dc) if explicit else "implicit"
                emit("rec", t=m.topic(), p=m.partition(), o=m.offset(), dc=dc, k=text(m.key()), v=text(m.value()),
                     ack=what)
                if explicit and ack != "none":
                    c.acknowledge(m, TYPES[what])
                if "sleep_ms" in a:  # processing time
                    time.sleep(int(a["sleep_ms"]) / 1000)
            if got and explicit and ack != "none":
                res = c.commit_sync(20)
                emit("commit", partitions={f"{tp.topic}-{tp.partition}": None if e is None else str(e)
                                           for tp, e in (res or {}).items()})
            if got and ack == "none":
                holding = True
                emit("holding", n=len(got))
                until = time.monotonic() + int(a.get("hold_ms", "0")) / 1000
                while time.monotonic() < min(until, deadline) and not (stop_file and os.path.exists(stop_file)):
                    time.sleep(0.05)
                if "late_ack" in a:
                    try:
                        for m in got:
                            c.acknowledge(m, TYPES[a["late_ack"]])
                        res = c.commit_sync(20)
                        emit("late_commit", partitions={f"{tp.topic}-{tp.partition}": None if e is None else str(e)
                                                        for tp, e in (res or {}).items()})
                    except Exception as e:  # noqa: BLE001 - reported, not raised
                        emit("late_commit", error=f"{type(e).__name__}: {e}")
                break
        emit("closing", received=received, holding=holding)
    except Exception as e:  # noqa: BLE001
        error = f"{type(e).__name__}: {e}"
        emit("error", error=error)
    finally:
        try:
            c.close()
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}"
    emit("closed", received=received, error=error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
