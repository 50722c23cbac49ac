"""remote/storage's RemoteStorageManager (issue 54) against two real
S3-compatible servers, versitygw and SeaweedFS (harness/s3.py), through
tools/rsm_cli, on real segments written by storage::Log (rsm_cli
write-segment: plain and transactional batches, aborted transactions, so a
.txnindex and a producer snapshot): copy, ranges fetched back byte for byte,
every index, a multipart copy, copies from several threads at once, delete
and delete again, a cut multipart upload found and aborted, a corrupt or
missing manifest and a corrupt index refused, wrong bucket and credentials
as clear errors, the server stopped (retriable) and restarted.

Run: scripts/install-test-clients.sh s3 && tests/integration/run.sh s3 test_remote_storage.py
(env RSM_CLI: the rsm_cli binary, default build/tools/rsm_cli/rsm_cli)."""
from __future__ import annotations

import base64
import hashlib
import os
import uuid
from pathlib import Path

import pytest

from harness import s3 as s3h
from free_port import free_port

REPO = Path(__file__).resolve().parents[2]
BUCKET = "skiff-rsm"
MIB = 1 << 20
EPOCHS = "0\n2\n0 0\n3 1500\n"


def cli_path() -> str:
    return os.environ.get("RSM_CLI") or str(REPO / "build" / "tools" / "rsm_cli" / "rsm_cli")


def kafka_uuid() -> str:
    """A random Kafka Uuid string (URL-safe base64, never starting with '-')."""
    while True:
        s = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not s.startswith("-"):
            return s


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run(args: list, ok=True, timeout=180) -> dict:
    return s3h.run_json_cli([cli_path()] + list(args), ok=ok, timeout=timeout)


class Rsm:
    """One key prefix (one test) on one server; `segment` names the segment."""

    def __init__(self, server: s3h.S3Server, prefix: str):
        self.server = server
        self.prefix = prefix

    def base(self, bucket=BUCKET, access=s3h.ACCESS_KEY, secret=s3h.SECRET_KEY, attempts=8, endpoint=None,
             part_size=None, threshold=None) -> list:
        b = ["--endpoint", endpoint or self.server.endpoint, "--bucket", bucket, "--path-style", "--region",
             s3h.REGION, "--access-key", access, "--secret-key", secret, "--prefix", self.prefix,
             "--max-attempts", attempts, "--connect-timeout-ms", 2000, "--io-timeout-ms", 20000]
        if part_size:
            b += ["--part-size", part_size]
        if threshold is not None:
            b += ["--threshold", threshold]
        return b

    def run(self, command, *args, ok=True, seg=None, **opts) -> dict:
        seg_args = [] if seg is None else ["--segment-id", seg["id"], "--topic", "orders", "--topic-id",
                                           seg["topic_id"], "--partition", 3, "--start", seg["start"],
                                           "--end", seg["end"]]
        return run([command] + self.base(**opts) + seg_args + list(args), ok=ok)

    def copy(self, seg, files, with_txn=True, **opts) -> dict:
        extra = ["--log", files["log"], "--offset-index", files["offset_index"], "--time-index",
                 files["time_index"], "--epochs", EPOCHS]
        if with_txn:
            extra += ["--txn-index", files["txn_index"], "--snapshot", files["snapshot"]]
        return self.run("copy", *extra, seg=seg, **opts)

    def fetch(self, seg, tmp: Path, start=0, end=None, **opts) -> bytes:
        out = tmp / f"fetch-{start}-{end}"
        args = ["--start-position", start, "--out", out] + ([] if end is None else ["--end-position", end])
        got = self.run("fetch", *args, seg=seg, **opts)
        data = out.read_bytes()
        assert got["size"] == len(data) and got["sha256"] == sha(data)
        return data

    def index(self, seg, kind: str, tmp: Path, **opts):
        out = tmp / f"index-{kind}"
        got = self.run("fetch-index", "--type", kind, "--out", out, seg=seg, **opts)
        return out.read_bytes() if got["present"] else None


@pytest.fixture(scope="module", params=s3h.SERVERS)
def server(request, tmp_path_factory):
    # Retries in case a server answers before its storage is ready.
    yield from s3h.serving(request.param, tmp_path_factory.mktemp(request.param), cli_path(),
                           lambda srv: Rsm(srv, "").run("create-bucket", attempts=12))


