"""test_sasl.py's and test_tls.py's produce-and-read-back for the clients
behind a JSON driver (kafkajs, franz-go): the request's "security" object
(drivers/README.md) carries the listener's protocol, SASL credentials and
TLS files; and for the Java client, through SecureClientCheck.java."""
from __future__ import annotations

import uuid
from pathlib import Path

from .clients import Client, DriverAuthError, JsonDriver, make
from .data import Rec
from .java_check import run_java_check

JAVA_CHECK = Path(__file__).parent.parent / "java_security" / "SecureClientCheck.java"


def driver_roundtrip(client: str | Client, bootstrap: str, topic: str, security: dict | None, n: int,
                     timeout: float = 60) -> list[str]:
    """Produces v0..v{n-1} to partition 0 of `topic` and reads them back from
    offset 0 through the driver, both with `security`; the values read, as
    text. PermissionError when the driver reports that the broker refused its
    credentials (any other failure is a DriverError)."""
    drv = make(client) if isinstance(client, str) else client
    if not isinstance(drv, JsonDriver):
        raise TypeError(f"{drv.name} has no JSON driver")
    drv = drv.secured(security)
    try:
        results = drv.produce(bootstrap, topic, [Rec(p=0, k=None, v=f"v{i}".encode()) for i in range(n)],
                              timeout=timeout)
        refused = [r for r in results if r.get("auth")]
        if refused:
            raise PermissionError(f"{drv.name} produce: {refused[0]['error']}")
        errors = [r for r in results if "error" in r or r.get("dropped")]
        assert not errors, f"{drv.name} produce over {(security or {}).get('protocol')}: {errors[:3]}"
        recs, _ = drv.consume(bootstrap, topic, {0: 0}, {0: n}, timeout=timeout)
    except DriverAuthError as e:
        raise PermissionError(str(e)) from e
    return [r.v.decode() for r in recs]


def sasl_roundtrip(client: str):
    """test_sasl.py's form: (bootstrap, topic, security, n) -> values."""
    def rt(bootstrap, topic, security, n):
        return driver_roundtrip(client, bootstrap, topic, security, n)
    return rt


def tls_roundtrip(client: str):
    """test_tls.py's form: (bootstrap, topic, certs, client_cert, n) -> values,
    with certs/ca.pem and, for mutual TLS, certs/client.crt and client.key."""
    def rt(bootstrap, topic, certs: Path, client_cert: bool, n):
        security = {"protocol": "SSL", "ca": str(certs / "ca.pem"),
                    "cert": str(certs / "client.crt") if client_cert else None,
                    "key": str(certs / "client.key") if client_cert else None}
        return driver_roundtrip(client, bootstrap, topic, security, n)
    return rt


JAVA_LOGIN = {"PLAIN": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="{user}" '
                       'password="{password}";',
              "OAUTHBEARER": 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required '
                             'unsecuredLoginStringClaim_sub="{user}"{claims};'}


def java_properties(sec: dict) -> str:
    """The Java client's settings for `sec` (test_sasl.py's security dict;
    "java_claims" adds options to the OAUTHBEARER login module)."""
    login = JAVA_LOGIN.get(sec["mechanism"], 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                             'username="{user}" password="{password}";')
    lines = [f"security.protocol={sec['protocol']}", f"sasl.mechanism={sec['mechanism']}",
             "sasl.jaas.config=" + login.format(claims=sec.get("java_claims", ""), **sec)]
    if sec["protocol"] == "SASL_SSL":
        lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={sec['ca']}"]
    return "\n".join(lines) + "\n"


def java_sasl_roundtrip(bootstrap: str, topic: str, sec: dict, n: int, pause_ms: int = 0) -> list[str]:
    """test_sasl.py's form, through java_security/SecureClientCheck.java;
    `pause_ms` between producing and consuming (re-authentication)."""
    props = Path(sec["ca"]).parent / f"client-{uuid.uuid4().hex[:8]}.properties"
    props.write_text(java_properties(sec))
    r = run_java_check(JAVA_CHECK, bootstrap, topic, str(props), str(n), "30000", str(pause_ms), timeout=120)
    if r.result.get("error") in ("SaslAuthenticationException", "AuthenticationException"):
        raise PermissionError(r.result["error"])
    assert r.returncode == 0, f"{r.result} {r.stderr_tail}"
    return [f"v{i}" for i in range(r.result["consumed"])]
