"""The SASL exchange on a raw socket, for tests that drive it byte by byte
(test_sasl.py, test_oauthbearer.py): Kafka request frames, SaslHandshake v1
and SaslAuthenticate v1, and an unsecured JWS (RFC 7515, "alg":"none") as
Kafka's OAuthBearerUnsecuredLoginCallbackHandler builds it."""
from __future__ import annotations

import base64
import json
import socket
import struct
import time

from .wire import recv_exact


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsecured_jws(claims: dict, header: dict | None = None, signature: bytes = b"") -> str:
    """header.claims.signature, each base64url without padding; an unsecured
    JWS has header {"alg":"none"} and an empty signature."""
    def part(obj) -> str:
        return b64url(json.dumps(obj).encode())
    return f"{part(header or {'alg': 'none'})}.{part(claims)}.{b64url(signature)}"


def alice_token(lifetime_s: float = 3600, **claims) -> str:
    now = time.time()
    return unsecured_jws({"sub": "alice", "iat": now, "exp": now + lifetime_s, **claims})


def oauthbearer_first(token: str, authzid: str = "") -> bytes:
    """RFC 7628's client-first message, as Kafka's clients send it."""
    a = f"a={authzid}" if authzid else ""
    return f"n,{a},\x01auth=Bearer {token}\x01\x01".encode()


def frame(api: int, version: int, body: bytes, corr: int = 7) -> bytes:
    head = struct.pack(">hhih", api, version, corr, 4) + b"test"
    return struct.pack(">i", len(head) + len(body)) + head + body


def recv_frame(s: socket.socket) -> bytes:
    (size,) = struct.unpack(">i", recv_exact(s, 4))
    return recv_exact(s, size)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def sasl_handshake(s, mechanism: str, version: int = 1) -> tuple[int, list[str]]:
    m = mechanism.encode()
    s.sendall(frame(17, version, struct.pack(">h", len(m)) + m))
    r = recv_frame(s)
    err, n = struct.unpack(">hi", r[4:10])
    names, at = [], 10
    for _ in range(n):
        (ln,) = struct.unpack(">h", r[at:at + 2])
        names.append(r[at + 2:at + 2 + ln].decode())
        at += 2 + ln
    return err, names


def sasl_authenticate(s, token: bytes) -> tuple[int, str | None, int]:
    """SaslAuthenticate v1: (error code, error message, session lifetime ms)."""
    s.sendall(frame(36, 1, struct.pack(">i", len(token)) + token))
    r = recv_frame(s)
    (err, ln) = struct.unpack(">hh", r[4:8])
    msg = None if ln < 0 else r[8:8 + ln].decode()
    at = 8 + max(ln, 0)
    (blen,) = struct.unpack(">i", r[at:at + 4])
    (lifetime,) = struct.unpack(">q", r[at + 4 + blen:at + 12 + blen])
    return err, msg, lifetime


def metadata_ok(s) -> bool:
    s.sendall(frame(3, 1, struct.pack(">i", -1)))
    return len(recv_frame(s)) > 8


def assert_closed(s: socket.socket, timeout: float = 10.0) -> None:
    s.settimeout(timeout)
    try:
        assert s.recv(1024) == b"", "the broker answered instead of closing"
    except ConnectionResetError:
        pass
