"""A real hapticd --simulate on a temporary socket for the tests, as the C tests and
scripts/cli-test.sh start it. ``$HAPTICD`` is the daemon binary (default: the Swift build's),
``$HAPTICD_REPO`` the repository root (default: two levels up)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Tuple

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package, uninstalled

REPO = Path(os.environ.get("HAPTICD_REPO", HERE.parents[2]))

Row = Tuple[float, int, int, int]


def _daemon_binary() -> str:
    env = os.environ.get("HAPTICD")
    if env:
        return env
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=REPO, capture_output=True, text=True, check=True)
    return os.path.join(out.stdout.strip(), "hapticd")


class Daemon:
    """hapticd --simulate N with a trace file; ``rows()`` reads what reached the pads."""

    def __init__(self, extra_config: str = "", pads: int = 2) -> None:
        self.bin = _daemon_binary()
        if not os.access(self.bin, os.X_OK):
            raise RuntimeError(f"{self.bin} is missing: run `swift build --product hapticd` (or set $HAPTICD)")
        self.dir = tempfile.mkdtemp(prefix="hapticd-pytest-")
        os.chmod(self.dir, 0o755)
        self.sock = os.path.join(self.dir, "h.sock")
        self.trace = os.path.join(self.dir, "trace.csv")
        self.log = os.path.join(self.dir, "hapticd.log")
        self.config = os.path.join(self.dir, "hapticd.toml")
        self.pads = pads
        with open(self.config, "w") as f:
            f.write(f'[patterns]\ndirectories = ["{REPO}/config/patterns"]\n{extra_config}')
        self.proc: Optional[subprocess.Popen] = None
        self.launch()

    def launch(self) -> None:
        log = open(self.log, "w")
        self.proc = subprocess.Popen(
            [self.bin, "--config", self.config, "--socket", self.sock, "--trace", self.trace, "--simulate", str(self.pads)],
            stdout=log,
            stderr=log,
        )
        log.close()
        # Ready when it says it listens (a probe connection would count against its limits).
        end = time.monotonic() + 15
        while time.monotonic() < end:
            if "listening on" in Path(self.log).read_text():
                return
            if self.proc.poll() is not None:
                raise RuntimeError("hapticd exited: " + Path(self.log).read_text())
            time.sleep(0.01)
        raise RuntimeError("hapticd did not listen within 15 s: " + Path(self.log).read_text())

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.terminate()
        code = self.proc.wait(10)
        self.proc = None
        return code

    def kill(self) -> None:
        """SIGKILL and wait: when this returns, the kernel has closed the daemon's sockets."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)
        self.proc = None

    def cleanup(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def rows(self) -> List[Row]:
        try:
            text = Path(self.trace).read_text()
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines()[1:]:
            f = line.split(",")
            if len(f) == 4:
                try:
                    out.append((float(f[0]), int(f[1]), int(f[2]), int(f[3])))
                except ValueError:
                    pass
        return out

    def last_time(self) -> float:
        r = self.rows()
        return r[-1][0] if r else 0.0

    def wait_trace(self, pred: Callable[[List[Row]], bool], timeout: float = 5) -> bool:
        """Waits (bounded) until ``pred`` holds over the trace."""
        end = time.monotonic() + timeout
        while True:
            if pred(self.rows()):
                return True
            if time.monotonic() >= end:
                return False
            time.sleep(0.005)

    # Predicates over one pad's rows after a time.
    def active_after(self, device: int, after: float, timeout: float = 5) -> Optional[float]:
        found: List[float] = []

        def pred(rows: List[Row]) -> bool:
            for t, d, s, w in rows:
                if d == device and t >= after and (s or w):
                    found.append(t)
                    return True
            return False

        return found[0] if self.wait_trace(pred, timeout) else None

    def still_after(self, device: int, after: float, timeout: float = 5) -> bool:
        """It moved after ``after`` and its last write is silent."""

        def pred(rows: List[Row]) -> bool:
            mine = [r for r in rows if r[1] == device and r[0] >= after]
            return any(r[2] or r[3] for r in mine) and not (mine[-1][2] or mine[-1][3])

        return self.wait_trace(pred, timeout)

    def last_is(self, device: int, after: float, silent: bool, timeout: float = 5) -> bool:
        def pred(rows: List[Row]) -> bool:
            mine = [r for r in rows if r[1] == device and r[0] >= after]
            return bool(mine) and (not (mine[-1][2] or mine[-1][3])) == silent

        return self.wait_trace(pred, timeout)


@pytest.fixture(scope="session")
def daemon() -> Iterator[Daemon]:
    d = Daemon()
    yield d
    code = d.stop()
    d.cleanup()
    assert code == 0


@pytest.fixture
def make_daemon() -> Iterator[Callable[..., Daemon]]:
    made: List[Daemon] = []

    def make(extra_config: str = "", pads: int = 1) -> Daemon:
        d = Daemon(extra_config, pads)
        made.append(d)
        return d

    yield make
    for d in made:
        d.cleanup()


@pytest.fixture
def full_socket(tmp_path: Path) -> Iterator[str]:
    """The path of a socket whose queue of connections not yet accepted is full, as a hung
    daemon's fills up: listened on with room for one, that one taken, nothing ever accepted."""
    path = str(tmp_path / "full.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(0)
    held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    held.connect(path)  # the queue's one place
    try:
        yield path
    finally:
        held.close()
        listener.close()
