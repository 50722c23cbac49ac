"""test_sasl.py's and test_tls.py's produce-and-read-back for the clients
behind a JSON driver (kafkajs, franz-go): the request's "security" object
(drivers/README.md) carries the listener's protocol, SASL credentials and
TLS files; and for the Java client, through SecureClientCheck.java."""
from __future__ import annotations

import subprocess
import time
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
    "java_claims" adds options to the OAUTHBEARER login module, "token_auth"
    makes a SCRAM login a delegation token's)."""
    login = JAVA_LOGIN.get(sec["mechanism"], 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                                             'username="{user}" password="{password}"'
                                             + (' tokenauth="true"' if sec.get("token_auth") else "") + ";")
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


# --- round trips from a client's own settings (test_sasl.py, test_tls.py) ---
# Each produces v0..v{n-1} to partition 0 of `topic` and reads them back from
# the beginning with the settings given in the client's own names; the values
# read. PermissionError when producing fails (a refused login).

def kcat_settings_roundtrip(bootstrap: str, topic: str, conf: dict[str, str], n: int) -> list[str]:
    opts = [arg for k, v in conf.items() for arg in ("-X", f"{k}={v}")]
    data = "".join(f"v{i}\n" for i in range(n))
    p = subprocess.run(["kcat", "-b", bootstrap, "-P", "-t", topic, "-p", "0", *opts], input=data, text=True,
                       capture_output=True, timeout=60)
    if p.returncode != 0:
        raise PermissionError(p.stderr[-2000:])
    p = subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e",
                        "-c", str(n), *opts], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    return p.stdout.split()


def confluent_settings_roundtrip(bootstrap: str, topic: str, conf: dict[str, str], n: int) -> list[str]:
    import confluent_kafka as ck
    conf = {"bootstrap.servers": bootstrap, **conf}
    errors = []
    p = ck.Producer({**conf, "error_cb": errors.append, "message.timeout.ms": 15000})
    for i in range(n):
        p.produce(topic, f"v{i}".encode(), partition=0)
    if p.flush(30) != 0 or any(e.code() == ck.KafkaError._AUTHENTICATION for e in errors):
        raise PermissionError(str(errors))
    c = ck.Consumer({**conf, "group.id": "g-" + uuid.uuid4().hex, "auto.offset.reset": "earliest"})
    c.assign([ck.TopicPartition(topic, 0, ck.OFFSET_BEGINNING)])
    out, deadline = [], time.monotonic() + 30
    while len(out) < n and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            out.append(m.value().decode())
    c.close()
    return out


def kafka_python_settings_roundtrip(bootstrap: str, topic: str, conf: dict, n: int) -> list[str]:
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaError
    conf = {"bootstrap_servers": bootstrap, **conf}
    try:  # a refused login: kafka-python retries it until its metadata wait times out
        p = KafkaProducer(**conf, max_block_ms=8000)
        for i in range(n):
            p.send(topic, f"v{i}".encode(), partition=0).get(30)
    except KafkaError as e:
        raise PermissionError(repr(e)) from e
    p.close()
    c = KafkaConsumer(**conf, consumer_timeout_ms=15000)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    out = []
    for m in c:
        out.append(m.value.decode())
        if len(out) == n:
            break
    c.close()
    return out
