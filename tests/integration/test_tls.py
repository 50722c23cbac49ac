"""TLS listeners (SSL) with real clients: certificates made at test time with
the openssl command line (a CA, the broker's, a client's; nothing secret is
committed), then each client produces and consumes over SSL, with and
without a client certificate (mutual TLS, principal mapped from the
certificate). The hostile, startup-error and reload scenarios speak TLS
through Python's ssl module and the openssl CLI, so they run once, in the
kcat run."""
from __future__ import annotations

import socket
import ssl
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import skiff_binary
from harness.broker import BrokerError, SkiffBroker
from harness.certs import CLIENT_EXT, SERVER_EXT, make_ca, make_cert, openssl
from harness.java_check import run_java_check
from harness.secure_roundtrip import (confluent_settings_roundtrip, kafka_python_settings_roundtrip,
                                      kcat_settings_roundtrip, tls_roundtrip)

JAVA_CHECK = Path(__file__).parent / "java_security" / "SecureClientCheck.java"


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("tls-certs")
    make_ca(d, "ca")
    make_ca(d, "other-ca")
    make_cert(d, "ca", "server", "/CN=localhost", SERVER_EXT)
    make_cert(d, "other-ca", "server2", "/CN=localhost", SERVER_EXT)
    make_cert(d, "ca", "client", "/C=US/O=org/OU=test/CN=client", CLIENT_EXT)
    make_cert(d, "other-ca", "stranger", "/CN=stranger", CLIENT_EXT)
    openssl("pkcs8", "-topk8", "-in", "server.key", "-out", "server-enc.key", "-passout", "pass:s3cret", cwd=d)
    (d / "server-enc.pem").write_text((d / "server-enc.key").read_text() + (d / "server.crt").read_text())
    return d


def tls_overrides(certs: Path, **extra: str) -> dict[str, str]:
    o = {
        "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
        "ssl.keystore.location": str(certs / "server.pem"),
        "ssl.truststore.location": str(certs / "ca.pem"),
        "listener.name.mtls.ssl.client.auth": "required",
        "listener.name.mtls.ssl.principal.mapping.rules": "RULE:^CN=(.*?),OU=(.*?),.*$/$1@$2/L",
        "connections.max.idle.ms": "3000",
        "skiff.log.level": "debug",
        "num.partitions": "1",
    }
    o.update(extra)
    return o


def ports(b: SkiffBroker) -> dict[str, int]:
    return b.listener_ports()


@pytest.fixture(scope="module")
def tls_broker(certs, tmp_path_factory):
    d = tmp_path_factory.mktemp("tls-broker")
    b = SkiffBroker(skiff_binary(), d / "data", d, tls_overrides(certs))
    b.start()
    b.ports = ports(b)
    yield b
    b.stop()


# --- the clients ------------------------------------------------------------

def librdkafka_tls(certs, client_cert) -> dict[str, str]:
    conf = {"security.protocol": "SSL", "ssl.ca.location": str(certs / "ca.pem")}
    if client_cert:
        conf.update({"ssl.certificate.location": str(certs / "client.crt"),
                     "ssl.key.location": str(certs / "client.key")})
    return conf


def kcat_roundtrip(bootstrap, topic, certs, client_cert, n):
    return kcat_settings_roundtrip(bootstrap, topic, librdkafka_tls(certs, client_cert), n)


def confluent_roundtrip(bootstrap, topic, certs, client_cert, n):
    return confluent_settings_roundtrip(bootstrap, topic, librdkafka_tls(certs, client_cert), n)


def kafka_python_roundtrip(bootstrap, topic, certs, client_cert, n):
    conf = {"security_protocol": "SSL", "ssl_cafile": str(certs / "ca.pem")}
    if client_cert:
        conf.update({"ssl_certfile": str(certs / "client.crt"), "ssl_keyfile": str(certs / "client.key")})
    return kafka_python_settings_roundtrip(bootstrap, topic, conf, n)


def java_roundtrip(bootstrap, topic, certs, client_cert, n):
    props = certs / f"client-{uuid.uuid4().hex[:8]}.properties"
    lines = ["security.protocol=SSL", "ssl.truststore.type=PEM", f"ssl.truststore.location={certs / 'ca.pem'}"]
    if client_cert:
        lines += ["ssl.keystore.type=PEM", f"ssl.keystore.location={certs / 'client.pem'}"]
    props.write_text("\n".join(lines) + "\n")
    r = run_java_check(JAVA_CHECK, bootstrap, topic, str(props), str(n), "30000", timeout=120)
    assert r.returncode == 0, f"{r.result} {r.stderr_tail}"
    return [f"v{i}" for i in range(r.result["consumed"])]


ROUNDTRIPS = {"kcat": kcat_roundtrip, "confluent_kafka": confluent_roundtrip,
              "kafka_python": kafka_python_roundtrip, "java": java_roundtrip,
              "kafkajs": tls_roundtrip("kafkajs"), "franz_go": tls_roundtrip("franz_go")}