def write_segment(d: Path, mib: int) -> dict:
    files = run(["write-segment", "--dir", d, "--mib", mib])
    for k in ("log", "offset_index", "time_index", "txn_index", "snapshot"):
        assert Path(files[k]).is_file(), (k, files)
    assert files["aborted"] > 0 and Path(files["txn_index"]).stat().st_size > 0
    return files


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> dict:
    """A 3 MiB segment: one PUT per object at the default threshold."""
    return write_segment(tmp_path_factory.mktemp("small"), 3)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict:
    """A 12 MiB segment: 3 parts of 5 MiB with --threshold 5 MiB."""
    return write_segment(tmp_path_factory.mktemp("big"), 12)


@pytest.fixture
def rsm(server, request) -> Rsm:
    return Rsm(server, f"{request.node.name.split('[')[0]}-{uuid.uuid4().hex[:6]}/")


def new_segment(files: dict) -> dict:
    return {"id": kafka_uuid(), "topic_id": kafka_uuid(), "start": files["start"], "end": files["end"]}


def test_check_bucket_and_clear_errors(rsm):
    assert rsm.run("check-bucket")["ok"]
    no_bucket = rsm.run("check-bucket", ok=False, bucket="skiff-no-such-bucket")
    assert "bucket 'skiff-no-such-bucket' does not exist" in no_bucket["error"] and not no_bucket["retriable"]
    bad_secret = rsm.run("check-bucket", ok=False, secret="not-the-secret")
    assert "secret access key is wrong" in bad_secret["error"] and not bad_secret["retriable"]
    bad_key = rsm.run("check-bucket", ok=False, access="NOSUCHACCESSKEY")
    assert "access key id is not known" in bad_key["error"] and not bad_key["retriable"]
    nobody = f"http://127.0.0.1:{free_port()}"
    down = rsm.run("check-bucket", ok=False, endpoint=nobody, attempts=2)
    assert "cannot reach the object store at " + nobody in down["error"] and down["retriable"]


def test_copy_then_fetch_ranges_and_every_index(rsm, small, tmp_path):
    seg = new_segment(small)
    assert rsm.copy(seg, small) == {"copied": True, "custom_metadata": None}
    assert "-" not in rsm.run("head", "--kind", "log", seg=seg)["etag"]  # one PUT below the threshold
    log = Path(small["log"]).read_bytes()
    assert len(log) >= 3 * MIB
    assert rsm.fetch(seg, tmp_path) == log
    assert rsm.fetch(seg, tmp_path, 0, 99) == log[:100]  # end inclusive, as Kafka's
    assert rsm.fetch(seg, tmp_path, 4096, 70000) == log[4096:70001]
    assert rsm.fetch(seg, tmp_path, len(log) - 10) == log[-10:]
    assert rsm.fetch(seg, tmp_path, 5, len(log) + 1000) == log[5:]  # past the end: to the end
    assert rsm.fetch(seg, tmp_path, len(log) - 1, len(log) - 1) == log[-1:]
    past = rsm.run("fetch", "--start-position", len(log) + 5, "--out", tmp_path / "x", seg=seg, ok=False)
    assert "past the segment's end" in past["error"] and not past["retriable"]
    for kind, path in (("offset", "offset_index"), ("timestamp", "time_index"), ("transaction", "txn_index"),
                       ("producer-snapshot", "snapshot")):
        want = Path(small[path]).read_bytes()
        assert len(want) > 0, kind
        assert rsm.index(seg, kind, tmp_path) == want, kind
    assert rsm.index(seg, "leader-epoch", tmp_path) == EPOCHS.encode()
    m = rsm.run("manifest", seg=seg)
    assert m["log_size"] == len(log) and m["end_offset"] == small["end"]
    assert set(m["indexes"]) == {"offset", "timestamp", "transaction", "producer-snapshot", "leader-epoch"}


def test_indexes_not_uploaded_are_absent(rsm, small, tmp_path):
    seg = new_segment(small)
    rsm.copy(seg, small, with_txn=False)
    assert rsm.index(seg, "transaction", tmp_path) is None
    assert rsm.index(seg, "producer-snapshot", tmp_path) is None
    assert rsm.index(seg, "offset", tmp_path) == Path(small["offset_index"]).read_bytes()


