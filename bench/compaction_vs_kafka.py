"""The log cleaner's outcome, Skiff beside Apache Kafka 4.4: runs
tests/integration/test_compaction.py::test_last_value_per_key against skiff
and against Kafka (SKIFF_COMPACTION_BROKER=kafka) and diffs the two surviving
key -> value sets (each run also checks its own against the test's exact
model). Not a measurement: a side-by-side check, exit 1 when the sets differ.

  python3 -m bench.compaction_vs_kafka

Needs scripts/install-test-clients.sh confluent_kafka and Kafka's jars
(scripts/fetch_kafka_jars.sh); skiff from --build-dir (SKIFF_BINARY for the
suite). Each run is bounded to 900 s.
"""
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import brokers
from bench.brokers import ROOT, log
from bench.results import parser


def surviving(args, broker, out):
    dump = out / f"{broker}.json"
    env = {**os.environ, "SKIFF_COMPACTION_BROKER": broker, "SKIFF_COMPACTION_DUMP": str(dump),
           "SKIFF_BINARY": str(args.skiff)}
    subprocess.run([str(ROOT / "tests" / "integration" / "run.sh"), "confluent_kafka", "test_compaction.py", "-k",
                    "test_last_value_per_key", "-x", "-q"], env=env, check=True, timeout=900)
    return json.loads(dump.read_text())


def main():
    p = parser(__doc__)
    brokers.add_build_args(p)
    args = p.parse_args()
    brokers.stop_on_sigterm()
    brokers.need(args, "skiff")
    brokers.kafka_jars(args.kafka_version)
    out = Path(tempfile.mkdtemp(prefix="compaction-vs-kafka-"))
    try:
        skiff, kafka = surviving(args, "skiff", out), surviving(args, "kafka", out)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if skiff == kafka:
        print(f"compaction-vs-kafka: same {len(skiff)} surviving key->value pairs")
        return 0
    lines = [json.dumps(x, indent=1, sort_keys=True).splitlines() for x in (skiff, kafka)]
    diff = list(difflib.unified_diff(*lines, "skiff", "kafka", lineterm=""))
    log("compaction-vs-kafka: DIFFERENT surviving sets\n" + "\n".join(diff[:20]))
    return 1


if __name__ == "__main__":
    sys.exit(main())
