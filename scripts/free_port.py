#!/usr/bin/env python3
"""A free loopback TCP port: the one place scripts pick one.

Binding port 0 and closing the socket leaves the port free for the caller to
bind, but the kernel may offer the same number again before the caller has:
two picks in a row can collide. free_port() never returns a port this
process handed out before, nor one in `exclude`.

  python3 scripts/free_port.py [EXCLUDED...]   # prints one port (shell scripts)
  from free_port import free_port              # Python: bench/brokers.py, the pytest harness
"""
import socket
import sys

_HANDED_OUT = set()


def free_port(exclude=()):
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _HANDED_OUT and port not in exclude:
            _HANDED_OUT.add(port)
            return port


if __name__ == "__main__":
    print(free_port({int(p) for p in sys.argv[1:]}))