def test_multipart_copy_of_a_large_segment(rsm, big, tmp_path):
    seg = new_segment(big)
    log = Path(big["log"]).read_bytes()
    assert len(log) > 10 * MIB
    rsm.copy(seg, big, part_size=5 * MIB, threshold=5 * MIB)  # 3 parts, streamed from the file
    head = rsm.run("head", "--kind", "log", seg=seg)
    assert head["size"] == len(log) and head["etag"].endswith("-3"), head  # S3's multipart ETag: 3 parts
    assert sha(rsm.fetch(seg, tmp_path)) == sha(log)
    assert rsm.fetch(seg, tmp_path, 5 * MIB - 3, 5 * MIB + 3) == log[5 * MIB - 3:5 * MIB + 4]  # across a part
    assert rsm.index(seg, "timestamp", tmp_path) == Path(big["time_index"]).read_bytes()
    assert rsm.run("abort-stale", "--older-than", 0)["aborted"] == 0  # nothing left behind


def test_copies_from_several_threads_at_once(rsm, small):
    seg = new_segment(small)
    out = rsm.run("copy-parallel", "--threads", 4, "--log", small["log"], "--offset-index", small["offset_index"],
                  "--time-index", small["time_index"], seg=seg)
    want = sha(Path(small["log"]).read_bytes())
    assert len(out["lines"]) == 4 and len({x["segment_id"] for x in out["lines"]}) == 4
    assert all(x.get("sha256") == want for x in out["lines"]), out["lines"]


def test_delete_then_delete_again(rsm, small, tmp_path):
    seg = new_segment(small)
    rsm.copy(seg, small)
    assert rsm.run("delete", seg=seg)["deleted"]
    gone = rsm.run("fetch", "--out", tmp_path / "x", seg=seg, ok=False)
    assert gone["not_found"] and not gone["retriable"]
    no_manifest = rsm.run("fetch-index", "--type", "offset", "--out", tmp_path / "y", seg=seg, ok=False)
    assert no_manifest["not_found"] and "has no manifest" in no_manifest["error"]
    assert rsm.run("delete", seg=seg)["deleted"]  # idempotent
    assert rsm.run("delete", seg=new_segment(small))["deleted"]  # never copied at all


def test_upload_cut_by_a_crash_is_aborted(rsm, small):
    seg = new_segment(small)
    rsm.run("cut-upload", seg=seg)  # one part sent, never completed: the process "crashed"
    assert rsm.run("abort-stale", "--older-than", 3600)["aborted"] == 0  # too young: maybe a running copy
    assert rsm.run("abort-stale", "--older-than", 0)["aborted"] == 1
    assert rsm.run("abort-stale", "--older-than", 0)["aborted"] == 0
    # A delete by metadata also aborts the uploads of its attempt.
    rsm.run("cut-upload", seg=seg)
    rsm.run("delete", seg=seg)
    assert rsm.run("abort-stale", "--older-than", 0)["aborted"] == 0


def test_corrupt_manifest_and_index_are_refused(rsm, small, tmp_path):
    seg = new_segment(small)
    rsm.copy(seg, small)
    # The offset index comes first in the bundle: one byte of it flipped in the store.
    raw = bytearray(Path(small["offset_index"]).read_bytes())
    raw[10] ^= 0xFF
    whole = tmp_path / "indexes"
    whole.write_bytes(bytes(raw) + b"\0" * (1 << 20))  # longer than the real bundle: sizes still fit
    rsm.run("put-raw", "--kind", "indexes", "--file", whole, seg=seg)
    bad = rsm.run("fetch-index", "--type", "offset", "--out", tmp_path / "o", seg=seg, ok=False)
    assert "does not match its manifest" in bad["error"] and not bad["retriable"]
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"SKRM\0\1" + os.urandom(40))
    rsm.run("put-raw", "--kind", "manifest", "--file", garbage, seg=seg)
    bad = rsm.run("fetch-index", "--type", "timestamp", "--out", tmp_path / "t", seg=seg, ok=False)
    assert "manifest" in bad["error"] and "unusable" in bad["error"] and not bad["retriable"]
    assert not bad["not_found"]


def test_server_stopped_is_retriable_then_restart_recovers(rsm, server, small, tmp_path):
    seg = new_segment(small)
    rsm.copy(seg, small)
    log = Path(small["log"]).read_bytes()
    server.stop()
    try:
        down = rsm.run("fetch", "--out", tmp_path / "x", seg=seg, ok=False, attempts=2)
        assert down["retriable"] and not down["not_found"]
        down = rsm.copy(new_segment(small), small, ok=False, attempts=2)
        assert down["retriable"]
    finally:
        server.start()
    # 12 attempts: SeaweedFS answers InternalError (retriable) for a moment after a restart.
    assert rsm.fetch(seg, tmp_path, attempts=12) == log
    assert rsm.index(seg, "offset", tmp_path, attempts=12) == Path(small["offset_index"]).read_bytes()
