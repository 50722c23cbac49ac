"""A small OAuth/OIDC identity provider for the OAUTHBEARER tests, over HTTPS
(Python's http.server with ssl, the certificate from harness/certs.py): its
JWKS at /jwks (the signing keys' public halves; rotation by changing them) and
a client-credentials token endpoint at /token that issues JWTs signed with
PyJWT. Every key pair is made at test time with `cryptography`."""
from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

ISSUER = "https://idp.skiff.test"
AUDIENCE = "kafka"


class SigningKey:
    """A key pair with its JWK key id and algorithm (RS*/PS* on RSA, ES256 on P-256)."""

    def __init__(self, kid: str, alg: str):
        self.kid, self.alg = kid, alg
        if alg.startswith("ES"):
            self.private = ec.generate_private_key(ec.SECP256R1())
            self.jwk = json.loads(ECAlgorithm.to_jwk(self.private.public_key()))
        else:
            self.private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            self.jwk = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        self.jwk.update({"kid": kid, "use": "sig"})

    def sign(self, claims: dict, kid: str | None = None) -> str:
        return jwt.encode(claims, self.private, algorithm=self.alg, headers={"kid": kid or self.kid})


def claims(sub: str = "alice", lifetime_s: float = 300, **extra) -> dict:
    now = int(time.time())
    return {"sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": int(now + lifetime_s), **extra}


class IdentityProvider:
    """Serves /jwks and /token on https://localhost:<port>. `keys` are in the
    JWKS; `signer` signs issued tokens; `clients` maps client id to secret."""

    def __init__(self, certs: Path):
        self.keys: list[SigningKey] = []
        self.signer: SigningKey | None = None
        self.clients = {"kafka-client": "client-secret"}
        self.jwks_fetches = 0
        self.jwks_down = False  # /jwks answers 503 (a failing identity provider)
        self.token_requests = 0
        self.lock = threading.Lock()
        idp = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, code: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path != "/jwks":
                    return self.reply(404, {"error": "not_found"})
                with idp.lock:
                    idp.jwks_fetches += 1
                    body = {"keys": [k.jwk for k in idp.keys]}
                    down = idp.jwks_down
                self.reply(503, {"error": "unavailable"}) if down else self.reply(200, body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = urllib.parse.parse_qs(self.rfile.read(length).decode())
                client_id, secret = (form.get("client_id") or [None])[0], (form.get("client_secret") or [None])[0]
                auth = self.headers.get("Authorization", "")
                if auth.startswith("Basic "):
                    user, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
                    client_id, secret = urllib.parse.unquote(user), urllib.parse.unquote(pw)
                with idp.lock:
                    idp.token_requests += 1
                    signer = idp.signer
                if self.path != "/token" or (form.get("grant_type") or [""])[0] != "client_credentials":
                    return self.reply(400, {"error": "unsupported_grant_type"})
                if idp.clients.get(client_id) != secret:
                    return self.reply(401, {"error": "invalid_client"})
                scope = (form.get("scope") or [""])[0]
                token = signer.sign(claims(sub=client_id, scope=scope or "kafka"))
                self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 300})

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(certs / "server.crt", certs / "server.key")
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def jwks_url(self) -> str:
        return f"https://localhost:{self.port}/jwks"

    @property
    def token_url(self) -> str:
        return f"https://localhost:{self.port}/token"

    def start(self) -> "IdentityProvider":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
