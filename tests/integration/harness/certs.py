"""Test certificates made with the openssl command line at test time (a CA,
certificates it signs, PEM files of key + chain); nothing secret is committed."""
from __future__ import annotations

import subprocess
from pathlib import Path


def openssl(*args: str, cwd: Path) -> None:
    p = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, f"openssl {' '.join(args)}: {p.stderr.decode(errors='replace')}"


def make_ca(d: Path, name: str) -> None:
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", "-subj", f"/CN=Skiff test {name}", cwd=d)


def make_cert(d: Path, ca: str, name: str, subject: str, ext: str) -> None:
    """name.key (PKCS#8), name.crt signed by `ca`, and name.pem = key + chain."""
    (d / f"{name}.ext").write_text(ext + "\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f"{name}.key",
            "-out", f"{name}.csr", "-subj", subject, cwd=d)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-days", "2", "-out", f"{name}.crt", "-extfile", f"{name}.ext", cwd=d)
    (d / f"{name}.pem").write_text((d / f"{name}.key").read_text() + (d / f"{name}.crt").read_text())


SERVER_EXT = "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth"
CLIENT_EXT = "extendedKeyUsage=clientAuth"
