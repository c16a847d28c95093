"""The asyncio client: ``AsyncClient`` → ``AsyncEngine`` → ``AsyncPlayer``, the same shape as the
synchronous one, every call a coroutine.

A reader task reads the socket all the time: replies resolve their requests (which may overlap —
the daemon answers in order), events go to the callback if one is set, else to a bounded queue
for ``next_event``/``events()``. Use one ``AsyncClient`` from one event loop.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from ._core import (
    CONNECTION_LOST,
    CONNECT_RETRY,
    connect_step,
    EngineCore,
    PlayerCore,
    check_app_id,
    note_event,
    policy_set_request,
    result_of,
    DEFAULT_EVENTS,
    DEFAULT_TIMEOUT,
    MAX_LINE,
    Event,
    EventQueue,
    HapticdError,
    HapticdTimeoutError,
    Number,
    Pattern,
    PlayerInvalidatedError,
    ProtocolError,
    UnknownCommandError,
    default_socket_path,
    encode,
    engine_members,
    finite,
    lost,
    parse_line,
    time_members,
    uploaded,
)

AsyncEventCallback = Callable[[Event], Union[None, Awaitable[None]]]


class AsyncClient:
    """A connection to hapticd for asyncio. Make one with ``await AsyncClient.connect(...)``
    (arguments as ``Client``); ``async with`` closes it."""

    def __init__(self, path: str, app: Optional[str], timeout: float, subscribe: Iterable[str]) -> None:
        self.path = path
        self.app = app
        self.timeout = finite("timeout", timeout, 0.001, 600)
        self._subscription = list(subscribe)
        self._reader: Optional[asyncio.StreamReader] = None
        self._writer: Optional[asyncio.StreamWriter] = None
        self._task: Optional["asyncio.Task[None]"] = None
        self._pending: Dict[int, "asyncio.Future[Dict[str, Any]]"] = {}
        self._next_id = 0
        self._uploads = itertools.count(1)  # next() is atomic: numbers unique across threads
        self._generation = 0
        self._queue = EventQueue()
        self._arrived = asyncio.Event()
        self._callback: Optional[AsyncEventCallback] = None
        self._players: "List[AsyncPlayer]" = []
        self.identity: Optional[Dict[str, Any]] = None

    @classmethod
    async def connect(
        cls,
        socket_path: Optional[str] = None,
        app: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        subscribe: Iterable[str] = DEFAULT_EVENTS,
    ) -> "AsyncClient":
        if app is not None:
            check_app_id(app)
        c = cls(socket_path or default_socket_path(), app, timeout, subscribe)
        await c._open()
        try:
            await c._greet()
        except BaseException:
            await c.close()
            raise
        return c

    async def _open(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Connected here, not by open_unix_connection: on a full queue of connections (a daemon
        # that hangs) asyncio's connect takes the socket for connected when it is not; this tries
        # again until the timeout (connect_step), as Client does.
        s.setblocking(False)
        deadline = time.monotonic() + self.timeout
        try:
            while not connect_step(s, self.path, deadline, self.timeout):
                await asyncio.sleep(CONNECT_RETRY)
            # limit: a line longer than this is a protocol error, never a bigger buffer.
            self._reader, self._writer = await asyncio.open_unix_connection(sock=s, limit=MAX_LINE + 1)
        except OSError as e:
            s.close()
            if isinstance(e, HapticdError):
                raise
            raise HapticdError(f"cannot connect to hapticd at {self.path}: {e.strerror}", "io") from None
        except BaseException:  # cancelled while waiting for room (asyncio.wait_for, a task's cancel)
            s.close()
            raise
        self._task = asyncio.get_running_loop().create_task(self._read_loop(self._reader))

    async def _greet(self) -> None:
        if self.app is not None:
            try:
                self.identity = await self._request("hello", {"app": self.app})
            except UnknownCommandError:
                self.identity = None
        await self._request("subscribe", {"events": self._subscription})

    @property
    def connected(self) -> bool:
        """False once the connection is lost or closed. The reader task notices the daemon closing
        its end (and then delivers ``connection_lost``) as soon as the event loop runs it — at the
        next ``await`` that yields — not in the middle of code that does not await."""
        return self._writer is not None

    async def close(self) -> None:
        """Closes the connection; the daemon stops this connection's players."""
        w, self._writer = self._writer, None
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None
        if w is not None:
            w.close()
            try:
                await w.wait_closed()
            except OSError:
                pass
        self._fail_pending(lost(self.path))

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def reconnect(self) -> None:
        """After ``connection_lost``: connects again with the same app id and subscription.
        Engines stay usable; players must be made again."""
        if self._writer is not None:
            return
        await self._open()
        try:
            await self._greet()
        except HapticdError:
            await self._drop()
            raise

    async def _drop(self) -> None:
        w, self._writer = self._writer, None
        if w is not None:
            w.close()

    def _fail_pending(self, error: Exception) -> None:
        for f in self._pending.values():
            if not f.done():
                f.set_exception(error)
        self._pending.clear()

    # -- reading ------------------------------------------------------------------------------

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        error: Exception = lost(self.path)
        try:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError:
                    break
                except asyncio.LimitOverrunError:
                    error = ProtocolError(f"hapticd at {self.path} sent a line longer than {MAX_LINE} bytes; the connection was dropped")
                    break
                except (ConnectionError, OSError):
                    break
                line = line.rstrip(b"\r\n ")
                if not line:
                    continue
                try:
                    o = parse_line(line, self.path)
                except ProtocolError as e:
                    error = e
                    break
                if isinstance(o.get("event"), str):
                    await self._deliver(Event.from_json(o))
                    continue
                rid = o.get("id")
                if rid is None and self._pending:
                    rid = min(self._pending)
                f = self._pending.pop(rid, None) if isinstance(rid, int) else None
                if f is not None and not f.done():
                    f.set_result(o)
        except asyncio.CancelledError:
            raise
        # Lost (not closed by us): say so.
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            self._generation += 1
            for p in self._players:
                p.status.state = "invalid"
            self._fail_pending(error)
            await self._deliver(Event(CONNECTION_LOST))

    async def _deliver(self, e: Event) -> None:
        note_event(self._players, e)
        if self._callback is not None:
            r = self._callback(e)
            if asyncio.iscoroutine(r):
                await r
            return
        self._queue.put(e)
        self._arrived.set()

    # -- requests -----------------------------------------------------------------------------

    async def _request(self, cmd: str, members: Mapping[str, Any] = {}, pattern: Optional[Pattern] = None) -> Dict[str, Any]:
        pieces = uploaded(pattern)
        if pieces is not None:
            # As Client's: its text in pieces ahead of the request (pattern.upload), which names it;
            # sent after a piece failed too, and the piece's error is the one raised.
            upload = next(self._uploads)
            failure: Optional[HapticdError] = None
            for piece in pieces:
                try:
                    await self._request("pattern.upload", {"upload": upload, "text": piece})
                except HapticdError as e:
                    failure = e
                    break
            try:
                result = await self._request(cmd, {**members, "upload": upload})
            except HapticdError:
                if failure is None:
                    raise
            if failure is not None:
                raise failure
            return result
        if self._writer is None:
            raise lost(self.path)
        self._next_id += 1
        rid = self._next_id
        line = encode(rid, cmd, members, pattern)
        fut: "asyncio.Future[Dict[str, Any]]" = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            self._writer.write(line)
            await asyncio.wait_for(self._writer.drain(), self.timeout)
            reply = await asyncio.wait_for(fut, self.timeout)
        except asyncio.TimeoutError:
            raise HapticdTimeoutError(f"hapticd at {self.path} did not answer `{cmd}` within {self.timeout:g} s (timeout=…)") from None
        except (ConnectionError, OSError):
            raise lost(self.path) from None
        finally:
            self._pending.pop(rid, None)
            # Failed by the reader (the connection lost) while this call raised its own error: seen,
            # so that asyncio does not report an exception never retrieved.
            if fut.done() and not fut.cancelled():
                fut.exception()
            else:
                fut.cancel()
        return result_of(reply, cmd, self.path)

    async def request(self, cmd: str, **members: Any) -> Dict[str, Any]:
        """Any command: its result object."""
        return await self._request(cmd, members)

    async def ping(self) -> None:
        await self._request("ping")

    async def version(self) -> Dict[str, Any]:
        return await self._request("version")

    async def devices(self) -> List[Dict[str, Any]]:
        return list((await self._request("devices")).get("devices", []))

    async def patterns(self) -> List[Dict[str, Any]]:
        return list((await self._request("patterns")).get("patterns", []))

    async def capabilities(self, device: Optional[int] = None) -> Dict[str, Any]:
        return await self._request("capabilities", engine_members(device, None))

    async def hello(self, app: str) -> Dict[str, Any]:
        result = await self._request("hello", {"app": check_app_id(app)})
        self.app = app
        self.identity = result
        return result

    async def policy(self) -> Dict[str, Any]:
        return await self._request("policy")

    async def policy_set(self, mode: Optional[str] = None, max_strength: Optional[float] = None, duck: Optional[float] = None,
                         *, profile: Optional[str] = None) -> Dict[str, Any]:
        return await self._request(*policy_set_request(mode, max_strength, duck, profile))

    async def subscribe(self, events: Iterable[str]) -> List[str]:
        names = list(events)
        result = await self._request("subscribe", {"events": names})
        self._subscription = names
        return list(result.get("events", []))

    async def stop_all(self) -> int:
        return int((await self._request("stop_all")).get("stopped", 0))

    async def engine(self, device: Optional[int] = None, locality: str = "default", priority: Optional[int] = None) -> "AsyncEngine":
        e = AsyncEngine(self, device, locality, priority)
        await e.status()
        return e

    async def play(
        self,
        pattern: Union[Pattern, str],
        device: Optional[int] = None,
        locality: Optional[str] = None,
        loop: bool = False,
        rate: float = 1.0,
        priority: Optional[int] = None,
    ) -> int:
        return await AsyncEngine(self, device, locality, priority).play(pattern, loop=loop, rate=rate)

    async def feedback(
        self,
        type: str,
        style: Optional[str] = None,
        intensity: Optional[float] = None,
        important: bool = False,
        device: Optional[int] = None,
        locality: Optional[str] = None,
        priority: Optional[int] = None,
    ) -> int:
        return await AsyncEngine(self, device, locality, priority).feedback(type, style, intensity, important)

    async def rumble(
        self, strong: float, weak: float, duration: float, delay: float = 0, device: Optional[int] = None, priority: Optional[int] = None
    ) -> Dict[str, Any]:
        return await AsyncEngine(self, device, None, priority).rumble(strong, weak, duration, delay)

    async def prepare(self, device: Optional[int] = None, locality: Optional[str] = None) -> Dict[str, Any]:
        return await self._request("prepare", engine_members(device, locality))

    # -- events ---------------------------------------------------------------------------------

    def set_event_callback(self, fn: Optional[AsyncEventCallback]) -> None:
        """Called by the reader task for each event (a function or a coroutine function); events
        then no longer wait for ``next_event``."""
        self._callback = fn

    async def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, waiting up to ``timeout`` seconds (None, the default here: until one
        comes); None when none came in time. After ``connection_lost`` was returned, with nothing
        left waiting, it raises ``DisconnectedError`` until ``reconnect()``, as ``Client.next_event``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not len(self._queue):
            if self._writer is None:
                raise lost(self.path)
            self._arrived.clear()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except asyncio.TimeoutError:
                return None
        return self._queue.get()

    async def events(self, timeout: Optional[float] = None) -> AsyncIterator[Event]:
        """Events as they come; ends after ``connection_lost`` or ``timeout`` seconds without one."""
        while True:
            e = await self.next_event(timeout)
            if e is None:
                return
            yield e
            if e.type == CONNECTION_LOST:
                return

    async def wait_for(self, type: str, player: Optional[int] = None, timeout: float = 10) -> Event:
        """The next event of ``type`` (and ``player``), skipping others."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            e = await self.next_event(left) if left > 0 else None
            if e is None:
                raise HapticdTimeoutError(f"no {type} event within {timeout:g} s")
            if e.type == type and (player is None or e.player == player):
                return e


class AsyncEngine(EngineCore):
    """As ``Engine``, for ``AsyncClient``."""

    async def status(self) -> Dict[str, Any]:
        r = await self.client._request("engine.status", self._members())
        self._note_clock(r, "current_time")
        return r

    async def current_time(self) -> float:
        if self._offset is None:
            await self.status()
        return self._clock_now()

    async def start(self) -> None:
        error = self._stopped(await self.prepare())
        if error is not None:
            raise error

    async def stop(self) -> None:
        """Core Haptics' stop(): as ``Engine.stop`` (starts scheduled for later dropped)."""
        for pid in (await self.status()).get("my_players", []):
            try:
                await self.client._request("player.cancel", {"player": pid})
            except HapticdError as e:
                if e.code != "not_found":
                    raise

    async def prepare(self) -> Dict[str, Any]:
        r = await self.client._request("prepare", self._members())
        self._note_clock(r, "engine_time")
        return r

    async def admin(self, action: str) -> Dict[str, Any]:
        return await self.client._request(*self._admin_request(action))

    async def capabilities(self) -> Dict[str, Any]:
        return await self.client.capabilities(self.device)

    async def make_player(self, pattern: Union[Pattern, str], advanced: bool = True) -> "AsyncPlayer":
        r = await self.client._request(*self._create_request(pattern, advanced))
        self._note_clock(r, "engine_time")
        p = AsyncPlayer(self.client, r)
        self.client._players.append(p)
        return p

    async def play(self, pattern: Union[Pattern, str], loop: bool = False, rate: float = 1.0) -> int:
        r = await self.client._request(*self._play_request(pattern, loop, rate))
        self._note_clock(r, "engine_time")
        return int(r["player"])

    async def feedback(self, type: str, style: Optional[str] = None, intensity: Optional[float] = None, important: bool = False) -> int:
        return int((await self.client._request(*self._feedback_request(type, style, intensity, important)))["player"])

    async def rumble(self, strong: float, weak: float, duration: float, delay: float = 0) -> Dict[str, Any]:
        return await self.client._request(*self._rumble_request(strong, weak, duration, delay))


