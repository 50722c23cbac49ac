"""OAUTHBEARER with signed JWTs, as Kafka's OAuthBearerValidatorCallbackHandler
(listener.name.<l>.oauthbearer.sasl.server.callback.handler.class): a local
HTTPS identity provider (harness/oauth_idp.py) serves the JWKS the broker
fetches and a client-credentials token endpoint; tokens are signed with PyJWT.
On the wire (once, in the kcat run): RS256, PS256 and ES256 tokens
authenticate; expired, not-yet-valid, wrong-audience, wrong-issuer,
unknown-key, tampered and unsecured tokens get Kafka's
{"status":"invalid_token"} exchange; a failing JWKS endpoint leaves the
keys fetched before in use; a rotated JWKS (a new key id appears, the
old one leaves) is picked up on the first token naming the new key; a
file: JWKS given through the listener's mechanism-prefixed keys; the
configuration Kafka refuses. With real clients: librdkafka's
sasl.oauthbearer.method=oidc and the Java client's
OAuthBearerLoginCallbackHandler against the token endpoint; kafka-python's
token provider, kafkajs and franz-go presenting signed tokens."""
from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from conftest import skiff_binary
from harness.broker import BrokerError, SkiffBroker
from harness.certs import SERVER_EXT, make_ca, make_cert
from harness.oauth_idp import AUDIENCE, ISSUER, IdentityProvider, SigningKey, claims
from harness.sasl_wire import (assert_closed, connect, frame, metadata_ok, oauthbearer_first, recv_frame,
                               sasl_authenticate, sasl_handshake, unsecured_jws)
from harness.secure_roundtrip import confluent_settings_roundtrip

VALIDATOR = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler"
INVALID = '{"status":"invalid_token"}'


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("oauth-certs")
    make_ca(d, "ca")
    make_cert(d, "ca", "server", "/CN=localhost", SERVER_EXT)
    return d


@pytest.fixture(scope="module")
def idp(certs):
    p = IdentityProvider(certs)
    p.keys = [SigningKey("rsa-1", "RS256"), SigningKey("ec-1", "ES256"), SigningKey("pss-1", "PS256")]
    p.signer = p.keys[0]
    p.start()
    yield p
    p.stop()


def overrides(certs: Path, idp: IdentityProvider, **extra) -> dict[str, str]:
    jaas = ('org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
            f'ssl.truststore.location="{certs / "ca.pem"}" ssl.truststore.type="PEM";')
    o = {
        "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "OAUTHBEARER",
        "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class": VALIDATOR,
        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config": jaas,
        "sasl.oauthbearer.jwks.endpoint.url": idp.jwks_url,
        "sasl.oauthbearer.expected.audience": AUDIENCE,
        "sasl.oauthbearer.expected.issuer": ISSUER,
        "skiff.sasl.oauthbearer.allowed.urls": idp.jwks_url,
        "num.partitions": "1",
        "skiff.log.level": "debug",
    }
    o.update(extra)
    return {k: v for k, v in o.items() if v is not None}


@pytest.fixture(scope="module")
def broker(certs, idp, tmp_path_factory):
    d = tmp_path_factory.mktemp("oauth-broker")
    b = SkiffBroker(skiff_binary(), d / "data", d, overrides(certs, idp))
    b.start()
    b.port = b.listener_ports()["SASL_PLAINTEXT"]
    yield b
    b.stop()


def once(client):
    if client.name != "kcat":
        pytest.skip("speaks the SASL exchange on a raw socket; covered by the kcat run")


def authenticate(port: int, token: str) -> tuple[int, str | None]:
    """(error code, message) of one OAUTHBEARER exchange; a refused token's
    challenge is answered with \\x01 as Kafka's clients do, and checked."""
    s = connect(port)
    assert sasl_handshake(s, "OAUTHBEARER") == (0, ["OAUTHBEARER"])
    first = oauthbearer_first(token)
    s.sendall(frame(36, 1, len(first).to_bytes(4, "big") + first))
    r = recv_frame(s)
    err = int.from_bytes(r[4:6], "big")
    if err == 0 and INVALID.encode() in r:
        err, msg, _ = sasl_authenticate(s, b"\x01")
        assert_closed(s)
        return err, msg
    n = int.from_bytes(r[6:8], "big", signed=True)
    msg = None if n < 0 else r[8:8 + n].decode()  # Kafka 4.4 answers "" (not null) on success
    if err == 0:
        assert metadata_ok(s)
    s.close()
    return err, msg


def test_signed_tokens_authenticate(client, broker, idp):
    once(client)
    for key in idp.keys:
        assert authenticate(broker.port, key.sign(claims())) == (0, ""), key.alg
    # A list audience, another subject claim value, a scope list.
    assert authenticate(broker.port, idp.keys[1].sign(claims(aud=["other", AUDIENCE], scope=["a", "b"]))) == (0, "")


@pytest.mark.parametrize("case", ["expired", "not-yet-valid", "wrong-audience", "no-audience", "wrong-issuer",
                                  "unknown-key", "tampered", "unsecured", "no-sub", "no-iat"])
