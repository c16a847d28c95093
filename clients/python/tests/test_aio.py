"""The asyncio client against the real hapticd --simulate."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
import warnings
from typing import List

import pytest

import hapticd
from hapticd import (
    AsyncClient,
    BadRequestError,
    Continuous,
    DisconnectedError,
    HapticdTimeoutError,
    InvalidPatternError,
    NotRunningError,
    Pattern,
    PlayerInvalidatedError,
    ProtocolError,
)

from conftest import Daemon


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


def test_not_running(tmp_path):
    path = str(tmp_path / "none.sock")

    async def go():
        with pytest.raises(NotRunningError, match="hapticd is not running"):
            await AsyncClient.connect(path)

    run(go())


def test_app_id_checked_before_connecting(tmp_path, daemon: Daemon):
    path = str(tmp_path / "none.sock")

    async def go():
        with pytest.raises(ValueError, match="without spaces or control characters"):
            await AsyncClient.connect(path, app="has space")
        async with await AsyncClient.connect(daemon.sock, app="a" * 128) as c:
            with pytest.raises(ValueError, match="without spaces or control characters") as err:
                await c.hello("has\nnewline")
            assert not isinstance(err.value, BadRequestError)
            assert (await c.hello("org.example.Spielé"))["app"] == "org.example.Spielé"

    run(go())


def test_play_player_and_events(daemon: Daemon):
    async def go():
        async with await AsyncClient.connect(daemon.sock, app="org.hapticd.pytest.aio") as c:
            await c.ping()
            assert (await c.version())["protocol"] == 1
            assert len(await c.devices()) == 2
            after = daemon.last_time()
            pid = await c.play("heartbeat", device=1)
            e = await c.wait_for("player.finished", player=pid)
            assert e.reason == "finished" and e.device == 1
            assert daemon.still_after(1, after)

            engine = await c.engine(device=1)
            p = await engine.make_player(Pattern.from_events([Continuous(0, 0.3, 1, 0.5)]))
            assert p.state == "idle"
            await (await p.set(loop=True)).start()
            assert daemon.active_after(1, daemon.last_time() - 0.05) is not None
            await p.send_parameters(intensity=0)
            assert daemon.last_is(1, daemon.last_time(), silent=True)
            await p.send_parameters(intensity=1)
            assert daemon.last_is(1, daemon.last_time(), silent=False)
            assert (await p.pause()).state == "paused"
            await p.resume()
            await p.stop()
            assert (await c.wait_for("player.finished", player=p.id)).reason == "stopped"
            with pytest.raises(BadRequestError, match="max_rate"):
                await p.set(rate=1e6)
            await p.destroy()

            with pytest.raises(InvalidPatternError) as err:
                await engine.make_player(Pattern.from_ahap({"Pattern": [{"Event": {"EventType": "Buzz", "Time": 0}}]}))
            assert any("Pattern[0].Event.EventType" in d for d in err.value.details)

            # Timed start on the engine's clock.
            p = await engine.make_player("rumble-long")
            at = await engine.current_time() + 0.3
            await p.start(at=at)
            # The pad may still be finishing what came before for a write or two (it is paced):
            # from 50 ms after the start command on, it is silent until `at`.
            moved = daemon.active_after(1, at - 0.25)
            assert moved is not None and at - 0.002 <= moved <= at + 0.1, (at, moved)
            await engine.stop()
            assert (await c.wait_for("player.finished", player=p.id)).reason == "cancelled"

    run(go())


def test_overlapping_requests(daemon: Daemon):
    """Requests in flight together each get their own reply (the daemon answers in order)."""

    async def go():
        async with await AsyncClient.connect(daemon.sock) as c:
            e0, e1 = await c.engine(device=0), await c.engine(device=1)
            results = await asyncio.gather(*[(e0 if i % 2 == 0 else e1).status() for i in range(40)], *[c.ping() for _ in range(20)])
            assert [r["device"] for r in results[:40]] == [i % 2 for i in range(40)]

    run(go())


def test_callback(daemon: Daemon):
    async def go():
        async with await AsyncClient.connect(daemon.sock) as c:
            got: List[hapticd.Event] = []
            done = asyncio.Event()

            async def on_event(e: hapticd.Event) -> None:
                got.append(e)
                done.set()

            c.set_event_callback(on_event)
            pid = await c.feedback("selection")
            await asyncio.wait_for(done.wait(), 5)
            assert got[0].type == "player.finished" and got[0].player == pid

    run(go())


def test_restart(make_daemon):
    d = make_daemon()

    async def go():
        c = await AsyncClient.connect(d.sock)
        engine = await c.engine(device=0)
        p = await engine.make_player("rumble-long")
        assert d.stop() == 0
        e = await c.next_event(5)
        assert e is not None and e.type == hapticd.CONNECTION_LOST and not c.connected
        # connection_lost once; then a dead client says so rather than "nothing yet" (as documented).
        with pytest.raises(DisconnectedError, match=r"reconnect\(\)"):
            await c.next_event(0)
        with pytest.raises(DisconnectedError, match=r"reconnect\(\)"):
            await c.ping()
        with pytest.raises(PlayerInvalidatedError):
            await p.start()
        with pytest.raises(NotRunningError):
            await c.reconnect()
        d.launch()
        await c.reconnect()
        q = await engine.make_player("rumble-long")
        await q.start()
        await q.stop()
        assert (await c.wait_for("player.finished", player=q.id)).reason == "stopped"
        await c.close()

    run(go())


def test_a_full_connection_queue_times_out(full_socket):
    # As Client's: a hung daemon's queue of connections fills up. asyncio's own connect took the
    # socket for connected and the first request failed at once as "connection lost"; connecting
    # now tries again until the timeout, then says why.
    path = full_socket

    async def go():
        started = time.monotonic()
        with pytest.raises(HapticdTimeoutError, match="does not accept connections"):
            await AsyncClient.connect(path, timeout=0.3)
        assert time.monotonic() - started >= 0.3
        # Cancelled while it waits for room: its socket is closed, not left to the collector (which
        # says so with a ResourceWarning).
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(AsyncClient.connect(path, timeout=5), 0.1)
            gc.collect()
        assert not [w for w in caught if issubclass(w.category, ResourceWarning)], [str(w.message) for w in caught]

    run(go())


def _fake(path: str, mode: str) -> threading.Thread:
    ls = socket.socket(socket.AF_UNIX)
    ls.bind(path)
    ls.listen(1)

    def serve() -> None:
        import json

        conn, _ = ls.accept()
        buf = b""
        n = 0
        while True:
            data = conn.recv(65536)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                n += 1
                if n == 1:
                    conn.sendall(json.dumps({"id": json.loads(line)["id"], "ok": True, "result": {}}).encode() + b"\n")
                elif mode == "huge":
                    try:
                        conn.sendall(b'"' + b"x" * (2 * 1024 * 1024))
                    except OSError:  # the client hung up after reading past its limit
                        break
        conn.close()
        ls.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    return t


def test_silence_times_out(tmp_path):
    path = str(tmp_path / "fake.sock")
    t = _fake(path, "silent")

    async def go():
        c = await AsyncClient.connect(path, timeout=0.2)
        t0 = time.monotonic()
        with pytest.raises(HapticdTimeoutError, match="did not answer `ping`"):
            await c.ping()
        assert 0.19 <= time.monotonic() - t0 < 2
        await c.close()

    run(go())
    t.join(5)


def test_huge_line_drops_the_connection(tmp_path):
    path = str(tmp_path / "fake.sock")
    t = _fake(path, "huge")

    async def go():
        c = await AsyncClient.connect(path)
        with pytest.raises(ProtocolError, match="longer than"):
            await c.ping()
        e = await c.next_event(5)
        assert e is not None and e.type == hapticd.CONNECTION_LOST
        await c.close()

    run(go())
    t.join(5)


def test_a_pattern_over_the_line_goes_in_pieces(daemon: Daemon):
    # As Client's: a pattern longer than the daemon's request line goes in pieces (pattern.upload).
    song = Pattern.from_events([Continuous(i * 0.01, 0.005, 0.8, 0.5) for i in range(6000)])
    assert len(song.text) > 1024 * 1024

    async def go():
        async with await AsyncClient.connect(daemon.sock) as c:
            engine = await c.engine(device=1)
            p = await engine.make_player(song)
            assert abs(p.status.duration - 59.995) < 1e-9
            assert await c.play(song, device=1) > 0
            await c.ping()

    run(go())
