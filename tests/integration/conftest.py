"""Compatibility suite harness: starts the real skiff binary (SKIFF_BINARY,
default build/skiff) on a free port with a fresh data dir, or uses the broker
at SKIFF_COMPAT_EXTERNAL_BROKER=host:port, and runs the scenarios of the
test_*.py modules here with the clients named by --client (one ctest test per
client, the longest split in shards: harness/shards.py). A run in which no
test passed fails: a skip must never look green."""
from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from harness import clients as clients_mod  # noqa: E402
from harness import shards  # noqa: E402
from harness.broker import KafkaScriptBroker, SkiffBroker, external_from_env  # noqa: E402
from harness.wire import api_versions  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
# What the scenarios need from the broker: 3 partitions for the topics they
# auto-create by producing to them (test_compat.py checks the count), and
# room for a 1 MiB record.
BROKER_OVERRIDES = {"num.partitions": "3", "message.max.bytes": "3145728"}


def pytest_addoption(parser):
    parser.addoption("--client", action="append", default=[],
                     help=f"client(s) to run, comma-separated or repeated: {', '.join(clients_mod.CLIENTS)}")
    parser.addoption("--shard", default=None, metavar="K/N",
                     help="run only the test modules of shard K of N (harness/shards.py); one client only")


def selected_clients(config) -> list[str]:
    names = []
    for v in config.getoption("client") or [os.environ.get("SKIFF_COMPAT_CLIENT", "")]:
        names += [n for n in v.replace(";", ",").split(",") if n]
    return names or list(clients_mod.CLIENTS)


def pytest_collection_modifyitems(config, items):
    spec = config.getoption("shard")
    if not spec:
        return
    names = selected_clients(config)
    if len(names) != 1:
        raise pytest.UsageError("--shard needs exactly one --client (durations are per client)")
    module_of = {id(item): item.nodeid.split("::")[0] for item in items}
    mine = shards.modules_of_shard(spec, list(module_of.values()), shards.recorded_seconds(names[0]))
    kept = [item for item in items if module_of[id(item)] in mine]
    config.hook.pytest_deselected(items=[item for item in items if module_of[id(item)] not in mine])
    items[:] = kept


def pytest_generate_tests(metafunc):
    if "client" in metafunc.fixturenames:
        names = selected_clients(metafunc.config)
        metafunc.parametrize("client", names, ids=names, indirect=True, scope="module")


@pytest.fixture(scope="module")
def client(request):
    return clients_mod.make(request.param)


def skiff_binary() -> str:
    b = os.environ.get("SKIFF_BINARY") or str(REPO / "build" / "skiff")
    if not os.access(b, os.X_OK):
        pytest.fail(f"skiff binary not found at {b} (set SKIFF_BINARY)")
    return b


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    """One broker shared by the scenarios that don't restart it."""
    ext = external_from_env()
    if ext:
        yield ext
        return
    d = tmp_path_factory.mktemp("shared-broker")
    b = SkiffBroker(skiff_binary(), d / "data", d, BROKER_OVERRIDES)
    b.start()
    yield b
    b.stop()  # SIGTERM; raises unless it exits 0


@pytest.fixture
def own_broker(tmp_path):
    """A broker of the test's own, on a fresh data dir, to stop and restart."""
    if os.environ.get("SKIFF_COMPAT_OWN_BROKER") == "kafka":  # validate against Apache Kafka
        b = KafkaScriptBroker(REPO / "scripts" / "kafka-broker.sh", tmp_path / "kafka", BROKER_OVERRIDES)
        b.start()
        yield b
        b.stop()
        return
    if external_from_env():
        pytest.skip("restart scenarios need a broker the suite starts itself "
                    "(SKIFF_COMPAT_EXTERNAL_BROKER is set)")
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, BROKER_OVERRIDES)
    b.start()
    yield b
    b.stop()


@pytest.fixture(scope="module")
def apis(broker):
    return api_versions(broker.bootstrap)


@pytest.fixture
def topic(request, client):
    base = request.node.originalname.removeprefix("test_").replace("_", "-")
    return f"{base}-{client.name.replace('_', '-')}-{uuid.uuid4().hex[:8]}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # On failure, append the broker's last lines to the report.
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        for name in ("own_broker", "broker"):
            b = item.funcargs.get(name)
            if b is not None and getattr(b, "log_path", None):
                rep.sections.append((f"broker output ({name})", b.log_tail(60)))
                break


_passed = 0


def pytest_runtest_logreport(report):
    global _passed
    if report.when == "call" and report.passed and not hasattr(report, "wasxfail"):
        _passed += 1


def pytest_sessionfinish(session, exitstatus):
    if exitstatus in (0, 5) and _passed == 0:
        tr = session.config.pluginmanager.get_plugin("terminalreporter")
        if tr:
            tr.write_line("compat: no scenario passed (all skipped or none collected): failing the run", red=True)
        session.exitstatus = 1
