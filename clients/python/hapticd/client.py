"""The synchronous client: ``Client`` → ``Engine`` → ``Player``, as Core Haptics.

A ``Client`` may be used from several threads: requests are serialised by a lock (one at a time).
Events arrive through ``next_event``/``events``, or a callback run by ``dispatch``; ``fileno()``
is readable while events wait or the daemon sent something, so a loop can ``select`` on it.
"""

from __future__ import annotations

import itertools
import os
import select
import socket
import threading
import time
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

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
    DisconnectedError,
    Event,
    EventQueue,
    HapticdError,
    HapticdTimeoutError,
    LineBuffer,
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

EventCallback = Callable[[Event], None]
#: poll(2)'s "the peer shut down its writing end" (Linux; the value is the kernel's).
_POLLRDHUP = getattr(select, "POLLRDHUP", 0x2000)


class Client:
    """A connection to hapticd.

    ``socket_path``: None for ``$HAPTICD_SOCKET`` or the daemon's default (as hapticctl);
    ``app``: who the app is (the ``hello`` command; ignored by a daemon without app policy);
    ``timeout``: seconds a request waits for its reply; ``subscribe``: the events wanted.

    >>> with Client(app="org.example.Tool") as c:
    ...     c.play("heartbeat")
    """

    def __init__(
        self,
        socket_path: Optional[str] = None,
        app: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        subscribe: Iterable[str] = DEFAULT_EVENTS,
    ) -> None:
        self.path = socket_path or default_socket_path()
        if app is not None:
            check_app_id(app)
        self.app = app
        self.timeout = finite("timeout", timeout, 0.001, 600)
        self._subscription = list(subscribe)
        self._lock = threading.RLock()
        self._sock: Optional[socket.socket] = None
        self._closed = False
        self._lines = LineBuffer()
        self._queue = EventQueue()
        self._next_id = 0
        self._uploads = itertools.count(1)  # next() is atomic: numbers unique across threads
        self._generation = 0
        self._callback: Optional[EventCallback] = None
        self._players: "List[Player]" = []
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._signalled = False
        self._epoll = select.epoll()
        self._epoll.register(self._wake_r, select.EPOLLIN)
        self.identity: Optional[Dict[str, Any]] = None
        try:
            self._open()
            self._greet()
        except BaseException:
            self.close()
            raise

    # -- connection -----------------------------------------------------------------------

    def _open(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Non-blocking before connecting (connect_step): tried again while the daemon's queue of
        # connections is full, until the timeout.
        s.setblocking(False)
        deadline = time.monotonic() + self.timeout
        while not connect_step(s, self.path, deadline, self.timeout):
            time.sleep(CONNECT_RETRY)
        self._sock = s
        self._epoll.register(s.fileno(), select.EPOLLIN)

    def _greet(self) -> None:
        if self.app is not None:
            try:
                self.identity = self._request("hello", {"app": self.app})
            except UnknownCommandError:
                self.identity = None
        self._request("subscribe", {"events": self._subscription})

    @property
    def connected(self) -> bool:
        """False once the connection is lost: the daemon closed its end (it stopped, was killed, or
        dropped this client), or this client was closed. No thread reads the socket between calls,
        so this asks it, without waiting: if the daemon closed its end, what it sent before is read
        (its events queued) up to the end, and ``connection_lost`` is queued, as any call would find
        it. A daemon that hangs with its socket open still counts as connected."""
        with self._lock:
            if self._sock is not None:
                p = select.poll()
                p.register(self._sock.fileno(), select.POLLIN | _POLLRDHUP)
                if any(ev & (_POLLRDHUP | select.POLLHUP | select.POLLERR) for _, ev in p.poll(0)):
                    try:
                        # Bounded: a closed socket holds a finite amount, each round reads some or ends.
                        for _ in range(4096):
                            if self._sock is None:
                                break
                            self._read_some(None)
                    except ProtocolError:
                        pass  # the connection was dropped for it: not connected
            return self._sock is not None

    def close(self) -> None:
        """Closes the connection; the daemon stops this connection's players."""
        with self._lock:
            self._closed = True
            if self._sock is not None:
                self._drop()
            for fd in (self._wake_r, self._wake_w):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._wake_r = self._wake_w = -1
            self._epoll.close()

    def _drop(self) -> None:
        assert self._sock is not None
        try:
            self._epoll.unregister(self._sock.fileno())
        except (OSError, ValueError):
            pass
        self._sock.close()
        self._sock = None
        self._lines = LineBuffer()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _gone(self) -> DisconnectedError:
        """Why a request cannot go out: this client was closed, or its connection was lost."""
        if self._closed:
            return DisconnectedError("this Client was closed (close(), or the end of its with block): make a new one")
        return lost(self.path)

    def reconnect(self) -> None:
        """After ``connection_lost``: connects again to the same path with the same app id and
        subscription. Engines stay usable; players do not (make them again). ``fileno()`` stays."""
        with self._lock:
            if self._closed:
                raise self._gone()
            if self._sock is not None:
                return
            self._open()
            try:
                self._greet()
            except HapticdError:
                if self._sock is not None:
                    self._drop()
                raise

    def fileno(self) -> int:
        """Readable while events wait or the daemon sent something: ``select`` it, then
        ``dispatch()``. The same descriptor for the client's whole life."""
        return self._epoll.fileno()

    def set_timeout(self, seconds: float) -> None:
        self.timeout = finite("timeout", seconds, 0.001, 600)

    # -- reading ------------------------------------------------------------------------------

    def _lose(self) -> None:
        if self._sock is None:
            return
        self._drop()
        self._generation += 1
        for p in self._players:
            p.status.state = "invalid"
        self._enqueue(Event(CONNECTION_LOST))

    def _sync_wake(self) -> None:
        if len(self._queue) and not self._signalled:
            os.write(self._wake_w, b"x")
            self._signalled = True
        elif not len(self._queue) and self._signalled:
            try:
                os.read(self._wake_r, 64)
            except BlockingIOError:
                pass
            self._signalled = False

    def _enqueue(self, e: Event) -> None:
        note_event(self._players, e)
        self._queue.put(e)
        self._sync_wake()

    def _read_some(self, awaiting: Optional[int]) -> Optional[Dict[str, Any]]:
        """Reads what is there without blocking; returns the reply to ``awaiting`` if it came."""
        reply = None
        for _ in range(64):
            if self._sock is None:
                break
            try:
                data = self._sock.recv(65536)
            except BlockingIOError:
                break
            except InterruptedError:
                continue
            except OSError:
                data = b""
            if not data:
                self._lose()
                break
            try:
                lines = self._lines.feed(data, self.path)
                for line in lines:
                    o = parse_line(line, self.path)
                    if isinstance(o.get("event"), str):
                        self._enqueue(Event.from_json(o))
                    elif awaiting is not None and reply is None and (o.get("id") is None or o.get("id") == awaiting):
                        reply = o
            except ProtocolError:
                self._lose()
                raise
        return reply

    # -- requests -----------------------------------------------------------------------------

    def _request(self, cmd: str, members: Mapping[str, Any] = {}, pattern: Optional[Pattern] = None) -> Dict[str, Any]:
        pieces = uploaded(pattern)
        if pieces is not None:
            # Too long to go inline: its text in pieces ahead of the request, which names it. The
            # request is sent after a piece failed too (the daemon then drops the upload); the
            # piece's error is the one raised.
            upload = next(self._uploads)
            failure: Optional[HapticdError] = None
            for piece in pieces:
                try:
                    self._request("pattern.upload", {"upload": upload, "text": piece})
                except HapticdError as e:
                    failure = e
                    break
            try:
                result = self._request(cmd, {**members, "upload": upload})
            except HapticdError:
                if failure is None:
                    raise
            if failure is not None:
                raise failure
            return result
        with self._lock:
            if self._sock is None:
                raise self._gone()
            self._next_id += 1
            rid = self._next_id
            line = encode(rid, cmd, members, pattern)
            deadline = time.monotonic() + self.timeout
            reply = None
            sent = 0
            while sent < len(line):
                assert self._sock is not None
                try:
                    sent += self._sock.send(line[sent:])
                except BlockingIOError:
                    # The daemon reads no further requests while our unread output is over its bound.
                    self._wait(select.POLLOUT | select.POLLIN, deadline, cmd, "take")
                    reply = self._read_some(rid) or reply
                except (BrokenPipeError, ConnectionResetError):
                    # Closed on us, perhaps after saying why (a refusal over its limits).
                    reply = self._read_some(rid) or reply
                    if reply is None:
                        self._lose()
                        raise self._gone() from None
                    break
                if self._sock is None and reply is None:
                    raise self._gone()
            while reply is None:
                if self._sock is None:
                    raise self._gone()
                self._wait(select.POLLIN, deadline, cmd, "answer")
                reply = self._read_some(rid)
            return result_of(reply, cmd, self.path)

    def _wait(self, events: int, deadline: float, cmd: str, verb: str) -> None:
        assert self._sock is not None
        p = select.poll()
        p.register(self._sock.fileno(), events)
        left = deadline - time.monotonic()
        if left <= 0 or not p.poll(left * 1000):
            raise HapticdTimeoutError(f"hapticd at {self.path} did not {verb} `{cmd}` within {self.timeout:g} s (Client(timeout=…))")

    def request(self, cmd: str, **members: Any) -> Dict[str, Any]:
        """Any command, e.g. ``request("engine.status", device=1)``: its result object."""
        return self._request(cmd, members)

    # -- queries ------------------------------------------------------------------------------

    def ping(self) -> None:
        self._request("ping")

    def version(self) -> Dict[str, Any]:
        """The daemon's ``version`` result: ``{"version": "MAJOR.MINOR.PATCH", "protocol": 1}``."""
        return self._request("version")

    def devices(self) -> List[Dict[str, Any]]:
        """The pads, as the ``devices`` command lists them."""
        return list(self._request("devices").get("devices", []))

    def patterns(self) -> List[Dict[str, Any]]:
        """The daemon's pattern library: name, duration, path, description."""
        return list(self._request("patterns").get("patterns", []))

    def capabilities(self, device: Optional[int] = None) -> Dict[str, Any]:
        """What a pad can do: localities, motors, resolution, pacing, parameters."""
        return self._request("capabilities", engine_members(device, None))

    def hello(self, app: str) -> Dict[str, Any]:
        """Names the app (1…128 bytes of UTF-8 without spaces or control characters, e.g.
        ``org.example.Game``; ``ValueError`` before anything is sent otherwise), whose rules the
        daemon's policy applies: ``{"app", "client", "uid", "process", "policy"}``."""
        result = self._request("hello", {"app": check_app_id(app)})
        self.app = app
        self.identity = result
        return result

    def policy(self) -> Dict[str, Any]:
        """The policy in force for this client: ``mode`` (also as ``profile``, its old name),
        ``max_strength``, ``duck``, and ``app``
        (``id``, ``configured``, ``enabled``, ``gain``, ``priority``, ``important_allowed``,
        ``heard_at``)."""
        return self._request("policy")

    def policy_set(self, mode: Optional[str] = None, max_strength: Optional[float] = None, duck: Optional[float] = None,
                   *, profile: Optional[str] = None) -> Dict[str, Any]:
        """``policy.set`` (root and admins): the global mode (full, quiet, silent), ceiling and
        ducking until the daemon reloads; the policy after. ``profile=`` is the mode's old name."""
        return self._request(*policy_set_request(mode, max_strength, duck, profile))

    def subscribe(self, events: Iterable[str]) -> List[str]:
        """Which events the daemon sends (names from ``hapticd.EVENTS``)."""
        names = list(events)
        result = self._request("subscribe", {"events": names})
        self._subscription = names
        return list(result.get("events", []))

    def stop_all(self) -> int:
        """The panic button: every player of this user (root and admins: everyone's)."""
        return int(self._request("stop_all").get("stopped", 0))

    # -- Core Haptics ---------------------------------------------------------------------------

    def engine(self, device: Optional[int] = None, locality: str = "default", priority: Optional[int] = None) -> "Engine":
        """An engine for a pad (None: the lowest-numbered connected one, at each command) and a
        locality; checked with the daemon."""
        e = Engine(self, device, locality, priority)
        e.status()
        return e

    def play(
        self,
        pattern: Union[Pattern, str],
        device: Optional[int] = None,
        locality: Optional[str] = None,
        loop: bool = False,
        rate: float = 1.0,
        priority: Optional[int] = None,
    ) -> int:
        """Plays a pattern (a ``Pattern``, library name or path) once; returns the player's number."""
        return Engine(self, device, locality, priority).play(pattern, loop=loop, rate=rate)

    def feedback(
        self,
        type: str,
        style: Optional[str] = None,
        intensity: Optional[float] = None,
        important: bool = False,
        device: Optional[int] = None,
        locality: Optional[str] = None,
        priority: Optional[int] = None,
    ) -> int:
        """UIKit's feedback: ``impact`` (light, medium, heavy, soft, rigid), ``selection``,
        ``notification`` (success, warning, error)."""
        return Engine(self, device, locality, priority).feedback(type, style, intensity, important)

    def rumble(
        self, strong: float, weak: float, duration: float, delay: float = 0, device: Optional[int] = None, priority: Optional[int] = None
    ) -> Dict[str, Any]:
        """A plain rumble (SDL_RumbleGamepad); replaces this connection's previous one; 0, 0 stops."""
        return Engine(self, device, None, priority).rumble(strong, weak, duration, delay)

    def prepare(self, device: Optional[int] = None, locality: Optional[str] = None) -> Dict[str, Any]:
        """UIKit's prepare(): the least latency for the next few seconds."""
        return self._request("prepare", engine_members(device, locality))

    # -- events ---------------------------------------------------------------------------------

    def set_event_callback(self, fn: Optional[EventCallback]) -> None:
        """The function ``dispatch`` calls for each event (None: events wait for ``next_event``)."""
        self._callback = fn

    def _fill(self, timeout: Optional[float]) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:
                if self._sock is not None:
                    self._read_some(None)
                if len(self._queue):
                    return
                if self._sock is None:
                    raise self._gone()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return
            select.select([self.fileno()], [], [], left)

    def next_event(self, timeout: Optional[float] = 0) -> Optional[Event]:
        """The next event, waiting up to ``timeout`` seconds (None: until one comes); None when none
        came in time. When the connection is lost, the events read before it and then
        ``connection_lost`` are returned; after that, with nothing left waiting, it raises
        ``DisconnectedError`` (at once, whatever the timeout) until ``reconnect()`` — as does a
        closed client."""
        try:
            self._fill(timeout)
        except DisconnectedError:
            pass
        with self._lock:
            e = self._queue.get()
            self._sync_wake()
        if e is None and self._sock is None:
            raise self._gone()
        return e

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
        """Events as they come; ends after ``connection_lost``, or when none came for ``timeout``
        seconds (None: never)."""
        while True:
            e = self.next_event(timeout)
            if e is None:
                return
            yield e
            if e.type == CONNECTION_LOST:
                return

    def wait_for(self, type: str, player: Optional[int] = None, timeout: float = 10) -> Event:
        """The next event of ``type`` (and ``player``), skipping others; ``HapticdTimeoutError``, or
        ``DisconnectedError`` once the connection is lost (its ``connection_lost`` skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            e = self.next_event(max(left, 0)) if left > 0 else None
            if e is None:
                raise HapticdTimeoutError(f"no {type} event within {timeout:g} s")
            if e.type == type and (player is None or e.player == player):
                return e

    def dispatch(self, timeout: float = 0) -> int:
        """Reads what came, waiting up to ``timeout`` seconds when nothing waits, and hands every
        waiting event to the callback. Returns how many it handed over; ``DisconnectedError`` once
        the connection is lost and its ``connection_lost`` was handed over."""
        try:
            self._fill(timeout)
        except DisconnectedError:
            if not len(self._queue):
                raise
        handed = 0
        with self._lock:
            waiting = len(self._queue)
        while handed < waiting and self._callback is not None:
            with self._lock:
                e = self._queue.get()
                self._sync_wake()
            if e is None:
                break
            self._callback(e)
            handed += 1
        return handed


class Engine(EngineCore):
    __doc__ = EngineCore.__doc__

    def status(self) -> Dict[str, Any]:
        """``engine.status``: running, current_time, playing, players, my_players, …"""
        r = self.client._request("engine.status", self._members())
        self._note_clock(r, "current_time")
        return r

    def current_time(self) -> float:
        """The engine's clock now, estimated from the last reply (a request the first time); never
        earlier than a time it gave before."""
        if self._offset is None:
            self.status()
        return self._clock_now()

    def start(self) -> None:
        """Core Haptics' start(): readies the engine for this app (``prepare``);
        ``EngineStoppedError`` if an admin stopped it."""
        error = self._stopped(self.prepare())
        if error is not None:
            raise error

    def stop(self) -> None:
        """Core Haptics' stop(): stops this connection's players on the engine, dropping
        starts scheduled for later (``player.cancel``)."""
        for pid in self.status().get("my_players", []):
            try:
                self.client._request("player.cancel", {"player": pid})
            except HapticdError as e:
                if e.code != "not_found":
                    raise

    def prepare(self) -> Dict[str, Any]:
        """UIKit's prepare(): ``engine``, ``effect``, ``prepared_until``."""
        r = self.client._request("prepare", self._members())
        self._note_clock(r, "engine_time")
        return r

    def admin(self, action: str) -> Dict[str, Any]:
        """``engine.start``, ``engine.stop`` or ``engine.reset`` for every client: root and admins."""
        return self.client._request(*self._admin_request(action))

    def capabilities(self) -> Dict[str, Any]:
        return self.client.capabilities(self.device)

    def make_player(self, pattern: Union[Pattern, str], advanced: bool = True) -> "Player":
        """makeAdvancedPlayer(with:) (or makePlayer(with:) with ``advanced=False``)."""
        r = self.client._request(*self._create_request(pattern, advanced))
        self._note_clock(r, "engine_time")
        p = Player(self.client, r)
        self.client._players.append(p)
        return p

    def play(self, pattern: Union[Pattern, str], loop: bool = False, rate: float = 1.0) -> int:
        """CHHapticEngine.playPattern: a one-shot player; returns its number (for events)."""
        r = self.client._request(*self._play_request(pattern, loop, rate))
        self._note_clock(r, "engine_time")
        return int(r["player"])

    def feedback(self, type: str, style: Optional[str] = None, intensity: Optional[float] = None, important: bool = False) -> int:
        return int(self.client._request(*self._feedback_request(type, style, intensity, important))["player"])

    def rumble(self, strong: float, weak: float, duration: float, delay: float = 0) -> Dict[str, Any]:
        return self.client._request(*self._rumble_request(strong, weak, duration, delay))


class Player(PlayerCore):
    __doc__ = PlayerCore.__doc__

    def _cmd(self, cmd: str, members: Mapping[str, Any] = {}) -> "Player":
        self._check_generation()
        try:
            r = self.client._request(cmd, {**members, "player": self.id})
        except PlayerInvalidatedError:
            self.status.state = "invalid"
            raise
        self.status.update(r)
        return self

    def start(self, at: Optional[float] = None, after: Optional[float] = None) -> "Player":
        return self._cmd("player.start", time_members(at, after))

    def stop(self, at: Optional[float] = None, after: Optional[float] = None) -> "Player":
        return self._cmd("player.stop", time_members(at, after))

    def pause(self, at: Optional[float] = None, after: Optional[float] = None) -> "Player":
        return self._cmd("player.pause", time_members(at, after))

    def resume(self, at: Optional[float] = None, after: Optional[float] = None) -> "Player":
        return self._cmd("player.resume", time_members(at, after))

    def cancel(self) -> "Player":
        """Stops at once and drops every pending command — starts, stops, and parameter values
        and curves scheduled for later; a curve already under way runs on (docs/PROTOCOL.md)."""
        return self._cmd("player.cancel")

    def seek(self, offset: float) -> "Player":
        return self._cmd("player.seek", {"offset": finite("offset", offset, 0)})

    def set(self, loop: Optional[bool] = None, loop_end: Optional[float] = None, rate: Optional[float] = None, muted: Optional[bool] = None) -> "Player":
        """Any of loop, loop_end (0: the pattern's end), rate (> 0), muted."""
        return self._cmd("player.set", self._set_members(loop, loop_end, rate, muted))

    def send_parameters(self, parameters: Optional[Mapping[str, Number]] = None, at: Optional[float] = None, after: Optional[float] = None, **values: Number) -> "Player":
        """``send_parameters(intensity=0.5, sharpness=-0.2)``: intensity 0…1 multiplies; sharpness,
        attack, decay, release −1…1 add."""
        return self._cmd("player.send_parameters", self._parameters_members(parameters, values, at, after))

    def schedule_curve(self, parameter: str, points: Iterable[Tuple[Number, Number]], at: Optional[float] = None, after: Optional[float] = None) -> "Player":
        """A parameter curve: ``[(time, value), …]`` from its start, one point or more, in order
        (the daemon's ``limits.max_curve_points``, 1024 by default, bounds them:
        ``LimitExceededError``)."""
        return self._cmd("player.schedule_curve", self._curve_members(parameter, points, at, after))

    def destroy(self) -> None:
        """Destroys the player in the daemon (if still there)."""
        if not self._forget():
            return
        try:
            self._cmd("player.destroy")
        except HapticdError as e:
            if e.code not in ("not_found", "player_invalidated"):
                raise

    def __enter__(self) -> "Player":
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()
