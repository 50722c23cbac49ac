"""test_sasl.py's and test_tls.py's produce-and-read-back for the clients
behind a JSON driver (kafkajs, franz-go): the request's "security" object
(drivers/README.md) carries the listener's protocol, SASL credentials and
TLS files."""
from __future__ import annotations

from pathlib import Path

from .clients import Client, DriverAuthError, JsonDriver, make
from .data import Rec


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