def test_refused_tokens(client, broker, idp, case):
    once(client)
    key = idp.keys[0]
    now = int(time.time())
    tokens = {
        "expired": lambda: key.sign(claims(lifetime_s=-60)),  # past the 30 s of clock skew
        "not-yet-valid": lambda: key.sign(claims(nbf=now + 120)),
        "wrong-audience": lambda: key.sign(claims(aud="someone-else")),
        "no-audience": lambda: key.sign({k: v for k, v in claims().items() if k != "aud"}),
        "wrong-issuer": lambda: key.sign(claims(iss="https://evil.test")),
        "unknown-key": lambda: SigningKey("stranger", "RS256").sign(claims()),
        "tampered": lambda: key.sign(claims())[:-4] + "AAAA",
        "unsecured": lambda: unsecured_jws(claims()),
        "no-sub": lambda: key.sign({k: v for k, v in claims().items() if k != "sub"}),
        "no-iat": lambda: key.sign({k: v for k, v in claims().items() if k != "iat"}),
    }
    assert authenticate(broker.port, tokens[case]()) == (58, INVALID)
    broker.log_wait(r"Could not validate the access token|sub value must be non-null")


def test_key_rotation(client, broker, idp):
    once(client)
    old = idp.keys[0]
    new = SigningKey("rsa-2", "RS256")
    before = idp.jwks_fetches
    idp.keys = [new] + idp.keys[1:]  # rsa-2 appears, rsa-1 leaves
    try:
        deadline = time.monotonic() + 15
        while authenticate(broker.port, new.sign(claims())) != (0, ""):
            assert time.monotonic() < deadline, "the new key id never fetched"
            time.sleep(0.2)
        assert idp.jwks_fetches > before
        assert authenticate(broker.port, old.sign(claims())) == (58, INVALID)
        broker.log_wait(r"OAuth JWKS refresh of \S+ complete")
    finally:  # the broker keeps rsa-2 until its next refresh: later tests use the other keys
        idp.keys = [old] + idp.keys[1:]


def test_failed_refresh_keeps_the_keys(client, broker, idp):
    once(client)
    idp.jwks_down = True
    try:
        before = idp.jwks_fetches
        # A new key id asks for a refresh, which fails (retried for
        # retry.backoff.max.ms, 10 s); the keys fetched before still verify.
        assert authenticate(broker.port, SigningKey("rsa-new", "RS256").sign(claims())) == (58, INVALID)
        assert authenticate(broker.port, idp.keys[1].sign(claims())) == (0, "")
        broker.log_wait(r"OAuth JWKS refresh of \S+ encountered an error; not updating local JWKS cache", timeout=20)
        assert idp.jwks_fetches > before + 1  # retried
        assert authenticate(broker.port, idp.keys[2].sign(claims())) == (0, "")
    finally:
        idp.jwks_down = False


def test_jwks_file_and_mechanism_prefixed_keys(client, certs, idp, tmp_path):
    once(client)
    key = SigningKey("file-1", "ES256")
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [key.jwk]}))
    url = f"file:{jwks}"
    prefix = "listener.name.sasl_plaintext.oauthbearer."
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, overrides(
        certs, idp, **{"sasl.oauthbearer.jwks.endpoint.url": "https://unused.test/jwks",
                       prefix + "sasl.oauthbearer.jwks.endpoint.url": url,
                       prefix + "sasl.oauthbearer.expected.audience": "file-audience",
                       "skiff.sasl.oauthbearer.allowed.urls": url}))
    b.start()
    try:
        port = b.listener_ports()["SASL_PLAINTEXT"]
        assert authenticate(port, key.sign(claims(aud="file-audience"))) == (0, "")
        assert authenticate(port, key.sign(claims())) == (58, INVALID)  # aud "kafka" is not this listener's
        # The file changes: the next token reads it again.
        rotated = SigningKey("file-2", "RS256")
        jwks.write_text(json.dumps({"keys": [rotated.jwk]}))
        time.sleep(0.05)
        import os
        os.utime(jwks, (time.time() + 1, time.time() + 1))
        assert authenticate(port, rotated.sign(claims(aud="file-audience"))) == (0, "")
        assert authenticate(port, key.sign(claims(aud="file-audience"))) == (58, INVALID)
    finally:
        b.stop()


@pytest.mark.parametrize("case,expect", [
    ("no-audience", "requires \"sasl.oauthbearer.expected.audience\""),
    ("no-issuer", "requires \"sasl.oauthbearer.expected.issuer\""),
    ("not-allowed", "The URL cannot be accessed due to restrictions"),
    ("no-url", "requires \"sasl.oauthbearer.jwks.endpoint.url\""),
    ("unreachable", "Could not refresh JWKS"),
])
def test_configuration_kafka_refuses(client, certs, idp, tmp_path, case, expect):
    once(client)
    extra = {"no-audience": {"sasl.oauthbearer.expected.audience": None},
             "no-issuer": {"sasl.oauthbearer.expected.issuer": None},
             "not-allowed": {"skiff.sasl.oauthbearer.allowed.urls": None},
             "no-url": {"sasl.oauthbearer.jwks.endpoint.url": None},
             "unreachable": {"sasl.oauthbearer.jwks.endpoint.url": "https://localhost:1/jwks",
                             "skiff.sasl.oauthbearer.allowed.urls": "https://localhost:1/jwks"}}[case]
    b = SkiffBroker(skiff_binary(), tmp_path / "data", tmp_path, overrides(certs, idp, **extra))
    with pytest.raises(BrokerError, match=expect.replace("(", r"\(")):
        b.start()


