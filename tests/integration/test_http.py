"""The broker's HTTP listener (http.listeners) against the real binary:
/healthz and /readyz over HTTP, a garbage request answered 400 while Kafka
clients keep being served, `http.listeners=` (empty) turning it off, an
explicitly configured busy port failing startup, a busy default port only
warning, a bad value refused as a configuration error, and an https://
endpoint (TLS with listener.name.http.ssl.*; test certificates made with the
openssl command line).

The HTTP listener does not depend on the Kafka client: everything runs once,
in the kcat run, and is skipped with that reason in the others."""
from __future__ import annotations

import json
import http.client
import os
import socket
import ssl
import subprocess

import pytest

from conftest import BROKER_OVERRIDES, skiff_binary
from harness.broker import BrokerError, SkiffBroker
from harness.certs import SERVER_EXT, make_ca, make_cert
from harness.wire import api_versions
from test_admin import only_for


def get(port: int, path: str, method: str = "GET") -> tuple[int, str, dict[str, str]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path)
        r = conn.getresponse()
        return r.status, r.read().decode(), {k.lower(): v for k, v in r.getheaders()}
    finally:
        conn.close()


def own(tmp_path, **overrides) -> SkiffBroker:
    return SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, {**BROKER_OVERRIDES, **overrides})


def test_healthz_and_readyz(client, broker):
    only_for(client, "kcat")
    if broker.external:
        pytest.skip("needs a broker the suite starts itself (its HTTP port comes from its log)")
    port = broker.http_port()
    assert port, broker.log_tail()
    assert get(port, "/healthz")[:2] == (200, "ok\n")
    status, body, headers = get(port, "/readyz")
    assert (status, body) == (200, "ready\n")
    assert headers["content-type"].startswith("text/plain")
    status, body, headers = get(port, "/healthz", "HEAD")
    assert (status, body, headers["content-length"]) == (200, "", "3")
    assert get(port, "/nowhere")[0] == 404
    status, _, headers = get(port, "/healthz", "POST")
    assert status == 405 and headers["allow"] == "GET, HEAD"


def test_garbage_gets_400_and_kafka_keeps_serving(client, broker):
    only_for(client, "kcat")
    if broker.external:
        pytest.skip("needs a broker the suite starts itself (its HTTP port comes from its log)")
    port = broker.http_port()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"\x00\x00\x00\x10\x00\x12\x00\x00garbage\r\n\r\n")
        answer = b""
        while chunk := s.recv(4096):  # the broker closes the connection after answering
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400 "), answer
    assert get(port, "/healthz")[0] == 200
    assert 18 in api_versions(broker.bootstrap)
    md = client.metadata(broker.bootstrap)
    assert md["brokers"], md


def test_empty_http_listeners_turns_it_off(client, tmp_path):
    only_for(client, "kcat")
    b = own(tmp_path, **{"http.listeners": ""})
    b.start()
    try:
        assert b.http_port() is None
        assert "HTTP off" in b.log_path.read_text()
        assert 18 in api_versions(b.bootstrap)
    finally:
        b.stop()


def busy_port(port: int = 0) -> socket.socket | None:
    """A listening socket on 127.0.0.1:port; None if the port is taken."""
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    s.listen(1)
    return s


def test_explicit_busy_port_fails_startup(client, tmp_path):
    only_for(client, "kcat")
    holder = busy_port()
    port = holder.getsockname()[1]
    b = own(tmp_path, **{"http.listeners": f"http://127.0.0.1:{port}"})
    try:
        with pytest.raises(BrokerError, match="exited with 1 during startup"):
            b.start()
    finally:
        holder.close()
    log = b.log_path.read_text()
    assert f"http.listeners http://127.0.0.1:{port}: port {port} on 127.0.0.1 is already in use" in log, log


def test_default_busy_port_only_warns(client, tmp_path):
    only_for(client, "kcat")
    holder = busy_port(8095)  # None: something else holds it, which does as well
    b = own(tmp_path)
    b.http_listeners = None  # the default, http://127.0.0.1:8095
    try:
        b.start()
        log = b.log_path.read_text()
        assert "HTTP is off: http://127.0.0.1:8095: port 8095 on 127.0.0.1 is already in use" in log, log
        assert b.http_port() is None
        assert 18 in api_versions(b.bootstrap)
        b.stop()
    finally:
        b.kill9()
        if holder:
            holder.close()


@pytest.mark.parametrize("value,why", [("ftp://127.0.0.1:8443", "only http:// and https://"),
                                       ("http://127.0.0.1:70000", "[0, 65535]"),
                                       ("127.0.0.1:8095", "is not http://host:port")])
def test_bad_http_listeners_is_a_config_error(client, tmp_path, value, why):
    only_for(client, "kcat")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
    p = subprocess.run([skiff_binary(), "--override", f"log.dirs={tmp_path}", "--override", f"http.listeners={value}"],
                       capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p
    assert "'http.listeners'" in p.stderr and why in p.stderr, p.stderr


def test_https_listener_serves_tls_and_only_tls(client, tmp_path):
    only_for(client, "kcat")
    certs = tmp_path / "certs"
    certs.mkdir()
    make_ca(certs, "ca")
    make_cert(certs, "ca", "server", "/CN=localhost", SERVER_EXT)
    b = own(tmp_path, **{"listener.name.http.ssl.keystore.location": str(certs / "server.pem")})
    b.http_listeners = "https://127.0.0.1:0"
    b.start()
    try:
        b.log_wait(r"HTTP on https://127\.0\.0\.1:\d+")
        port = b.http_port()
        tls = ssl.create_default_context(cafile=str(certs / "ca.pem"))
        conn = http.client.HTTPSConnection("localhost", port, timeout=10, context=tls)
        try:
            conn.request("GET", "/readyz")
            r = conn.getresponse()
            assert (r.status, r.read()) == (200, b"ready\n")
            conn.request("GET", "/api/overview")  # the console names the listener with its scheme
            r = conn.getresponse()
            assert r.status == 200
            assert json.loads(r.read())["http_listeners"] == [f"https://127.0.0.1:{port}"]
        finally:
            conn.close()
        with pytest.raises((OSError, http.client.HTTPException)):
            get(port, "/healthz")  # plain HTTP on the TLS port: closed unanswered
        b.log_wait(r"HTTPS listener http: 1 TLS handshake\(s\) failed.*a plain HTTP request on the https:// port")
    finally:
        b.stop()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}
    p = subprocess.run([skiff_binary(), "--override", f"log.dirs={tmp_path}", "--override",
                        "http.listeners=https://127.0.0.1:0"],
                       capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert p.returncode == 2, p
    assert "http.listeners https://127.0.0.1:0: no key material: set ssl.keystore.location" in p.stderr, p.stderr
