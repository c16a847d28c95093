"""``python3 -m hapticd`` as a user runs it: output, exit status, messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import Daemon

PKG = str(Path(__file__).resolve().parents[1])


def cli(*args: str, sock: str, cwd=None):
    env = dict(os.environ, PYTHONPATH=PKG, HAPTICD_SOCKET=sock)
    return subprocess.run([sys.executable, "-m", "hapticd", *args], env=env, capture_output=True, text=True, timeout=60, cwd=cwd)


def test_play_waits_for_the_end(daemon: Daemon):
    after = daemon.last_time()
    r = cli("play", "heartbeat", sock=daemon.sock)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("playing heartbeat (player ") and r.stdout.rstrip().endswith("finished (finished)")
    assert daemon.still_after(0, after)


def test_files_told_from_names_as_hapticctl_does(daemon: Daemon, tmp_path):
    """A .haptic clip named without a directory plays as hapticctl plays it (not "no pattern named")."""
    (tmp_path / "clip.haptic").write_text(
        '{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":'
        '{"amplitude":[{"time":0,"amplitude":0.5},{"time":0.3,"amplitude":1}]}}}}')
    (tmp_path / "Tap.AHAP").write_text('{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}')
    (tmp_path / "plain").write_text('{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}')
    for name in ("clip.haptic", "Tap.AHAP", "plain"):
        after = daemon.last_time()
        r = cli("play", name, sock=daemon.sock, cwd=tmp_path)
        assert r.returncode == 0, (name, r.stderr)
        assert daemon.still_after(0, after), name
    r = cli("play", "missing.haptic", sock=daemon.sock, cwd=tmp_path)
    assert r.returncode == 1 and "cannot open the pattern file missing.haptic" in r.stderr, r.stderr


def test_commands(daemon: Daemon):
    r = cli("devices", sock=daemon.sock)
    assert r.returncode == 0 and "1: Simulated rumble pad 1" in r.stdout
    r = cli("--json", "patterns", sock=daemon.sock)
    assert any(p["name"] == "heartbeat" for p in json.loads(r.stdout))
    r = cli("caps", "--device", "1", sock=daemon.sock)
    assert "localities: default, all, handles, leftHandle, rightHandle" in r.stdout
    r = cli("feedback", "impact", "heavy", sock=daemon.sock)
    assert r.returncode == 0 and r.stdout.startswith("impact heavy (player ")
    r = cli("rumble", "0.5", "0.5", "--for", "0.1", sock=daemon.sock)
    assert r.returncode == 0 and "rumbling 0.5/0.5 for 0.1 s" in r.stdout
    assert cli("ping", sock=daemon.sock).stdout.strip() == "pong"
    assert cli("stop", sock=daemon.sock).stdout.startswith("stopped ")


def test_errors(daemon: Daemon, tmp_path):
    r = cli("play", "nope", sock=daemon.sock)
    assert r.returncode == 1 and 'no pattern named "nope"' in r.stderr
    r = cli("ping", sock=str(tmp_path / "none.sock"))
    assert r.returncode == 2 and "hapticd is not running at " + str(tmp_path / "none.sock") in r.stderr
    bad = tmp_path / "bad.ahap"
    bad.write_text('{"Pattern": [\n  {"Event": {"EventType": "Buzz"}}\n]}')
    r = cli("play", str(bad), sock=daemon.sock)
    assert r.returncode == 1 and "Pattern[0].Event" in r.stderr


def test_arguments_refused_before_sending(daemon: Daemon):
    """Out of range for the library: its message on one line and exit status 1, not a traceback."""
    for args, words in (
        (("rumble", "2", "0", "--for", "0.5"), "strong must be within 0…1, not 2.0"),
        (("feedback", "impact", "heavy", "--intensity", "7"), "intensity must be within 0…1, not 7.0"),
        (("play", "heartbeat", "--rate", "nan"), "rate must be a finite number"),
        (("--app", "has space", "ping"), "without spaces or control characters"),
    ):
        r = cli(*args, sock=daemon.sock)
        assert r.returncode == 1, (args, r.stderr)
        assert r.stderr.startswith("hapticd: ") and words in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "Traceback" not in r.stderr
