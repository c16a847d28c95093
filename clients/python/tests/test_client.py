"""The synchronous client against the real hapticd --simulate: effects checked in the daemon's
trace and events, every error with its class and the words of its message."""

from __future__ import annotations

import glob
import os
import pwd
import select
import socket
import threading
from typing import List

import pytest

import hapticd
from hapticd import (
    BadJSONError,
    BadRequestError,
    Client,
    Continuous,
    DisconnectedError,
    HapticdTimeoutError,
    InvalidPatternError,
    LimitExceededError,
    NotFoundError,
    NotRunningError,
    Pattern,
    PermissionDeniedError,
    PlayerInvalidatedError,
    ProtocolError,
    Transient,
    UnknownCommandError,
    UnsupportedError,
)

from conftest import REPO, Daemon


@pytest.fixture
def client(daemon: Daemon):
    with Client(daemon.sock, app="org.hapticd.pytest") as c:
        yield c


def test_not_running(tmp_path):
    path = str(tmp_path / "none.sock")
    with pytest.raises(NotRunningError) as e:
        Client(path)
    assert path in str(e.value) and "hapticd is not running" in str(e.value) and "hapticd --simulate" in str(e.value)
    assert isinstance(e.value, ConnectionError)


def test_a_full_connection_queue_times_out(full_socket):
    # A hung daemon's queue of connections not yet accepted fills up; a blocking connect to it would
    # wait without a bound. Connecting gives up within the client's timeout.
    with pytest.raises(hapticd.HapticdTimeoutError, match="does not accept connections"):
        Client(full_socket, timeout=0.3)


def test_bad_arguments_are_caught_before_anything_is_sent(tmp_path, daemon):
    # A timeout out of set_timeout's range, before connecting (it was tried, and timed out at once).
    with pytest.raises(ValueError, match="timeout must be within 0.001…600"):
        Client(str(tmp_path / "none.sock"), timeout=0)
    with pytest.raises(TypeError, match="not int"):
        Pattern.from_ahap(5)
    # A bound on one side only is said as such (it read "within 0…None").
    with pytest.raises(ValueError, match="after must be ≥ 0"):
        hapticd._core.time_members(after=-1)
    # An app id the daemon would refuse, before connecting (no daemon there: not NotRunningError).
    for bad in ("has space", "a" * 129, ""):
        with pytest.raises(ValueError, match="without spaces or control characters"):
            Client(str(tmp_path / "none.sock"), app=bad)
    # A closed client says so, not that the daemon went away.
    c = Client(daemon.sock, app="org.hapticd.pytest")
    c.close()
    with pytest.raises(DisconnectedError, match="this Client was closed"):
        c.ping()


def test_default_socket_path(daemon, monkeypatch):
    monkeypatch.setenv("HAPTICD_SOCKET", daemon.sock)
    assert hapticd.default_socket_path() == daemon.sock
    with Client() as c:
        assert c.path == daemon.sock
        c.ping()


