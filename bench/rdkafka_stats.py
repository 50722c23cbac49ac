"""Summarises librdkafka statistics written by skiff_rdkafka_bench
--stats-file: per 200 ms window and broker, where a produced record's time
went. rtt is a request's round trip as the client saw it (sent to answered:
the broker and the network); int_latency is the time a record waited in the
client's queue before it went into a request (what a full in-flight window
costs); outbuf is the time a request waited to be written to the socket.

Usage: python3 -m bench.rdkafka_stats FILE [--all]   (every window, not only slow ones)
"""
import json
import sys

SLOW_MS = 5.0


def windows(path):
    for line in open(path):
        stats = json.loads(line)
        for b in stats.get("brokers", {}).values():
            if b.get("nodeid", -1) < 0 or b["rtt"]["cnt"] == 0:
                continue  # the bootstrap connection, or no request in this window
            yield {"rtt_p99": b["rtt"]["p99"] / 1000, "rtt_max": b["rtt"]["max"] / 1000,
                   "queue_p99": b["int_latency"]["p99"] / 1000, "queue_max": b["int_latency"]["max"] / 1000,
                   "outbuf_max": b["outbuf_latency"]["max"] / 1000, "in_flight": b["waitresp_cnt"]}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = list(windows(sys.argv[1]))
    if not rows:
        sys.exit("no window with requests")
    show_all = "--all" in sys.argv[2:]
    print("window  rtt p99/max ms  client queue p99/max ms  outbuf max ms  in flight")
    for i, r in enumerate(rows):
        if show_all or r["rtt_max"] > SLOW_MS or r["queue_max"] > SLOW_MS:
            print(f"{i:6d}  {r['rtt_p99']:6.1f} {r['rtt_max']:6.1f}  {r['queue_p99']:10.1f} {r['queue_max']:6.1f}"
                  f"  {r['outbuf_max']:12.1f}  {r['in_flight']:9d}")
    print(f"{len(rows)} windows: rtt max {max(r['rtt_max'] for r in rows):.1f} ms, "
          f"client queue max {max(r['queue_max'] for r in rows):.1f} ms")


if __name__ == "__main__":
    main()