# --- real clients against the token endpoint ---------------------------------

def test_librdkafka_oidc_client_credentials(client, broker, idp, certs):
    if client.name != "confluent_kafka":
        pytest.skip("librdkafka's sasl.oauthbearer.method=oidc, through confluent-kafka")
    conf = {"security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "OAUTHBEARER",
            "sasl.oauthbearer.method": "oidc", "sasl.oauthbearer.client.id": "kafka-client",
            "sasl.oauthbearer.client.secret": "client-secret", "sasl.oauthbearer.token.endpoint.url": idp.token_url,
            "sasl.oauthbearer.scope": "kafka", "https.ca.location": str(certs / "ca.pem")}
    bootstrap = f"127.0.0.1:{broker.port}"
    topic = "oidc-" + uuid.uuid4().hex[:8]
    before = idp.token_requests
    assert confluent_settings_roundtrip(bootstrap, topic, conf, 5) == [f"v{i}" for i in range(5)]
    assert idp.token_requests > before
    # Tokens signed by a key the JWKS does not have are refused.
    idp.signer = SigningKey("rogue", "RS256")
    try:
        with pytest.raises(PermissionError):
            confluent_settings_roundtrip(bootstrap, topic + "-x", conf, 1)
    finally:
        idp.signer = idp.keys[0]


def test_java_login_callback_handler(client, broker, idp, certs, tmp_path):
    if client.name != "java":
        pytest.skip("the Java client's OAuthBearerLoginCallbackHandler")
    from harness.java_check import run_java_check
    from harness.secure_roundtrip import JAVA_CHECK
    props = tmp_path / "client.properties"
    props.write_text("\n".join([
        "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=OAUTHBEARER",
        "sasl.login.callback.handler.class="
        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
        f"sasl.oauthbearer.token.endpoint.url={idp.token_url}",
        "sasl.oauthbearer.client.credentials.client.id=kafka-client",
        "sasl.oauthbearer.client.credentials.client.secret=client-secret",
        "sasl.oauthbearer.scope=kafka",
        "sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
        f'ssl.truststore.location="{certs / "ca.pem"}" ssl.truststore.type="PEM";']) + "\n")
    before = idp.token_requests
    r = run_java_check(JAVA_CHECK, f"127.0.0.1:{broker.port}", "java-oidc-" + uuid.uuid4().hex[:8], str(props),
                       "5", "30000", "0", timeout=120,
                       jvm_args=(f"-Dorg.apache.kafka.sasl.oauthbearer.allowed.urls={idp.token_url}",),
                       jars=("jose4j",))  # the client's OAuth login needs it (an optional dependency)
    assert r.returncode == 0, f"{r.result} {r.stderr_tail}"
    assert r.result.get("consumed") == 5
    assert idp.token_requests > before


def test_clients_present_signed_tokens(client, broker, idp):
    """kafka-python's token provider and the drivers' bearer token: a token
    signed by a JWKS key is accepted, one signed by another key refused."""
    if client.name not in ("kafka_python", "kafkajs", "franz_go"):
        pytest.skip("covered by the token-endpoint tests (librdkafka, Java) and the kcat run")
    from harness.secure_roundtrip import driver_roundtrip, kafka_python_settings_roundtrip

    def roundtrip(token: str, topic: str) -> list[str]:
        bootstrap = f"127.0.0.1:{broker.port}"
        if client.name == "kafka_python":
            from kafka.sasl.oauth import AbstractTokenProvider

            class Provider(AbstractTokenProvider):
                def token(self):
                    return token
            conf = {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "OAUTHBEARER",
                    "sasl_oauth_token_provider": Provider()}
            return kafka_python_settings_roundtrip(bootstrap, topic, conf, 3)
        sec = {"protocol": "SASL_PLAINTEXT", "mechanism": "OAUTHBEARER", "token": token}
        return driver_roundtrip(client, bootstrap, topic, sec, 3, timeout=30)

    topic = "signed-" + uuid.uuid4().hex[:8]
    assert roundtrip(idp.keys[1].sign(claims(lifetime_s=600)), topic) == ["v0", "v1", "v2"]
    # kafkajs does not answer OAUTHBEARER's error challenge with \x01 (it takes
    # the challenge for success); its next request closes the connection, as
    # Kafka's broker closes it: a failure, not an authentication error.
    refused = (PermissionError, AssertionError) if client.name == "kafkajs" else PermissionError
    with pytest.raises(refused):
        roundtrip(SigningKey("rogue", "ES256").sign(claims(lifetime_s=600)), topic + "-x")