def roundtrip_of(client):
    if client.name not in ROUNDTRIPS:
        pytest.skip(f"no SSL configuration written for {client.name} yet")
    return ROUNDTRIPS[client.name]


@pytest.mark.parametrize("listener", ["SSL", "MTLS"])
def test_produce_and_consume_over_tls(client, tls_broker, certs, listener):
    rt = roundtrip_of(client)
    topic = f"tls-{listener.lower()}-{client.name}-{uuid.uuid4().hex[:6]}"
    got = rt(f"localhost:{tls_broker.ports[listener]}", topic, certs, listener == "MTLS", 20)
    assert got == [f"v{i}" for i in range(20)]
    if listener == "MTLS":  # the principal mapped from CN=client,OU=test,O=org,C=US
        tls_broker.log_wait(r"TLS connection \d+ from 127\.0\.0\.1 on listener MTLS: TLSv1\.[23] \S+, "
                             r"principal User:client@test")


# --- mutual TLS, hostile clients, startup errors, reload (kcat run only) --------

def once(client):
    if client.name != "kcat":
        pytest.skip("speaks TLS through Python's ssl module and openssl; covered by the kcat run")


def handshake(port: int, certs: Path, cert: str | None = None, name: str = "localhost") -> ssl.SSLSocket:
    ctx = ssl.create_default_context(cafile=str(certs / "ca.pem"))
    if cert:
        ctx.load_cert_chain(str(certs / f"{cert}.crt"), str(certs / f"{cert}.key"))
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    return ctx.wrap_socket(s, server_hostname=name)


def api_versions_over(s) -> bytes:
    """ApiVersions v0 through an open (TLS) socket; the response's bytes."""
    body = b"\x00\x12\x00\x00\x00\x00\x00\x07\x00\x04test"
    s.sendall(len(body).to_bytes(4, "big") + body)
    head = s.recv(4)
    size = int.from_bytes(head, "big")
    data = b""
    while len(data) < size:
        chunk = s.recv(size - len(data))
        assert chunk, "connection closed mid-response"
        data += chunk
    return data


def assert_closed_by_broker(s: socket.socket, timeout: float = 10.0) -> None:
    """The broker closes the connection (after at most a TLS alert, never a Kafka response)."""
    s.settimeout(timeout)
    got = b""
    try:
        while chunk := s.recv(1024):
            got += chunk
            assert len(got) < 64, f"the broker answered: {got!r}"
    except ConnectionResetError:
        pass
    assert not got or got[0] == 0x15, f"expected nothing or a TLS alert, got {got!r}"


def test_mutual_tls_requires_a_valid_client_certificate(client, tls_broker, certs):
    once(client)
    port = tls_broker.ports["MTLS"]
    with handshake(port, certs, "client") as s:
        assert api_versions_over(s)[:4] == b"\x00\x00\x00\x07"
    for cert in (None, "stranger"):  # no certificate; one from a CA the broker does not trust
        try:
            with handshake(port, certs, cert) as s:
                # TLS 1.3: the client may finish first and learn of the refusal on its first read
                s.sendall(b"\x00\x00\x00\x00")
                assert_closed_by_broker(s)
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
            pass
    tls_broker.log_wait(r"on listener MTLS: TLS handshake failed: .*(certificate|no certificate)")
    with handshake(tls_broker.ports["SSL"], certs) as s:  # server-auth only: no certificate needed
        assert api_versions_over(s)[:4] == b"\x00\x00\x00\x07"


def client_hello() -> bytes:
    ctx = ssl.create_default_context()
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    return out.read()


