"""Delegation tokens (KIP-48, KIP-373) with Kafka's own tool and real
clients: `kafka-delegation-tokens` creates a token over SCRAM (with a renewer),
describes (with --owner-principal: without one the tool sends an empty
owner list, which Kafka answers with no tokens), renews and expires it; the Java client and franz-go log in with
the token (SCRAM-SHA-512 with tokenauth) and produce and consume as the
token's owner; a token-authenticated session may not create tokens
(DELEGATION_TOKEN_REQUEST_NOT_ALLOWED), nor may a PLAINTEXT one; tokens
survive a broker restart; an expired token no longer logs in. Without
delegation.token.secret.key the APIs answer DELEGATION_TOKEN_AUTH_DISABLED.

librdkafka (confluent-kafka, kcat) has no way to send SCRAM's tokenauth
extension, so it cannot log in with a token against Kafka either; it is not
run here. Runs in the java run (the tool and the Java client) and the
franz_go run (its scram.Auth.IsToken)."""
from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest

from conftest import skiff_binary
from harness.broker import SkiffBroker
from harness.certs import SERVER_EXT, make_ca, make_cert
from harness.secure_roundtrip import java_properties, java_sasl_roundtrip, sasl_roundtrip
from test_admin import tool

TOKENS = "org.apache.kafka.tools.DelegationTokenCommand"
ADMIN = {"protocol": "SASL_PLAINTEXT", "mechanism": "SCRAM-SHA-512", "user": "alice", "password": "alice-secret"}


def overrides(**extra: str) -> dict[str, str]:
    o = {"listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
         "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
         "sasl.enabled.mechanisms": "SCRAM-SHA-256,SCRAM-SHA-512",
         "scram.bootstrap.users": "SCRAM-SHA-512=[name=alice,password=alice-secret];"
                                  "SCRAM-SHA-512=[name=bob,password=bob-secret]",
         "delegation.token.secret.key": "the-secret", "num.partitions": "1", "skiff.log.level": "debug"}
    o.update(extra)
    return {k: v for k, v in o.items() if v is not None}


def start(d: Path, **extra: str) -> SkiffBroker:
    b = SkiffBroker(skiff_binary(), d / "data", d, overrides(**extra))
    b.start()
    b.ports = b.listener_ports()
    return b


@pytest.fixture
def work(client, tmp_path) -> Path:
    if client.name not in ("java", "franz_go"):
        pytest.skip("runs in the java and franz_go runs")
    make_ca(tmp_path, "ca")  # java_sasl_roundtrip writes its properties beside the CA
    make_cert(tmp_path, "ca", "server", "/CN=localhost", SERVER_EXT)
    return tmp_path


def props(d: Path, sec: dict) -> str:
    p = d / f"client-{uuid.uuid4().hex[:8]}.properties"
    p.write_text(java_properties(sec))
    return str(p)


def create_token(b: SkiffBroker, d: Path) -> tuple[str, str]:
    out = tool(TOKENS, "--bootstrap-server", f"127.0.0.1:{b.ports['SASL_PLAINTEXT']}", "--command-config",
               props(d, ADMIN), "--create", "--max-life-time-period", "-1", "--renewer-principal", "User:bob")
    m = re.search(r"^(\S{22})\s+(\S+)\s+", out, re.M)
    assert m, out
    return m.group(1), m.group(2)


def token_sec(d: Path, token_id: str, hmac: str) -> dict:
    return {"protocol": "SASL_PLAINTEXT", "mechanism": "SCRAM-SHA-512", "user": token_id, "password": hmac,
            "ca": str(d / "ca.pem"), "token_auth": True}


def roundtrip(client, b: SkiffBroker, sec: dict, topic: str) -> list[str]:
    bootstrap = f"127.0.0.1:{b.ports['SASL_PLAINTEXT']}"
    if client.name == "java":
        return java_sasl_roundtrip(bootstrap, topic, sec, 5)
    return sasl_roundtrip("franz_go")(bootstrap, topic, sec, 5)


def test_create_login_renew_expire(client, work):
    b = start(work)
    try:
        token_id, hmac = create_token(b, work)
        sasl = f"127.0.0.1:{b.ports['SASL_PLAINTEXT']}"
        described = tool(TOKENS, "--bootstrap-server", sasl, "--command-config", props(work, ADMIN), "--describe", "--owner-principal", "User:alice")
        assert token_id in described and "User:alice" in described and "User:bob" in described, described

        # The token logs in as its owner.
        assert roundtrip(client, b, token_sec(work, token_id, hmac), f"tok-{uuid.uuid4().hex[:6]}") == \
            [f"v{i}" for i in range(5)]
        b.log_wait(r"SCRAM-SHA-512 authenticated User:alice from 127\.0\.0\.1 on listener SASL_PLAINTEXT")

        if client.name == "java":
            # A token-authenticated session may not create tokens; neither may PLAINTEXT.
            out = tool(TOKENS, "--bootstrap-server", sasl, "--command-config",
                       props(work, token_sec(work, token_id, hmac)), "--create", "--max-life-time-period", "-1",
                       check=False)
            assert "DelegationTokenDisabledException" not in out and \
                "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels" in out, out
            plain = work / "plaintext.properties"
            plain.write_text("security.protocol=PLAINTEXT\n")
            out = tool(TOKENS, "--bootstrap-server", f"127.0.0.1:{b.ports['PLAINTEXT']}", "--command-config",
                       str(plain), "--create", "--max-life-time-period", "-1", check=False)
            assert "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels" in out, out

        # bob, a renewer, renews; then alice expires it at once.
        out = tool(TOKENS, "--bootstrap-server", sasl, "--command-config",
                   props(work, {**ADMIN, "user": "bob", "password": "bob-secret"}), "--renew", "--hmac", hmac,
                   "--renew-time-period", "-1")
        assert "Completed renew operation. New expiry date" in out, out
        b.stop()
        b.start()  # the token is durable
        b.ports = b.listener_ports()
        sasl = f"127.0.0.1:{b.ports['SASL_PLAINTEXT']}"
        assert token_id in tool(TOKENS, "--bootstrap-server", sasl, "--command-config", props(work, ADMIN),
                                "--describe", "--owner-principal", "User:alice")
        out = tool(TOKENS, "--bootstrap-server", sasl, "--command-config", props(work, ADMIN), "--expire",
                   "--hmac", hmac, "--expiry-time-period", "-1")
        assert "Completed expire operation. New expiry date" in out, out
        assert token_id not in tool(TOKENS, "--bootstrap-server", sasl, "--command-config", props(work, ADMIN),
                                    "--describe", "--owner-principal", "User:alice")
        with pytest.raises((PermissionError, AssertionError, RuntimeError)):
            roundtrip(client, b, token_sec(work, token_id, hmac), f"tok-{uuid.uuid4().hex[:6]}")
    finally:
        b.stop()


def test_tokens_disabled_without_a_secret(client, work):
    if client.name != "java":
        pytest.skip("the tool runs in the java run")
    b = start(work, **{"delegation.token.secret.key": None})
    try:
        out = tool(TOKENS, "--bootstrap-server", f"127.0.0.1:{b.ports['SASL_PLAINTEXT']}", "--command-config",
                   props(work, ADMIN), "--create", "--max-life-time-period", "-1", check=False)
        assert "Delegation Token feature is not enabled" in out, out
    finally:
        b.stop()
