"""OAUTHBEARER with unsecured JWS tokens, Kafka's default validator
(OAuthBearerUnsecuredValidatorCallbackHandler), on the SASL exchange byte by
byte: a valid token's principal and session lifetime (the token's exp, capped
by connections.max.reauth.ms); Kafka's error exchange for a bad token
({"status":"invalid_token"} as the challenge, the client's \\x01, then
SASL_AUTHENTICATION_FAILED with that JSON); a required scope
(insufficient_scope); a malformed first message; an authorization id that is
not the token's subject; the session ending when the token expires. The
clients' own OAUTHBEARER logins are in test_sasl.py; here the Java client is
refused for a missing scope and let in with it."""
from __future__ import annotations

import time
import uuid

import pytest

from conftest import skiff_binary
from harness.broker import SkiffBroker
from harness.sasl_wire import (alice_token, assert_closed, b64url, connect, frame, metadata_ok, oauthbearer_first,
                               recv_frame, sasl_authenticate, sasl_handshake, unsecured_jws)
from harness.secure_roundtrip import java_sasl_roundtrip

JAAS = ('org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
        'unsecuredValidatorRequiredScope="kafka" unsecuredValidatorAllowableClockSkewMs="1000";')
INVALID = '{"status":"invalid_token"}'
REAUTH_MS = 600000
CLAIMS = {"sub": "alice", "exp": time.time() + 3600, "scope": "kafka"}


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    d = tmp_path_factory.mktemp("oauthbearer")
    b = SkiffBroker(skiff_binary(), d / "data", d, {
        "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "OAUTHBEARER",
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config": JAAS,
        "connections.max.reauth.ms": str(REAUTH_MS),
        "skiff.log.level": "debug",
    })
    b.start()
    b.port = b.listener_ports()["SASL_PLAINTEXT"]
    yield b
    b.stop()


def once(client):
    if client.name != "kcat":
        pytest.skip("speaks the SASL exchange on a raw socket; covered by the kcat run")


def handshake(b):
    s = connect(b.port)
    assert sasl_handshake(s, "OAUTHBEARER") == (0, ["OAUTHBEARER"])
    return s


def refused(b, first: bytes, expect_challenge: str | None) -> str:
    """Sends `first`; when a challenge is expected, answers it with \\x01 as
    Kafka's clients do. The failure message; the connection is closed."""
    s = handshake(b)
    if expect_challenge is not None:
        s.sendall(frame(36, 1, len(first).to_bytes(4, "big") + first))
        r = recv_frame(s)
        err = int.from_bytes(r[4:6], "big")
        assert err == 0, "a bad token is first answered with a challenge, not an error"
        assert expect_challenge.encode() in r
        first = b"\x01"
    err, msg, _ = sasl_authenticate(s, first)
    assert err == 58
    assert_closed(s)
    return msg


def test_valid_token_authenticates_for_its_lifetime(client, broker):
    once(client)
    s = handshake(broker)
    err, msg, lifetime = sasl_authenticate(s, oauthbearer_first(alice_token(lifetime_s=120, scope="kafka")))
    assert (err, msg) == (0, "")
    # the token's exp, under connections.max.reauth.ms; exp is rounded to the
    # millisecond as Kafka does (Math.round), so it may read 1 ms long
    assert 110_000 < lifetime <= 120_001
    assert metadata_ok(s)
    broker.log_wait(r"OAUTHBEARER authenticated User:alice from 127\.0\.0\.1 on listener SASL_PLAINTEXT")
    s = handshake(broker)  # a list scope, an authzid equal to the subject, extensions
    token = unsecured_jws({"sub": "alice", "exp": time.time() + 7200, "scope": ["read", "kafka"]})
    first = f"n,a=alice,\x01auth=Bearer {token}\x01traceId=abc 123\x01\x01".encode()
    assert sasl_authenticate(s, first) == (0, "", REAUTH_MS)
    s.close()


@pytest.mark.parametrize("token,reason", [
    (alice_token(lifetime_s=-5, scope="kafka"), "was on or after the Expiration Time"),
    (unsecured_jws({"sub": "alice", "scope": "kafka"}), "No expiration time in JWT"),
    (unsecured_jws({"exp": time.time() + 60, "scope": "kafka"}), "No principal name in JWT claim: sub"),
    (unsecured_jws(CLAIMS, header={"alg": "HS256"}), "'none' for an algorithm"),
    (unsecured_jws(CLAIMS, signature=b"sig"), "must not contain a digital signature"),
    (alice_token(scope="kafka").split(".")[0] + "." + b64url(b"not json") + ".", "malformed"),
    (unsecured_jws({**CLAIMS, "iat": time.time() + 60}), "was after the indicated time"),
])
def test_bad_token_gets_kafkas_error_exchange(client, broker, token, reason):
    once(client)
    assert refused(broker, oauthbearer_first(token), INVALID) == INVALID
    broker.log_wait(r"failed authentication with 127\.0\.0\.1 on listener SASL_PLAINTEXT \(OAUTHBEARER\): "
                    r'\{"status":"invalid_token"\}; .*' + reason.replace("(", r"\(").replace(")", r"\)"))


def test_missing_scope_is_insufficient_scope(client, broker):
    once(client)
    want = '{"status":"insufficient_scope", "scope":"kafka"}'
    assert refused(broker, oauthbearer_first(alice_token(scope=["read"])), want) == want


def test_malformed_first_message_and_foreign_authzid(client, broker):
    once(client)
    generic = "Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER"
    token = alice_token(scope="kafka")
    assert refused(broker, f"n,,auth=Bearer {token}".encode(), None) == generic  # no \x01 separators
    assert refused(broker, f"n,,\x01auth=Basic {token}\x01\x01".encode(), None) == generic
    msg = refused(broker, oauthbearer_first(token, authzid="bob"), None)
    assert msg == ("Authentication failed: Client requested an authorization id (bob) that is different from the "
                   "token's principal name (alice)")


def test_session_ends_when_the_token_expires(client, broker):
    once(client)
    s = handshake(broker)
    err, _, lifetime = sasl_authenticate(s, oauthbearer_first(alice_token(lifetime_s=2, scope="kafka")))
    assert err == 0 and 0 < lifetime <= 2001  # exp is rounded to the ms, the broker's clock truncated
    assert metadata_ok(s)
    time.sleep(2.5)
    s.sendall(frame(3, 1, (-1).to_bytes(4, "big", signed=True)))
    assert_closed(s)
    broker.log_wait(r"its SASL session expired")


def test_java_client_needs_the_required_scope(client, broker, tmp_path):
    if client.name != "java":
        pytest.skip("the Java client's own unsecured login (OAuthBearerLoginModule)")
    sec = {"protocol": "SASL_PLAINTEXT", "mechanism": "OAUTHBEARER", "user": "alice", "password": "",
           "ca": str(tmp_path / "unused.pem")}
    bootstrap = f"localhost:{broker.port}"
    with pytest.raises(PermissionError):
        java_sasl_roundtrip(bootstrap, "oauth-no-scope", sec, 1)
    sec["java_claims"] = ' unsecuredLoginListClaim_scope=",kafka"'
    topic = f"oauth-scope-{uuid.uuid4().hex[:6]}"
    assert java_sasl_roundtrip(bootstrap, topic, sec, 5) == [f"v{i}" for i in range(5)]
