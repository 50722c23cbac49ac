#!/usr/bin/env python3
"""Vendors Kafka message schemas into protocol/schemas the way every file there was
made: read from the kafka-clients jar's common/message/, comments and "about"
strings dropped, re-indented by one space (DeleteGroups* come out byte for
byte as vendored). The codec is generated from the result (gen_codec.py).

    tools/import_schemas.py ListConfigResourcesRequest ListConfigResourcesResponse
    (jar: ~/.cache/skiff/kafka-4.4.0/kafka-clients-4.4.0.jar, see fetch_kafka_jars.sh)
"""
import argparse
import json
import re
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def strip_about(o):
    if isinstance(o, dict):
        return {k: strip_about(v) for k, v in o.items() if k != "about"}
    if isinstance(o, list):
        return [strip_about(v) for v in o]
    return o


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("names", nargs="+", help="schema names, e.g. ListConfigResourcesRequest")
    p.add_argument("--jar", type=Path, default=Path.home() / ".cache/skiff/kafka-4.4.0/kafka-clients-4.4.0.jar")
    p.add_argument("--out", type=Path, default=ROOT / "protocol" / "schemas")
    args = p.parse_args()
    with zipfile.ZipFile(args.jar) as z:
        for name in args.names:
            text = z.read(f"common/message/{name}.json").decode()
            text = "\n".join(re.sub(r"^\s*//.*$", "", line) for line in text.splitlines())
            (args.out / f"{name}.json").write_text(json.dumps(strip_about(json.loads(text)), indent=1) + "\n")


if __name__ == "__main__":
    main()
