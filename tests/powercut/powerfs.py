"""Python control of powerfs (powerfs.cc): mount a power-cut test file
system over a work dir, cut the power (unmount: the daemon rewrites the
backing dir to what a disk would hold), mount again.

    fs = PowerFs(binary, work_dir)   # work_dir/live is the backing dir
    fs.mount()                       # fs.mnt is the mount point
    ...                              # every process using fs.mnt must be gone
    fs.cut(tear=False, seed=1)       # the power cut; then mount() again

Each wait is bounded. Needs /dev/fuse and fusermount3 (Debian's fuse3)."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path


def unavailable(binary: str | None) -> str | None:
    """Why powerfs cannot run here, or None."""
    if not binary or not Path(binary).is_file():
        return f"no powerfs binary ({binary}): build target skiff_powerfs (needs libfuse3-dev)"
    if not os.access("/dev/fuse", os.R_OK | os.W_OK):
        return "/dev/fuse is not usable here"
    if not shutil.which("fusermount3"):
        return "no fusermount3 (Debian package fuse3)"
    return None


class PowerFs:
    def __init__(self, binary: str, work: Path):
        self.binary, self.work = binary, Path(work)
        self.live, self.grave, self.mnt = self.work / "live", self.work / "grave", self.work / "mnt"
        for d in (self.live, self.mnt):
            d.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen | None = None
        self.cuts = 0
        self.accounts: list[str] = []

    def mount(self, tear: bool = False, seed: int = 1, timeout: float = 10.0) -> None:
        args = [self.binary, "--live", str(self.live), "--grave", str(self.grave), "--seed", str(seed)]
        if tear:
            args.append("--tear")
        if os.environ.get("POWERFS_VERBOSE"):
            args.append("--verbose")
        self.proc = subprocess.Popen(args + [str(self.mnt)], stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + timeout
        while not os.path.ismount(self.mnt):
            if self.proc.poll() is not None:
                raise RuntimeError(f"powerfs exited {self.proc.returncode}: {self.proc.stderr.read()}")
            if time.monotonic() > deadline:
                raise RuntimeError("powerfs did not mount in time")
            time.sleep(0.02)

    def cut(self, timeout: float = 60.0) -> str:
        """The power cut: unmount; the daemon rebuilds live/ and exits."""
        assert self.proc is not None, "not mounted"
        deadline = time.monotonic() + timeout
        while subprocess.run(["fusermount3", "-u", str(self.mnt)], capture_output=True).returncode != 0:
            if time.monotonic() > deadline:
                subprocess.run(["fusermount3", "-u", "-z", str(self.mnt)], capture_output=True)
                break
            time.sleep(0.05)  # a dying process may still hold a file
        _, errs = self.proc.communicate(timeout=timeout)
        rc, self.proc = self.proc.returncode, None
        if rc != 0:
            raise RuntimeError(f"powerfs cut failed ({rc}): {errs}")
        self.cuts += 1
        account = errs.strip()[errs.find("powerfs: cut"):] if errs.strip() else ""
        self.accounts.append(account)
        return account

    def close(self) -> None:
        """Unmount if mounted (a cut, whose result nobody reads)."""
        if self.proc is not None:
            try:
                self.cut(timeout=20)
            except Exception:  # noqa: BLE001 - teardown: best effort
                if self.proc is not None:
                    self.proc.kill()