def _connect_as_outsider(path: str) -> str:
    """Connects as a user outside the socket's group: as root, a child that became nobody."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            if os.getuid() == 0:
                nobody = pwd.getpwnam("nobody")
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            try:
                Client(path)
                msg = "connected"
            except PermissionDeniedError as e:
                msg = "denied " + str(e)
            os.write(w, msg.encode())
        finally:
            os._exit(0)
    os.close(w)
    msg = os.read(r, 4096).decode()
    os.waitpid(pid, 0)
    os.close(r)
    return msg


def test_permission_names_the_group():
    """A socket of group root, mode 0660: the message names the group to join. A socket in a
    directory closed to the user: the message says so."""
    import tempfile

    d = tempfile.mkdtemp(prefix="hapticd-perm-")
    try:
        os.chmod(d, 0o755)
        path = os.path.join(d, "perm.sock")
        ls = socket.socket(socket.AF_UNIX)
        ls.bind(path)
        ls.listen(1)
        os.chmod(path, 0o660 if os.getuid() == 0 else 0)
        msg = _connect_as_outsider(path)
        assert msg.startswith("denied permission denied on " + path)
        assert "usermod -aG" in msg
        if os.getuid() == 0:
            assert "group 'root'" in msg and "0660" in msg
        os.chmod(path, 0o666)
        os.chmod(d, 0o700 if os.getuid() == 0 else 0)
        msg = _connect_as_outsider(path)
        assert msg.startswith("denied permission denied on " + path) and "a directory on the way is closed to you" in msg
        os.chmod(d, 0o755)
        ls.close()
    finally:
        os.chmod(d, 0o755)
        import shutil

        shutil.rmtree(d)


def test_basics(client):
    client.ping()
    v = client.version()
    assert v["protocol"] == 1 and v["version"]
    import re

    assert re.fullmatch(r"\d+\.\d+\.\d+", v["version"]), v  # MAJOR.MINOR.PATCH, as documented
    devices = client.devices()
    assert [d["device"] for d in devices] == [0, 1]
    assert devices[1]["name"] == "Simulated rumble pad 1" and devices[0]["simulated"]
    names = {p["name"]: p for p in client.patterns()}
    assert names["heartbeat"]["duration"] > 0
    caps = client.capabilities(1)
    assert caps["device"] == 1 and "leftHandle" in caps["localities"] and "triggers" not in caps["localities"]
    assert client.request("engine.status", device=1)["running"] is True
    with pytest.raises(UnknownCommandError) as e:
        client.request("nope")
    assert e.value.code == "unknown_command" and "older than the library" in str(e.value)
    assert client.prepare()["engine"] in ("running", "started")


def test_hello_and_policy(client):
    ident = client.hello("org.hapticd.pytest.policy")
    assert ident["app"] == "org.hapticd.pytest.policy" and ident["uid"] == os.getuid() and ident["process"]
    assert client.identity == ident
    pol = client.policy()
    assert pol["mode"] == "full" and pol["profile"] == "full" and pol["max_strength"] == 1
    assert pol["app"]["id"] == "org.hapticd.pytest.policy" and pol["app"]["enabled"] is True and pol["app"]["configured"] is False
    # The daemon's rule for app ids, checked before anything is sent (not the daemon's bad_request).
    for bad in ("has space", "tab\there", "del\x7f", "", "a" * 129, "\ud800"):
        with pytest.raises(ValueError, match="without spaces or control characters") as err:
            client.hello(bad)
        assert not isinstance(err.value, BadRequestError)
        # … the same ids the daemon refuses.
        if bad != "\ud800":
            with pytest.raises(BadRequestError, match="without spaces"):
                client.request("hello", app=bad)
    assert client.hello("org.example.Spielé✓")["app"] == "org.example.Spielé✓"
    assert client.hello("a" * 128)["app"] == "a" * 128


def test_policy_rules(make_daemon):
    """Priority asked and capped, ducking of a lower app by a higher one on the same pad, and
    important feedback through the quiet profile."""
    d = make_daemon(
        "[policy]\nduck = 0.25\n"
        '[[policy.app]]\nid = "org.hapticd.test.high"\npriority = 50\n'
        '[[policy.app]]\nid = "org.hapticd.test.reader"\nimportant_allowed = true\n'
    )
    with Client(d.sock, app="org.hapticd.test.low") as low, Client(d.sock, app="org.hapticd.test.high") as high, Client(
        d.sock, app="org.hapticd.test.reader"
    ) as reader:
        assert high.policy()["app"]["priority"] == 50 and high.policy()["duck"] == 0.25
        pat = Pattern.from_events([Continuous(0, 0.5, 1, 0.5)])
        he = high.engine(device=0, locality="leftHandle")
        assert he.make_player(pat).status.priority == 50
        he.priority = 20
        assert he.make_player(pat).status.priority == 20
        le = low.engine(device=0, locality="rightHandle", priority=30)
        p = le.make_player(pat)
        assert p.status.priority == 0 and p.status.heard_at == 1

        # low loops on the weak motor; while high plays on the strong one, low keeps a quarter.
        p.set(loop=True).start()
        assert d.active_after(0, d.last_time()) is not None
        assert d.last_is(0, 0, silent=False)
        full = d.rows()[-1][3]
        assert full > 20000

        def ducked(rows):  # any row since the mark: the state lasts only while high plays
            return any(x[0] >= after and x[2] > 0 and abs(x[3] - full * 0.25) < 400 for x in rows)

        def back(rows):
            r = [x for x in rows if x[0] >= after]
            return bool(r) and r[-1][2] == 0 and abs(r[-1][3] - full) < 400

        he.priority = None
        after = d.last_time()
        hid = he.play(pat)
        assert d.wait_trace(ducked)
        high.wait_for("player.finished", player=hid)
        after = d.last_time()
        assert d.wait_trace(back)
        p.destroy()

        # quiet: only the important feedback of the app allowed it is heard.
        assert high.policy_set(mode="quiet")["mode"] == "quiet"
        assert high.policy_set(profile="quiet")["mode"] == "quiet", "the mode's old name still works"
        with pytest.raises(BadRequestError, match="unknown mode"):
            high.policy_set(mode="loud")
        with pytest.raises(ValueError):
            high.policy_set(mode="quiet", profile="quiet")
        assert d.last_is(0, 0, silent=True)
        before = d.last_time()
        low.wait_for("player.finished", player=low.feedback("impact", "heavy", important=True, device=0))
        reader.wait_for("player.finished", player=reader.feedback("impact", "heavy", device=0))
        mid = d.last_time()
        assert not any(r[2] or r[3] for r in d.rows() if r[0] > before)
        reader.feedback("impact", "heavy", important=True, device=0)
        assert d.active_after(0, mid) is not None
        pol = high.policy_set(mode="full", max_strength=0.5)
        assert pol["mode"] == "full" and pol["max_strength"] == 0.5


def test_play_by_name(client, daemon):
    after = daemon.last_time()
    pid = client.play("heartbeat")
    e = client.wait_for("player.finished", player=pid)
    assert e.reason == "finished" and e.device == 0 and e.locality == "default"
    assert daemon.still_after(0, after)
    with pytest.raises(NotFoundError) as err:
        client.play("nope")
    assert 'no pattern named "nope"' in str(err.value) and err.value.code == "not_found"
    pid = client.play(str(REPO / "config/patterns/click.ahap"))
    client.wait_for("player.finished", player=pid)
    with pytest.raises(hapticd.HapticdError) as err:
        client.play("/nonexistent/x.ahap")
    assert "/nonexistent/x.ahap" in str(err.value) and "No such file" in str(err.value)


def test_player(client, daemon):
    engine = client.engine(device=1)
    pattern = Pattern.from_events([Continuous(0, 0.3, intensity=1.0, sharpness=0.5)])
    with pytest.raises(ValueError):
        Pattern.from_events([Transient(0, intensity=1.5)])
    p = engine.make_player(pattern)
    assert p.state == "idle" and p.status.device == 1 and p.status.advanced and abs(p.status.duration - 0.3) < 1e-9

    after = daemon.last_time()
    assert p.start().state == "playing"
    e = client.wait_for("player.finished", player=p.id)
    assert e.reason == "finished" and e.device == 1
    assert daemon.still_after(1, after)
    assert p.state == "finished"

    # Looping, with parameters: intensity 0 silences, 1 brings it back.
    p.set(loop=True).start()
    assert daemon.active_after(1, daemon.last_time() - 0.05) is not None
    p.send_parameters(intensity=0)
    assert daemon.last_is(1, daemon.last_time(), silent=True)
    p.send_parameters({"intensity": 1}, sharpness=-0.5)
    assert daemon.last_is(1, daemon.last_time(), silent=False)
    with pytest.raises(BadRequestError) as err:
        p.send_parameters(intensity=3)
    assert "intensity" in str(err.value)
    with pytest.raises(ValueError):
        p.send_parameters()

    # Advanced controls.
    assert p.pause().state == "paused"
    assert daemon.last_is(1, daemon.last_time(), silent=True)
    assert abs(p.seek(0.1).status.offset - 0.1) < 1e-6
    p.set(rate=2, loop_end=0.2)
    assert p.status.rate == 2 and abs(p.status.loop_end - 0.2) < 1e-9 and p.status.loop
    with pytest.raises(BadRequestError) as err:
        p.set(rate=1e6)
    assert "max_rate" in str(err.value)
    p.resume()
    assert daemon.last_is(1, daemon.last_time(), silent=False)
    p.set(muted=True)
    assert daemon.last_is(1, daemon.last_time(), silent=True)
    p.set(muted=False)

    p.stop()
    assert client.wait_for("player.finished", player=p.id).reason == "stopped"

    # A curve to 0 leaves it playing, and silent.
    p.start()
    after = daemon.last_time()
    p.schedule_curve("intensity", [(0, 1), (0.2, 0)])
    assert daemon.still_after(1, after)
    assert p.seek(0).state == "playing"
    # How many points is the daemon's bound (limits.max_curve_points, 1024 by default), not the
    # library's: 1024 go (staying at 0, the player stays silent), 1025 are its limit_exceeded.
    with pytest.raises(ValueError):
        p.schedule_curve("intensity", [])
    p.schedule_curve("intensity", [(i * 0.001, 0) for i in range(17)])
    p.schedule_curve("intensity", [(i * 0.001, 0) for i in range(1024)])
    with pytest.raises(LimitExceededError, match="limits.max_curve_points"):
        p.schedule_curve("intensity", [(i * 0.001, 0) for i in range(1025)])

    # Cancel drops a scheduled start.
    p.cancel()
    p.start(after=1)
    assert p.state in ("scheduled", "idle")
    p.cancel()
    p.destroy()

    basic = engine.make_player(pattern, advanced=False)
    basic.start()
    with pytest.raises(BadRequestError):
        basic.pause()
    basic.destroy()


def test_current_time_never_runs_back(client, daemon):
    engine = client.engine(device=0)
    t1 = engine.current_time()
    # A later reply that puts the clock earlier (one that waited in the socket, here a second's worth):
    # the estimate falls back, the readings do not.
    engine._note_clock({"current_time": t1 - 1.0}, "current_time")
    t2 = engine.current_time()
    assert t2 >= t1, (t1, t2)
    assert engine.current_time() >= t2


def test_timed_start(client, daemon):
    engine = client.engine(device=0)
    est = engine.current_time()
    status = engine.status()
    # Bracketed, as the C test does: the estimate lags by the reply's trip, the daemon's by the request's.
    assert status["running"] and est - 0.005 <= status["current_time"] <= engine.current_time() + 0.005, (est, status)
    p = engine.make_player("rumble-long")
    at = engine.current_time() + 0.3
    assert p.start(at=at).state == "scheduled"
    # The pad may still be finishing what came before for a write or two (it is paced): from
    # 50 ms after the start command on, it is silent until `at`.
    moved = daemon.active_after(0, at - 0.25)
    assert moved is not None and at - 0.002 <= moved <= at + 0.1, (at, moved)
    later = engine.make_player("rumble-long")
    later.start(after=30)
    engine.stop()  # Core Haptics' stop(): this connection's players, starts for later dropped
    assert client.wait_for("player.finished", player=p.id).reason == "cancelled"
    assert engine.status()["playing"] is False
    assert client._request("player.set", {"player": later.id, "muted": False})["state"] == "idle", "its start was dropped"


def test_patterns_and_errors(client):
    engine = client.engine()
    with pytest.raises(InvalidPatternError) as err:
        engine.make_player(Pattern.from_ahap({"Pattern": [{"Event": {"EventType": "Buzz", "Time": 0}}]}))
    assert any('Pattern[0].Event.EventType: unknown event type "Buzz"' in d for d in err.value.details)
    assert "[invalid_pattern, from `player.create`" in str(err.value)

    with pytest.raises(BadJSONError) as err:
        Pattern.from_ahap('{\n  "Pattern": [\n    {"Event": }\n  ]\n}')
    assert "line 3, column 15: expected a value, found '}'" in str(err.value)
    with pytest.raises(BadJSONError, match="an AHAP pattern is a JSON object"):
        Pattern.from_ahap("[1]")
    with pytest.raises(BadJSONError):
        Pattern.from_ahap("{} {}")

    lenient = (
        "// a comment\n{ Version: 1.0, /* block */ 'Pattern': [\n"
        '  {"Event": {"EventType": "HapticTransient", "Time": 0, "EventParameters": [\n'
        '    {"ParameterID": "HapticIntensity", "ParameterValue": +0.8,},],},},\n]}\n'
    )
    pat = Pattern.from_ahap(lenient)
    assert "\n" not in pat.text and "comment" not in pat.text
    client.wait_for("player.finished", player=engine.play(pat))

    files = sorted(glob.glob(str(REPO / "config/patterns/*.ahap")) + glob.glob(str(REPO.parent / "shared/ahap/*/*.ahap")))
    assert len(files) >= 10
    for f in files:
        engine.make_player(Pattern.from_file(f)).destroy()

    with pytest.raises(NotFoundError, match="no device 7"):
        client.engine(device=7)
    with pytest.raises(UnsupportedError, match="trigger"):
        client.engine(device=0, locality="leftTrigger")
    with pytest.raises(BadRequestError, match='unknown locality "elbow"'):
        client.engine(device=0, locality="elbow")
    with pytest.raises(ValueError):
        client.engine(priority=101)
    with pytest.raises(ValueError):
        client.rumble(2, 0, 1)

    # Another connection's player is not yours.
    p = engine.make_player("rumble-long")
    with Client(client.path) as other:
        with pytest.raises(PermissionDeniedError, match="belongs to another client"):
            other.request("player.start", player=p.id)

    # The 129th player of a connection, with the key to raise.
    made = [p]
    with pytest.raises(LimitExceededError, match="limits.max_players_per_client"):
        for _ in range(200):
            made.append(engine.make_player("rumble-long"))
    assert len(made) == 128
    for m in made:
        m.destroy()


def test_feedback_rumble_localities(client, daemon):
    engine = client.engine(device=1)
    after = daemon.last_time()
    client.wait_for("player.finished", player=engine.feedback("impact", "heavy", intensity=0.7))
    assert daemon.still_after(1, after)
    client.wait_for("player.finished", player=engine.feedback("selection", important=True))
    with pytest.raises(BadRequestError, match='unknown impact style "squishy"'):
        client.feedback("impact", "squishy")
    assert engine.prepare()["prepared_until"] > 0
    engine.start()

    assert daemon.last_is(1, 0, silent=True)
    after = daemon.last_time()
    engine.rumble(0.8, 0.2, 5)
    moved = daemon.active_after(1, after)
    row = next(r for r in daemon.rows() if r[1] == 1 and r[0] >= moved)
    assert abs(row[2] - 0.8 * 65535) < 700 and abs(row[3] - 0.2 * 65535) < 700
    assert engine.rumble(0, 0, 0)["stopped"] is True
    assert daemon.last_is(1, daemon.last_time(), silent=True)

    left = client.engine(device=1, locality="leftHandle")
    after = daemon.last_time()
    pid = left.play(Pattern.from_events([Continuous(0, 0.2, 1, 1)]))
    assert client.wait_for("player.finished", player=pid).locality == "leftHandle"
    assert daemon.still_after(1, after)
    mine = [r for r in daemon.rows() if r[1] == 1 and r[0] >= after]
    assert any(r[2] for r in mine) and not any(r[3] for r in mine)

    # Root is an admin here.
    engine.admin("stop")
    assert engine.status()["running"] is False
    with pytest.raises(hapticd.EngineStoppedError, match="an admin must start it"):
        engine.start()
    engine.admin("start")
    engine.admin("reset")
    e = client.wait_for("engine.reset")
    assert e.device == 1 and e.locality == "default"
    assert client.stop_all() >= 0


def test_events_through_fileno(client):
    calls: List[hapticd.Event] = []
    client.set_event_callback(calls.append)
    fd = client.fileno()
    assert select.select([fd], [], [], 0)[0] == []
    pid = client.play("click")
    assert select.select([fd], [], [], 5)[0] == [fd]  # arrived on the socket
    client.ping()  # read while waiting for the reply: queued
    assert select.select([fd], [], [], 0)[0] == [fd]  # still readable: an event waits
    assert client.dispatch() == 1
    assert calls[-1].type == "player.finished" and calls[-1].player == pid
    assert select.select([fd], [], [], 0)[0] == []
    pid = client.play("click")
    assert client.dispatch(5) == 1 and calls[-1].player == pid

    client.set_event_callback(None)
    client.subscribe(hapticd.DEFAULT_EVENTS + ("device.output",))
    client.rumble(1, 0, 0.1)
    e = client.wait_for("device.output")
    assert e.device == 0 and e.strong == 65535 and e.weak == 0 and e.time and e.time > 0
    client.subscribe([])


def test_threads(client):
    errors = []

    def work(device: int) -> None:
        engine = client.engine(device=device)
        for _ in range(50):
            if engine.status()["device"] != device:
                errors.append(device)
            client.ping()

    threads = [threading.Thread(target=work, args=(i % 2,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_restart(make_daemon):
    d = make_daemon()
    c = Client(d.sock)
    fd = c.fileno()
    engine = c.engine(device=0)
    p = engine.make_player("rumble-long")
    assert d.stop() == 0
    assert select.select([fd], [], [], 5)[0] == [fd]
    e = c.next_event(5)
    assert e is not None and e.type == hapticd.CONNECTION_LOST
    assert not c.connected
    assert select.select([fd], [], [], 0)[0] == []
    # connection_lost once; then a dead client says so rather than "nothing yet" (as documented),
    # and the iterator, which ended with connection_lost, stays ended.
    with pytest.raises(DisconnectedError, match=r"reconnect\(\)"):
        c.next_event(0)
    with pytest.raises(DisconnectedError):
        c.dispatch(0)
    with pytest.raises(DisconnectedError) as err:
        c.ping()
    assert "reconnect()" in str(err.value) and d.sock in str(err.value)
    with pytest.raises(PlayerInvalidatedError):
        p.start()
    with pytest.raises(NotRunningError):
        c.reconnect()
    d.launch()
    c.reconnect()
    assert c.connected and c.fileno() == fd and p.state == "invalid"
    with pytest.raises(PlayerInvalidatedError):
        p.start()
    p.destroy()
    q = engine.make_player("rumble-long")
    q.start()
    q.stop()
    assert c.wait_for("player.finished", player=q.id).reason == "stopped"
    c.close()


def test_connected_after_the_daemon_was_killed(make_daemon):
    """No call between the kill and ``connected``: it asks the socket, queues ``connection_lost``
    and makes ``fileno()`` readable, as a call would have."""
    d = make_daemon()
    c = Client(d.sock)
    fd = c.fileno()
    assert c.connected
    c.ping()
    d.kill()
    assert not c.connected
    assert select.select([fd], [], [], 0)[0] == [fd]
    e = c.next_event(0)
    assert e is not None and e.type == hapticd.CONNECTION_LOST
    assert not c.connected
    with pytest.raises(DisconnectedError):
        c.ping()
    d.launch()
    c.reconnect()
    assert c.connected
    c.ping()
    c.close()
    assert not c.connected


def test_refused_over_limit(make_daemon):
    d = make_daemon("[limits]\nmax_clients_per_uid = 1\n")
    with Client(d.sock):
        with pytest.raises(LimitExceededError, match="limits.max_clients_per_uid"):
            Client(d.sock)


def test_idle_shutdown(make_daemon):
    d = make_daemon("[engine]\nidle_shutdown = 0.2\n")
    with Client(d.sock) as c:
        click = c.play("click")
        # Its end first: an idle stop from before the click (the engine idles out from the start)
        # may be waiting among the events, and is skipped with them.
        c.wait_for("player.finished", player=click)
        e = c.wait_for("engine.stopped")
        assert e.reason == "idleTimeout" and e.device == 0
        engine = c.engine(device=0)
        assert engine.status()["running"] is False
        engine.start()
        assert engine.status()["running"] is True


# -- a stand-in daemon for what a real one does not do on demand -------------------------------


class Fake:
    def __init__(self, path: str, mode: str) -> None:
        self.path = path
        self.mode = mode
        self.ls = socket.socket(socket.AF_UNIX)
        self.ls.bind(path)
        self.ls.listen(1)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        import json

        conn, _ = self.ls.accept()
        buf = b""
        n = 0
        while True:
            data = conn.recv(65536)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                rid = json.loads(line)["id"]
                n += 1
                reply = json.dumps({"id": rid, "ok": True, "result": {}}).encode() + b"\n"
                try:
                    if n == 1:
                        conn.sendall(reply)
                    elif self.mode == "huge":
                        conn.sendall(b'"' + b"x" * (2 * 1024 * 1024))
                    elif self.mode == "deep":
                        conn.sendall(b"[" * 1000 + b"\n")
                    elif self.mode == "garbage":
                        conn.sendall(b"HTTP/1.1 400 Bad Request\n")
                    elif self.mode == "stale":
                        conn.sendall(json.dumps({"id": rid - 1, "ok": False, "error": {"code": "bad_request", "message": "stale"}}).encode() + b"\n" + reply)
                    elif self.mode in ("flood", "flood-close"):
                        for i in range(300):
                            conn.sendall(json.dumps({"event": "player.finished", "player": i, "device": 0, "reason": "finished"}).encode() + b"\n")
                        if self.mode == "flood-close":
                            conn.sendall(reply)
                            conn.close()  # gone, with all that unread
                            return
                        conn.sendall(reply + b'{"event":"events_dropped","count":212}\n')
                except OSError:
                    break
        conn.close()

    def close(self) -> None:
        self.thread.join(5)
        self.ls.close()


@pytest.mark.parametrize("mode,words", [("huge", "longer than"), ("deep", "cannot read"), ("garbage", "cannot read")])
def test_hostile_replies_drop_the_connection(tmp_path, mode, words):
    f = Fake(str(tmp_path / "fake.sock"), mode)
    c = Client(f.path)
    with pytest.raises(ProtocolError, match=words):
        c.ping()
    assert not c.connected
    assert c.next_event(0).type == hapticd.CONNECTION_LOST
    c.close()
    f.close()


def test_silence_times_out(tmp_path):
    f = Fake(str(tmp_path / "fake.sock"), "silent")
    c = Client(f.path, timeout=0.2)
    import time

    t0 = time.monotonic()
    with pytest.raises(HapticdTimeoutError, match="did not answer `ping` within 0.2 s"):
        c.ping()
    assert 0.19 <= time.monotonic() - t0 < 2
    assert c.connected
    c.close()
    f.close()


def test_stale_reply_is_skipped(tmp_path):
    f = Fake(str(tmp_path / "fake.sock"), "stale")
    with Client(f.path) as c:
        c.ping()
    f.close()


def finished_then_next(c, timeout):
    """The players of the queued `player.finished` events, in order, and the first other event (or
    None)."""
    got = []
    while True:
        e = c.next_event(timeout)
        if e is None or e.type != "player.finished":
            return got, e
        got.append(e.player)


def test_event_flood_is_bounded(tmp_path):
    f = Fake(str(tmp_path / "fake.sock"), "flood")
    with Client(f.path) as c:
        c.ping()
        got, e = finished_then_next(c, 0)
        # The queue of 256 holds the first 255 in order, then one events_dropped counting the other
        # 45; the daemon's own events_dropped (212) adds to that count if it comes while the queue
        # is full, else waits after it: 257 in all either way.
        assert got == list(range(255))
        assert e is not None and e.type == "events_dropped" and e.count in (45, 257)
        dropped = e.count
        while dropped < 257:
            e = c.next_event(2)
            assert e is not None and e.type == "events_dropped"
            dropped += e.count
        assert dropped == 257
    f.close()


def test_connection_lost_survives_a_full_queue(tmp_path):
    """The flood, then the daemon goes, before the app reads any of it: the loss still comes, after
    the 255 events and the count (it is never dropped)."""
    f = Fake(str(tmp_path / "fake.sock"), "flood-close")
    with Client(f.path) as c:
        c.ping()
        f.thread.join(5)  # the stand-in has closed the connection
        got, e = finished_then_next(c, 2)
        assert got == list(range(255))
        assert e is not None and e.type == "events_dropped" and e.count == 45
        e = c.next_event(2)
        assert e is not None and e.type == hapticd.CONNECTION_LOST
        with pytest.raises(DisconnectedError):
            c.next_event(0)
    f.ls.close()


def test_a_pattern_over_the_line_goes_in_pieces(make_daemon):
    # A song's worth of transients, longer than the daemon's 1 MiB request line: sent in pieces
    # (pattern.upload) and played whole (its duration says every event arrived). Over the daemon's
    # upload limit, the piece's error names the key, and the connection goes on.
    d = make_daemon("[limits]\nmax_upload_bytes = 2000000\n")
    song = Pattern.from_events([Transient(i * 0.01, intensity=0.8) for i in range(8000)])
    assert len(song.text) > 1024 * 1024
    with Client(d.sock) as c:
        engine = c.engine(device=0)
        assert abs(engine.make_player(song).status.duration - 79.99) < 1e-9
        assert c.play(song, device=0) > 0
        longer = Pattern.from_events([Transient(i * 0.01, intensity=0.8) for i in range(20000)])
        with pytest.raises(LimitExceededError, match="limits.max_upload_bytes"):
            engine.make_player(longer)
        c.ping()
        assert abs(engine.make_player(song).status.duration - 79.99) < 1e-9
