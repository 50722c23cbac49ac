"""Runs one of the suite's single-file Java check programs (java_groups/*Check.java,
launched from source on the Java client's classpath from install-test-clients.sh)
and returns what it reports: the JSON object on its last stdout line, with its exit
code and the tail of its stderr for the assertion messages. Bounded by `timeout`."""
from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from harness.clients import java_classpath


@dataclass
class CheckResult:
    result: dict
    returncode: int
    stderr_tail: str


def run_java_check(check: Path, *args: str, timeout: float, jvm_args: tuple[str, ...] = (),
                   jars: tuple[str, ...] = ()) -> CheckResult:
    """`jvm_args`: options for the JVM itself (system properties, -D...);
    `jars`: more of the client's run-time jars (named as in its directory)."""
    cp = java_classpath()
    for name in jars:
        if f"/{name}" not in cp:
            kafka_clients = next(Path(p) for p in cp.split(":") if "kafka-clients" in p)
            cp += "".join(f":{j}" for j in sorted(kafka_clients.parent.glob(f"{name}*.jar")))
    cmd = ["java", "-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", *jvm_args, "-cp", cp, str(check),
           *args]
    p = subprocess.run(cmd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    out = p.stdout.decode(errors="replace").strip().splitlines()
    err = p.stderr.decode(errors="replace")[-4000:]
    assert out, f"{check.name}: no result (exit {p.returncode}): {err}"
    return CheckResult(json.loads(out[-1]), p.returncode, err)
