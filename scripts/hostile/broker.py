"""The real skiff binary as a child process for the hostile-input script:
started on 127.0.0.1 with a free port, its output in a file, and the checks
made after every attack: the process is alive and kcat still produces and
consumes.
"""
import os
import re
import signal
import subprocess
import time
import uuid


class Broker:
    def __init__(self, binary, data_dir, overrides=(), out_path=None):
        self.data_dir = data_dir
        self.out_path = out_path or data_dir.rstrip("/") + ".out"
        args = [binary, "--override", "listeners=PLAINTEXT://127.0.0.1:0",
                "--override", "http.listeners=http://127.0.0.1:0", "--override", "log.dirs=" + data_dir]
        for o in overrides:
            args += ["--override", o]
        self.out = open(self.out_path, "w")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SKIFF_")}  # SKIFF_* would be config
        self.proc = subprocess.Popen(args, stdout=self.out, stderr=subprocess.STDOUT, env=env)
        self.port = self._wait_started()

    def _wait_started(self, timeout=20.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = re.search(r"started in .* advertised as [^ ]+:(\d+)", self.output())
            if m:
                return int(m.group(1))
            if self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.kill()
        raise RuntimeError("skiff did not start:\n" + self.output()[-3000:])

    @property
    def pid(self):
        return self.proc.pid

    def output(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=20.0):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()
        return self.proc.returncode

    def kill(self):
        return self.stop(signal.SIGKILL)

    def check_clients(self):
        """None if kcat still produces and consumes, else what went wrong."""
        return produce_and_consume(self.port)

    def cpu_seconds(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def open_fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))


def kcat(port, args, data=None, timeout=30):
    cmd = ["kcat", "-b", "127.0.0.1:%d" % port, "-X", "socket.timeout.ms=10000"] + args
    return subprocess.run(cmd, input=data, capture_output=True, timeout=timeout)


def produce_and_consume(port, topic="hostile-check"):
    """A normal client still works: kcat produces a unique line and reads it back."""
    line = "check-" + uuid.uuid4().hex
    p = kcat(port, ["-P", "-t", topic, "-p", "0", "-X", "message.timeout.ms=15000"], (line + "\n").encode())
    if p.returncode != 0:
        return "kcat produce failed: " + p.stderr.decode(errors="replace")[-500:]
    c = kcat(port, ["-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-q"])
    if line not in c.stdout.decode(errors="replace"):
        return "kcat did not read back its line: " + c.stderr.decode(errors="replace")[-500:]
    return None