class AsyncPlayer(PlayerCore):
    """As ``Player``, for ``AsyncClient``."""

    async def _cmd(self, cmd: str, members: Mapping[str, Any] = {}) -> "AsyncPlayer":
        self._check_generation()
        try:
            r = await self.client._request(cmd, {**members, "player": self.id})
        except PlayerInvalidatedError:
            self.status.state = "invalid"
            raise
        self.status.update(r)
        return self

    async def start(self, at: Optional[float] = None, after: Optional[float] = None) -> "AsyncPlayer":
        return await self._cmd("player.start", time_members(at, after))

    async def stop(self, at: Optional[float] = None, after: Optional[float] = None) -> "AsyncPlayer":
        return await self._cmd("player.stop", time_members(at, after))

    async def pause(self, at: Optional[float] = None, after: Optional[float] = None) -> "AsyncPlayer":
        return await self._cmd("player.pause", time_members(at, after))

    async def resume(self, at: Optional[float] = None, after: Optional[float] = None) -> "AsyncPlayer":
        return await self._cmd("player.resume", time_members(at, after))

    async def cancel(self) -> "AsyncPlayer":
        return await self._cmd("player.cancel")

    async def seek(self, offset: float) -> "AsyncPlayer":
        return await self._cmd("player.seek", {"offset": finite("offset", offset, 0)})

    async def set(
        self, loop: Optional[bool] = None, loop_end: Optional[float] = None, rate: Optional[float] = None, muted: Optional[bool] = None
    ) -> "AsyncPlayer":
        return await self._cmd("player.set", self._set_members(loop, loop_end, rate, muted))

    async def send_parameters(
        self, parameters: Optional[Mapping[str, Number]] = None, at: Optional[float] = None, after: Optional[float] = None, **values: Number
    ) -> "AsyncPlayer":
        return await self._cmd("player.send_parameters", self._parameters_members(parameters, values, at, after))

    async def schedule_curve(
        self, parameter: str, points: Iterable[Tuple[Number, Number]], at: Optional[float] = None, after: Optional[float] = None
    ) -> "AsyncPlayer":
        return await self._cmd("player.schedule_curve", self._curve_members(parameter, points, at, after))

    async def destroy(self) -> None:
        if not self._forget():
            return
        try:
            await self._cmd("player.destroy")
        except HapticdError as e:
            if e.code not in ("not_found", "player_invalidated"):
                raise

    async def __aenter__(self) -> "AsyncPlayer":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.destroy()


__all__ = ["AsyncClient", "AsyncEngine", "AsyncPlayer", "AsyncEventCallback"]