def test_hostile_clients_close_only_their_own_connection(client, tls_broker, certs):
    once(client)
    port = tls_broker.ports["SSL"]
    good = handshake(port, certs)  # a client that stays connected throughout
    assert api_versions_over(good)
    # Plaintext Kafka bytes to the TLS port.
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"\x00\x00\x00\x12\x00\x12\x00\x03\x00\x00\x00\x01\x00\x04test\x00\x00")
    assert_closed_by_broker(s)
    tls_broker.log_wait(r"TLS handshake failed: .*does not speak TLS")
    # TLS 1.1 is refused (the openssl CLI still offers it at security level 0).
    p = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-tls1_1", "-cipher",
                        "DEFAULT:@SECLEVEL=0"], input=b"", capture_output=True, timeout=30)
    assert p.returncode != 0
    tls_broker.log_wait(r"TLS handshake failed: .*(unsupported protocol|version).*")
    # A truncated handshake: half a ClientHello, then the client closes.
    hello = client_hello()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(hello[: len(hello) // 2])
    s.shutdown(socket.SHUT_WR)
    assert_closed_by_broker(s)
    tls_broker.log_wait(r"TLS handshake failed: the client closed the connection during the TLS handshake")
    # A client that stops mid-handshake: closed after connections.max.idle.ms (3 s here).
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(hello[: len(hello) // 2])
    started = time.monotonic()
    time.sleep(1.5)
    assert api_versions_over(good)  # served meanwhile (and not idle itself)
    assert_closed_by_broker(s, timeout=15)
    assert time.monotonic() - started < 10
    tls_broker.log_wait(r"TLS handshake not finished within connections.max.idle.ms=3000")
    # The broker served the others all along.
    assert api_versions_over(good)
    with handshake(port, certs) as s:
        assert api_versions_over(s)
    good.close()


def start_expecting_failure(certs, tmp_path, **extra) -> str:
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, tls_overrides(certs, **extra))
    with pytest.raises(BrokerError) as e:
        b.start()
    return str(e.value)


def test_bad_key_material_stops_the_broker_with_exit_code_2(client, certs, tmp_path):
    once(client)
    out = start_expecting_failure(certs, tmp_path, **{"ssl.keystore.location": str(certs / "missing.pem")})
    assert "exited with 2" in out and "missing.pem' cannot be read" in out
    out = start_expecting_failure(certs, tmp_path, **{"ssl.keystore.location": str(certs / "server-enc.pem"),
                                                      "ssl.key.password": "wrong"})
    assert "exited with 2" in out and "wrong ssl.key.password" in out
    out = start_expecting_failure(certs, tmp_path, **{"ssl.keystore.location": str(certs / "server-enc.pem")})
    assert "exited with 2" in out and "ssl.key.password is not set" in out
    out = start_expecting_failure(certs, tmp_path, **{"ssl.keystore.location": str(certs / "ca.pem")})
    assert "exited with 2" in out


def test_encrypted_key_with_its_password(client, certs, tmp_path):
    once(client)
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path,
                    tls_overrides(certs, **{"ssl.keystore.location": str(certs / "server-enc.pem"),
                                            "ssl.key.password": "s3cret"}))
    b.start()
    try:
        with handshake(ports(b)["SSL"], certs) as s:
            assert api_versions_over(s)
    finally:
        b.stop()


def issuer_of(port: int, certs: Path) -> str:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10)) as s:
        der = s.getpeercert(binary_form=True)
    p = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-issuer"], input=der, capture_output=True,
                       timeout=10)
    return p.stdout.decode()


def test_certificates_reload_without_restart(client, certs, tmp_path):
    once(client)
    keystore = tmp_path / "keystore.pem"
    keystore.write_text((certs / "server.pem").read_text())
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path,
                    # The idle timeout outlasts the reload poll: the module's 3 s closed `before`
                    # on a loaded CI machine before the reload was seen.
                    tls_overrides(certs, **{"ssl.keystore.location": str(keystore),
                                            "connections.max.idle.ms": "120000"}))
    b.start()
    try:
        port = ports(b)["SSL"]
        before = handshake(port, certs)  # stays open across the reload
        assert "Skiff test ca" in issuer_of(port, certs)
        keystore.write_text((certs / "server2.pem").read_text())  # rotated, by a new CA
        b.log_wait(r"listener SSL: TLS key material reloaded", timeout=15)
        assert "Skiff test other-ca" in issuer_of(port, certs)
        assert api_versions_over(before)  # an open connection is not disturbed
        keystore.write_text("not a certificate\n")  # a broken rotation: logged, the previous one stays
        b.log_wait(r"TLS key material changed but does not load.*keystore\.pem", timeout=15)
        assert "Skiff test other-ca" in issuer_of(port, certs)
        before.close()
    finally:
        b.stop()


def test_large_fetches_over_tls_arrive_intact(client, tls_broker, certs):
    """Fetch data is read from the segment and encrypted (no sendfile over
    TLS): many MB across partial TLS writes must arrive byte for byte."""
    once(client)
    import hashlib

    import confluent_kafka as ck
    conf = {"bootstrap.servers": f"localhost:{tls_broker.ports['SSL']}", "security.protocol": "SSL",
            "ssl.ca.location": str(certs / "ca.pem")}
    topic = "tls-large-" + uuid.uuid4().hex[:6]
    values = [hashlib.sha256(str(i).encode()).digest() * 2048 for i in range(200)]  # 64 KiB each, 12.5 MiB
    # Idempotence keeps the order: records produced before the topic's
    # metadata arrives can otherwise overtake each other inside librdkafka.
    p = ck.Producer({**conf, "linger.ms": 20, "enable.idempotence": True})
    for v in values:
        p.produce(topic, v, partition=0)
    assert p.flush(60) == 0
    c = ck.Consumer({**conf, "group.id": "g-" + uuid.uuid4().hex, "fetch.max.bytes": 8 << 20,
                     "max.partition.fetch.bytes": 8 << 20, "check.crcs": True})
    c.assign([ck.TopicPartition(topic, 0, ck.OFFSET_BEGINNING)])
    got, deadline = [], time.monotonic() + 60
    while len(got) < len(values) and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    assert len(got) == len(values)
    assert sorted(got) == sorted(values), "records corrupted"
    assert got == values, "records out of order"
