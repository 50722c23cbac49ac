"""Version negotiation seen from librdkafka (kcat): after the ApiVersions
exchange it must enable the protocol features old and new librdkafka gate on
single probe versions (clients.md §3b), and pick the versions we advertise.
Only kcat runs these: they read librdkafka's own debug log, which the other
drivers do not expose."""
import re
import subprocess

import pytest

from harness.wire import API_KEYS


def librdkafka_debug(bootstrap: str) -> str:
    out = subprocess.run(["kcat", "-b", bootstrap, "-L", "-m", "10", "-X", "debug=feature,protocol,broker"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stderr


def test_librdkafka_enables_its_features(client, broker, apis):
    if client.name != "kcat":
        pytest.skip("reads librdkafka's debug log through kcat; covered by the kcat run")
    log = librdkafka_debug(broker.bootstrap)
    enabled = set(re.findall(r"Enabling feature (\w+)", log))
    disabled = set(re.findall(r"Disabling feature (\w+)", log))
    # Record batches (v2 message format), the codecs and timestamp lookups.
    # (ThrottleTime probes Fetch v1-2, below Kafka 4's and our floor of 4:
    # harmless, librdkafka then just ignores throttle times.)
    expected = {"MsgVer2", "ApiVersion", "ZSTD", "OffsetTime"}
    if API_KEYS["FindCoordinator"] in apis:  # librdkafka < 2.11.1 gates LZ4 on FindCoordinator v0
        expected |= {"LZ4"}
    if API_KEYS["JoinGroup"] in apis:
        expected |= {"BrokerBalancedConsumer", "BrokerGroupCoordinator"}
    if 22 in apis:  # InitProducerId
        expected |= {"IdempotentProducer"}
    missing = expected - enabled
    assert not missing, f"librdkafka disabled {sorted(missing)} (enabled {sorted(enabled)}, disabled {sorted(disabled)})"


def test_librdkafka_picks_our_versions(client, broker, apis):
    if client.name != "kcat":
        pytest.skip("reads librdkafka's debug log through kcat; covered by the kcat run")
    log = librdkafka_debug(broker.bootstrap)
    sent = {name: int(v) for name, v in re.findall(r"Sent (\w+)Request \(v(\d+)", log)}
    assert sent.get("ApiVersion") == 3
    # Debian's librdkafka 2.0 sends Metadata up to v4; the version it picks
    # must lie inside what we advertise.
    lo, hi = apis[API_KEYS["Metadata"]]
    assert lo <= sent["Metadata"] <= hi
    assert sent["Metadata"] == min(4, hi)
