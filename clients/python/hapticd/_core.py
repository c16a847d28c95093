"""What the synchronous and the asyncio clients share: errors, events, patterns, the socket path,
and how requests are written and replies read. No I/O here."""

from __future__ import annotations

import json
import math
import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

#: The longest line read from the daemon (its own ``limits.max_line_bytes`` default). A longer one
#: is a protocol error and drops the connection: a hostile peer cannot grow the buffer.
MAX_LINE = 1024 * 1024
#: Replies nest 4 deep; deeper ones are refused before ``json.loads`` sees them.
MAX_REPLY_DEPTH = 32
#: Events that wait for the application: 255, then one ``events_dropped`` counting those that came
#: while they waited.
EVENT_QUEUE = 256
#: A pattern's text is at most this long (as libhapticd's HAPTICD_MAX_PATTERN_BYTES).
MAX_PATTERN_BYTES = 16 * 1024 * 1024
#: A pattern's text longer than this goes ahead of its request in pieces of UPLOAD_PIECE_CHARS
#: characters (``pattern.upload``), and the request names the upload: a pattern is then bounded by
#: the daemon's ``limits.max_upload_bytes`` (4 MiB by default), not by its 1 MiB request line.
INLINE_PATTERN_CHARS = 256 * 1024
UPLOAD_PIECE_CHARS = 64 * 1024
DEFAULT_TIMEOUT = 5.0

#: Apple's localities (GCHapticsLocality). ``leftHandle`` is the strong (low-frequency) motor
#: alone, ``rightHandle`` the weak one; no evdev pad has the trigger localities.
LOCALITIES = ("default", "all", "handles", "leftHandle", "rightHandle", "triggers", "leftTrigger", "rightTrigger")
#: Dynamic parameters by their short names (the AHAP IDs are accepted too).
PARAMETERS = ("intensity", "sharpness", "attack", "decay", "release")
#: Every event the daemon sends, and what ``connect`` subscribes to (all but ``device.output``).
EVENTS = ("player.finished", "engine.stopped", "engine.reset", "device.added", "device.removed", "device.output")
DEFAULT_EVENTS = ("player.finished", "engine.stopped", "engine.reset", "device.added", "device.removed")
#: Made by the library, not the daemon: the connection was lost.
CONNECTION_LOST = "connection_lost"
EVENTS_DROPPED = "events_dropped"

Number = Union[int, float]


# --------------------------------------------------------------------------------------------
# Errors


class HapticdError(Exception):
    """A failed call. ``code`` is the daemon's error code (``"invalid_pattern"``, …) or the
    library's (``"not_running"``, ``"timeout"``, …); ``details`` lists, for ``invalid_pattern``,
    every problem with its JSON path. The message says what to do."""

    code = "error"

    def __init__(self, message: str, code: Optional[str] = None, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details: List[str] = list(details)

    def __str__(self) -> str:
        return "\n".join([self.message] + ["  " + d for d in self.details])


class NotRunningError(HapticdError, ConnectionError):
    """No daemon at the socket path."""

    code = "not_running"


class PermissionDeniedError(HapticdError, PermissionError):
    """The socket's group, the daemon's allow-list, an admin-only control, another client's player."""

    code = "permission_denied"


class DisconnectedError(HapticdError, ConnectionError):
    """The connection was lost (the daemon stopped or restarted): ``reconnect()``."""

    code = "disconnected"


class HapticdTimeoutError(HapticdError, TimeoutError):
    """No reply within the client's timeout."""

    code = "timeout"


class ProtocolError(HapticdError):
    """The daemon sent something the library cannot read; the connection was dropped."""

    code = "protocol"


class BadJSONError(HapticdError, ValueError):
    """A pattern's text is not JSON (with its line and column), or the daemon's ``bad_json``."""

    code = "bad_json"


class BadRequestError(HapticdError, ValueError):
    code = "bad_request"


class UnknownCommandError(HapticdError):
    """The daemon does not know the command: it is older than the library."""

    code = "unknown_command"


class InvalidPatternError(HapticdError, ValueError):
    """The daemon refused the pattern; ``details`` has every problem with its JSON path."""

    code = "invalid_pattern"


class NotFoundError(HapticdError, LookupError):
    code = "not_found"


class LimitExceededError(HapticdError):
    """A bound of the daemon's ``[limits]``: the message names the key."""

    code = "limit_exceeded"


class DeviceError(HapticdError):
    code = "device_error"


class EngineStoppedError(HapticdError):
    code = "engine_stopped"


class PlayerInvalidatedError(HapticdError):
    """The player was lost in an engine reset or with the connection: make it again."""

    code = "player_invalidated"


class UnsupportedError(HapticdError):
    code = "unsupported"


_BY_CODE = {
    cls.code: cls
    for cls in (
        PermissionDeniedError,
        BadJSONError,
        BadRequestError,
        UnknownCommandError,
        InvalidPatternError,
        NotFoundError,
        LimitExceededError,
        DeviceError,
        EngineStoppedError,
        PlayerInvalidatedError,
        UnsupportedError,
    )
}


def error_from_reply(reply: Mapping[str, Any], cmd: str, path: str) -> HapticdError:
    """The exception for a ``{"ok": false, "error": …}`` reply."""
    err = reply.get("error") if isinstance(reply.get("error"), dict) else {}
    code = str(err.get("code", "error"))
    message = str(err.get("message", "hapticd refused the request"))
    details = [str(d) for d in err.get("details", []) if isinstance(d, str)] if isinstance(err.get("details"), list) else []
    hint = ""
    if code == "unknown_command":
        hint = " (this hapticd is older than the library: update it)"
    elif code == "permission_denied" and "allow" in message:
        hint = " (ask for your user or group to be added to clients.allow_uids or clients.allow_gids in hapticd.toml)"
    cls = _BY_CODE.get(code, HapticdError)
    return cls(f"{message}{hint} [{code}, from `{cmd}` at {path}]", code, details)


def not_running(path: str, why: str) -> NotRunningError:
    return NotRunningError(
        f"hapticd is not running at {path} ({why}). Start it (systemctl start hapticd.socket, or hapticd --simulate "
        "for a simulated pad), or give its socket: Client(socket_path) or $HAPTICD_SOCKET"
    )


def permission_error(path: str) -> PermissionDeniedError:
    import grp
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        return PermissionDeniedError(f"permission denied on {path}: a directory on the way is closed to you ({e.strerror})")
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return PermissionDeniedError(
        f"permission denied on {path}: the socket is for group '{group}' (mode {stat.S_IMODE(st.st_mode):04o}). "
        f"Join it (sudo usermod -aG {group} $USER, then log in again), or run as that group"
    )


def connect_step(s: "socket.socket", path: str, deadline: float, timeout: float) -> bool:
    """One try at connecting the non-blocking socket ``s`` to hapticd: True once connected, False
    while the daemon's queue of connections not yet accepted is full (try again: a full queue gives
    no event to wait on). Raises the library's error for anything else, ``s`` closed. Connecting
    without blocking is what bounds it: a Unix socket's blocking connect waits for room in that
    queue without limit (a daemon that hangs), and asyncio's would report the socket connected
    when it is not."""
    try:
        s.connect(path)
        return True
    except BlockingIOError:
        if time.monotonic() < deadline:
            return False
        s.close()
        raise HapticdTimeoutError(
            f"hapticd at {path} does not accept connections (its queue is full) within {timeout:g} s (timeout=…)"
        ) from None
    except FileNotFoundError:
        s.close()
        raise not_running(path, "no such socket") from None
    except ConnectionRefusedError:
        s.close()
        raise not_running(path, "connection refused") from None
    except PermissionError:
        s.close()
        raise permission_error(path) from None
    except OSError as e:
        s.close()
        raise HapticdError(f"cannot connect to hapticd at {path}: {e.strerror}", "io") from None


#: How long to wait before trying again to connect while the daemon's queue is full (seconds).
CONNECT_RETRY = 0.005


def lost(path: str) -> DisconnectedError:
    return DisconnectedError(
        f"the connection to hapticd at {path} was lost (the daemon stopped or restarted): call reconnect(), "
        "then make your players again"
    )


# --------------------------------------------------------------------------------------------
# App ids


def check_app_id(app: str) -> str:
    """``app`` if the daemon would take it as an app id, else ``ValueError`` before anything is
    sent. The daemon's rule (``hello``'s "app": HelloRequest in Sources/HapticProtocol/Requests.swift):
    1…128 bytes of UTF-8, every character above U+0020 and not U+007F — no spaces, no control
    characters."""
    if not isinstance(app, str):
        raise TypeError(f"an app id is a str, not {type(app).__name__}")
    try:
        size = len(app.encode("utf-8"))
    except UnicodeEncodeError:  # a lone surrogate: not UTF-8
        size = 0
    if not 1 <= size <= 128 or any(ord(ch) <= 0x20 or ord(ch) == 0x7F for ch in app):
        raise ValueError(f'an app id is 1…128 bytes of UTF-8 without spaces or control characters, such as "org.example.Game", not {app!r}')
    return app


# --------------------------------------------------------------------------------------------
# The socket path


def default_socket_path() -> str:
    """The path hapticctl would use: ``$HAPTICD_SOCKET``; else, for a user other than root,
    ``$XDG_RUNTIME_DIR/hapticd.sock`` when it exists or ``/run/hapticd/hapticd.sock`` does not;
    else ``/run/hapticd/hapticd.sock``."""
    system = "/run/hapticd/hapticd.sock"
    env = os.environ.get("HAPTICD_SOCKET")
    if env:
        return env
    if os.getuid() != 0:
        runtime = os.environ.get("XDG_RUNTIME_DIR")
        if runtime:
            user = os.path.join(runtime, "hapticd.sock")
            if os.path.exists(user) or not os.path.exists(system):
                return user
    return system


# --------------------------------------------------------------------------------------------
# Events


@dataclass
class Event:
    """An event from the daemon (``player.finished``, ``engine.stopped``, ``engine.reset``,
    ``device.added``, ``device.removed``, ``device.output``, ``events_dropped``) or from the
    library (``connection_lost``). Members the event has not are ``None``."""

    type: str
    device: Optional[int] = None
    player: Optional[int] = None
    locality: Optional[str] = None
    reason: Optional[str] = None
    count: Optional[int] = None
    strong: Optional[int] = None
    weak: Optional[int] = None
    time: Optional[float] = None
    name: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, o: Mapping[str, Any]) -> "Event":
        def num(key: str) -> Optional[int]:
            v = o.get(key)
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None

        def text(key: str) -> Optional[str]:
            v = o.get(key)
            return v if isinstance(v, str) else None

        t = o.get("time")
        return cls(
            type=str(o.get("event")),
            device=num("device"),
            player=num("player"),
            locality=text("locality"),
            reason=text("reason"),
            count=num("count"),
            strong=num("strong"),
            weak=num("weak"),
            time=float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else None,
            name=text("name"),
            raw=dict(o),
        )


class EventQueue:
    """A bounded queue of events, as libhapticd's: at most ``capacity`` wait — ``capacity - 1``
    events, then one ``events_dropped`` in the last place that counts every event that came while
    they waited (the daemon's own ``events_dropped`` adds to it then; below that, it waits in order
    like any event). A ``connection_lost`` always finds a place after them (one more): the
    application must learn of the loss."""

    def __init__(self, capacity: int = EVENT_QUEUE) -> None:
        from collections import deque

        self.capacity = capacity
        self.items: "deque[Event]" = deque()

    def __len__(self) -> int:
        return len(self.items)

    def put(self, e: Event) -> None:
        last = self.items[-1] if self.items else None
        room = len(self.items) < self.capacity + 1
        if e.type == CONNECTION_LOST:
            # One waiting already says so (lost again after a reconnect, nothing read between).
            if (last is None or last.type != CONNECTION_LOST) and room:
                self.items.append(e)
            return
        if len(self.items) < self.capacity - 1:
            self.items.append(e)
            return
        dropped = (e.count or 0) if e.type == EVENTS_DROPPED else 1
        assert last is not None
        if last.type == EVENTS_DROPPED:
            last.count = (last.count or 0) + dropped
        elif room:  # capacity - 1 events wait (or a connection_lost ends them): the next place is the count
            self.items.append(Event(EVENTS_DROPPED, count=dropped))
        # Else full, ending with a connection_lost after a count: only when the connection was lost,
        # made again and lost again with nothing read — what came between is not counted.

    def get(self) -> Optional[Event]:
        return self.items.popleft() if self.items else None


# --------------------------------------------------------------------------------------------
# Reading lines


def _depth_ok(line: bytes) -> bool:
    depth = 0
    in_string = False
    escaped = False
    for b in line:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:
                escaped = True
            elif b == 0x22:
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x7B, 0x5B):
            depth += 1
            if depth > MAX_REPLY_DEPTH:
                return False
        elif b in (0x7D, 0x5D):
            depth -= 1
    return True


def parse_line(line: bytes, path: str) -> Dict[str, Any]:
    """One line from the daemon as an object, or ``ProtocolError``."""
    try:
        if not _depth_ok(line):
            raise ValueError("nested too deep")
        o = json.loads(line)
        if not isinstance(o, dict):
            raise ValueError("not an object")
        return o
    except (ValueError, UnicodeDecodeError, RecursionError):
        shown = line[:60].decode("utf-8", "replace")
        raise ProtocolError(f"hapticd at {path} sent a line this library cannot read ({shown}…); the connection was dropped") from None


class LineBuffer:
    """Bytes in, complete lines out, never holding more than ``MAX_LINE`` of an unfinished line."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def feed(self, data: bytes, path: str) -> List[bytes]:
        self.buf += data
        lines = []
        while True:
            nl = self.buf.find(b"\n")
            if nl < 0:
                break
            line = bytes(self.buf[:nl]).rstrip(b"\r ")
            del self.buf[: nl + 1]
            if line:
                lines.append(line)
        if len(self.buf) > MAX_LINE:
            self.buf.clear()
            raise ProtocolError(f"hapticd at {path} sent a line longer than {MAX_LINE} bytes; the connection was dropped")
        return lines


# --------------------------------------------------------------------------------------------
# AHAP text


class _Scanner:
    """Checks AHAP text with the daemon's leniency (comments, trailing commas, single-quoted
    strings, unquoted keys, a leading '+', NaN and Infinity, a byte order mark) and writes it back
    on one line without comments and whitespace — as libhapticd's src/ahap_text.c does."""

    MAX_DEPTH = 128

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.line = 1
        self.line_start = 0
        self.out: List[str] = []
        self.depth = 0

    def fail(self, reason: str) -> BadJSONError:
        column = self.i - self.line_start + 1
        return BadJSONError(f"line {self.line}, column {column}: {reason}")

    def cur(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def adv(self) -> None:
        if self.s[self.i] == "\n":
            self.line += 1
            self.line_start = self.i + 1
        self.i += 1

    def take(self) -> None:
        self.out.append(self.s[self.i])
        self.adv()

    def describe(self) -> str:
        c = self.cur()
        if not c:
            return "end of file"
        return f"'{c}'" if " " <= c < "\x7f" else f"character U+{ord(c):04X}"

    def trivia(self) -> None:
        while True:
            c = self.cur()
            if c in (" ", "\t", "\n", "\r") and c:
                self.adv()
            elif c == "/":
                nxt = self.s[self.i + 1] if self.i + 1 < self.n else ""
                if nxt == "/":
                    while self.cur() and self.cur() != "\n":
                        self.adv()
                elif nxt == "*":
                    open_line = self.line
                    end = self.s.find("*/", self.i + 2)
                    if end < 0:
                        while self.i < self.n:
                            self.adv()
                        raise self.fail(f"the comment opened on line {open_line} is never closed")
                    while self.i < end + 2:
                        self.adv()
                else:
                    raise self.fail("unexpected '/' (comments start with // or /*)" if nxt else "unexpected '/'")
            else:
                return

    def ident_len(self) -> int:
        e = self.i
        while e < self.n and (self.s[e].isascii() and (self.s[e].isalnum() or self.s[e] in "_$")):
            e += 1
        return e - self.i

    def word(self) -> str:
        return self.s[self.i : self.i + self.ident_len()]

    def take_n(self, k: int) -> None:
        for _ in range(k):
            self.take()

    def string(self) -> None:
        quote = self.cur()
        self.take()
        while True:
            c = self.cur()
            if not c:
                raise self.fail("a string is never closed")
            if c == quote:
                self.take()
                return
            if c == "\n":
                raise self.fail("a string is never closed before the end of the line")
            if c < " ":
                raise self.fail(f"control character 0x{ord(c):x} in a string (escape it)")
            if c == "\\":
                self.take()
                e = self.cur()
                if not e:
                    raise self.fail("a string is never closed")
                if e == "u":
                    self.take()
                    for _ in range(4):
                        if not self.cur() or self.cur() not in "0123456789abcdefABCDEF":
                            raise self.fail("\\u needs four hex digits")
                        self.take()
                    continue
                if e not in "\"'\\/bfnrt":
                    raise self.fail(f"invalid escape '\\{e}' in a string")
            self.take()

    def number(self) -> None:
        if self.cur() in ("-", "+") and self.cur():
            self.take()
        for w in ("Infinity", "NaN"):
            if self.word() == w:
                self.take_n(len(w))
                return
        digits = 0
        while self.cur() and self.cur() in "0123456789":
            self.take()
            digits += 1
        if self.cur() == ".":
            self.take()
            while self.cur() and self.cur() in "0123456789":
                self.take()
                digits += 1
        if not digits:
            raise self.fail("invalid number")
        if self.cur() and self.cur() in "eE":
            self.take()
            if self.cur() and self.cur() in "+-":
                self.take()
            exp = 0
            while self.cur() and self.cur() in "0123456789":
                self.take()
                exp += 1
            if not exp:
                raise self.fail("invalid number: the exponent has no digits")
        if self.ident_len():
            raise self.fail(f"invalid number: unexpected {self.describe()}")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > self.MAX_DEPTH:
            raise self.fail("nesting deeper than 128 levels")

    def container(self, close: str) -> None:
        self.enter()
        open_line = self.line
        kind = "object" if close == "}" else "array"
        self.take()
        while True:
            self.trivia()
            c = self.cur()
            if not c:
                raise self.fail(f"the {kind} opened on line {open_line} is never closed")
            if c == close:
                self.take()
                break
            if kind == "object":
                if c in ("\"", "'"):
                    self.string()
                else:
                    k = self.ident_len()
                    if not k or c.isdigit():
                        raise self.fail(f"expected a member name or '}}', found {self.describe()}")
                    self.take_n(k)
                self.trivia()
                if self.cur() != ":":
                    raise self.fail(f"expected ':' after a member name, found {self.describe()}")
                self.take()
                self.trivia()
            elif c == ",":
                raise self.fail("expected a value or ']', found ','")
            self.value()
            self.trivia()
            c = self.cur()
            if not c:
                raise self.fail(f"the {kind} opened on line {open_line} is never closed")
            if c == ",":
                self.adv()
                self.trivia()
                if self.cur() != close:
                    self.out.append(",")
                continue
            if c == close:
                self.take()
                break
            what = "after a member's value" if kind == "object" else "in the array"
            raise self.fail(f"expected ',' or '{close}' {what}, found {self.describe()}")
        self.depth -= 1

    def value(self) -> None:
        c = self.cur()
        if not c:
            raise self.fail("expected a value, found end of file")
        if c == "{":
            return self.container("}")
        if c == "[":
            return self.container("]")
        if c in ("\"", "'"):
            return self.string()
        if c in "-+.0123456789":
            return self.number()
        w = self.word()
        if w in ("true", "false", "null", "NaN", "Infinity"):
            return self.take_n(len(w))
        if not w:
            raise self.fail(f"expected a value, found {self.describe()}")
        raise self.fail(f"expected a value, found '{w[:40]}' (strings need quotes)")

    def run(self) -> str:
        if self.s.startswith("\ufeff"):
            self.i = self.line_start = 1
        self.trivia()
        if not self.cur():
            raise self.fail("the document is empty")
        if self.cur() != "{":
            raise self.fail(f"an AHAP pattern is a JSON object ({{\"Pattern\": […]}}), found {self.describe()}")
        self.value()
        self.trivia()
        if self.i < self.n:
            raise self.fail(f"unexpected {self.describe()} after the end of the document")
        return "".join(self.out)


def minify_ahap(text: str) -> str:
    """AHAP text → one line of JSON, checked with the daemon's leniency; ``BadJSONError`` with the
    text's line and column otherwise."""
    return _Scanner(text).run()


@dataclass(frozen=True)
class Transient:
    """A HapticTransient event (CHHapticEvent), for ``Pattern.from_events``."""

    time: float
    intensity: float = 1.0
    sharpness: float = 0.5


@dataclass(frozen=True)
class Continuous:
    """A HapticContinuous event, for ``Pattern.from_events``."""

    time: float
    duration: float
    intensity: float = 1.0
    sharpness: float = 0.5


class Pattern:
    """A haptic pattern: a library pattern by name, an AHAP file or text, an AHAP object, or events.
    Syntax is checked here (``BadJSONError`` with line and column); what it means is checked by the
    daemon when it is played (``InvalidPatternError`` with JSON paths)."""

    def __init__(self, *, name: Optional[str] = None, text: Optional[str] = None) -> None:
        if (name is None) == (text is None):
            raise ValueError("a Pattern is a name or AHAP text: use Pattern.named, from_file, from_ahap or from_events")
        self.name = name
        self.text = text

    @classmethod
    def named(cls, name: str) -> "Pattern":
        """A pattern of the daemon's library (``hapticctl patterns`` lists them)."""
        if not isinstance(name, str) or not name or len(name.encode()) > 255:
            raise ValueError("a library pattern's name is 1…255 bytes")
        return cls(name=name)

    @classmethod
    def from_ahap(cls, ahap: Union[str, bytes, Mapping[str, Any]]) -> "Pattern":
        """AHAP text (``str``/``bytes``) or an already-parsed AHAP object (``dict``)."""
        if isinstance(ahap, Mapping):
            try:
                return cls(text=json.dumps(ahap, separators=(",", ":"), allow_nan=False))
            except (TypeError, ValueError) as e:
                raise BadJSONError(f"the AHAP object cannot be written as JSON: {e}") from None
        if isinstance(ahap, bytes):
            if len(ahap) > MAX_PATTERN_BYTES:
                raise HapticdError(f"the AHAP text is {len(ahap)} bytes; a pattern is at most {MAX_PATTERN_BYTES}", "file")
            ahap = ahap.decode("utf-8", "replace")
        if not isinstance(ahap, str):
            raise TypeError(f"an AHAP pattern is text (str or bytes) or a dict, not {type(ahap).__name__}")
        if len(ahap.encode()) > MAX_PATTERN_BYTES:
            raise HapticdError(f"the AHAP text is larger than {MAX_PATTERN_BYTES} bytes", "file")
        try:
            return cls(text=minify_ahap(ahap))
        except BadJSONError as e:
            raise BadJSONError(f"the AHAP text is not valid JSON: {e.message}") from None

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Pattern":
        """An AHAP file or a Meta Haptics Studio / Lofelt ``.haptic`` clip (the daemon tells them
        apart by their content), at most ``MAX_PATTERN_BYTES``."""
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_PATTERN_BYTES + 1)
        except OSError as e:
            raise HapticdError(f"cannot open the pattern file {os.fspath(path)}: {e.strerror}", "file") from None
        if len(data) > MAX_PATTERN_BYTES:
            raise HapticdError(f"the pattern file {os.fspath(path)} is larger than {MAX_PATTERN_BYTES} bytes", "file")
        try:
            return cls(text=minify_ahap(data.decode("utf-8", "replace")))
        except BadJSONError as e:
            raise BadJSONError(f"the pattern file {os.fspath(path)} is not valid JSON: {e.message}") from None

    @classmethod
    def from_events(cls, events: Iterable[Union[Transient, Continuous]]) -> "Pattern":
        """A pattern of transient and continuous events (intensity and sharpness 0…1)."""
        out = []
        for e in events:
            for v in (e.time, e.intensity, e.sharpness):
                if not math.isfinite(v):
                    raise ValueError("event times and values must be finite")
            if e.time < 0 or not 0 <= e.intensity <= 1 or not 0 <= e.sharpness <= 1:
                raise ValueError("an event's time is ≥ 0, its intensity and sharpness within 0…1")
            ev: Dict[str, Any] = {
                "EventType": "HapticTransient" if isinstance(e, Transient) else "HapticContinuous",
                "Time": e.time,
                "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": e.intensity},
                    {"ParameterID": "HapticSharpness", "ParameterValue": e.sharpness},
                ],
            }
            if isinstance(e, Continuous):
                if not (math.isfinite(e.duration) and e.duration > 0):
                    raise ValueError("a continuous event lasts > 0 seconds")
                ev["EventDuration"] = e.duration
            out.append({"Event": ev})
        return cls.from_ahap({"Version": 1.0, "Pattern": out})

    def __repr__(self) -> str:
        return f"Pattern.named({self.name!r})" if self.name is not None else f"Pattern(<{len(self.text or '')} bytes of AHAP>)"


def coerce_pattern(p: Union[Pattern, str]) -> Pattern:
    """A ``Pattern``, or a string: a file when written as a path (with a '/' or ending in .ahap,
    .haptic or .json — library names have neither), else a library name. (Not by whether a file of
    that name exists: a program's library name must not depend on its working directory.)"""
    if isinstance(p, Pattern):
        return p
    if isinstance(p, str):
        if "/" in p or p.lower().endswith((".ahap", ".haptic", ".json")):
            return Pattern.from_file(p)
        return Pattern.named(p)
    raise TypeError("a pattern is a Pattern, a library name or a path")


# --------------------------------------------------------------------------------------------
# Requests


def encode(request_id: int, cmd: str, members: Mapping[str, Any], pattern: Optional[Pattern] = None) -> bytes:
    """The request line: members without None values, the pattern as "name" or spliced "pattern"."""
    body: Dict[str, Any] = {"id": request_id, "cmd": cmd}
    for k, v in members.items():
        if v is not None:
            body[k] = v
    if pattern is not None and pattern.name is not None:
        body["name"] = pattern.name
    try:
        text = json.dumps(body, separators=(",", ":"), allow_nan=False)
    except ValueError:
        raise ValueError(f"`{cmd}`: numbers must be finite") from None
    if pattern is not None and pattern.text is not None:
        text = text[:-1] + ',"pattern":' + pattern.text + "}"
    return (text + "\n").encode()


def uploaded(pattern: Optional[Pattern]) -> Optional[List[str]]:
    """The pieces a pattern's text goes in (``pattern.upload``), or None when it goes inline."""
    if pattern is None or pattern.text is None or len(pattern.text) <= INLINE_PATTERN_CHARS:
        return None
    text = pattern.text
    return [text[i:i + UPLOAD_PIECE_CHARS] for i in range(0, len(text), UPLOAD_PIECE_CHARS)]


def finite(name: str, x: Number, lo: Optional[float] = None, hi: Optional[float] = None) -> float:
    """``x`` as a float, checked finite and within lo…hi."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number, not {x!r}")
    if lo is not None and hi is not None and not lo <= x <= hi:
        raise ValueError(f"{name} must be within {lo}…{hi}, not {x}")
    if lo is not None and x < lo:
        raise ValueError(f"{name} must be ≥ {lo}, not {x}")
    if hi is not None and x > hi:
        raise ValueError(f"{name} must be ≤ {hi}, not {x}")
    return float(x)


def time_members(at: Optional[float] = None, after: Optional[float] = None) -> Dict[str, Any]:
    """``at`` (engine clock; 0 or a past time: now) or ``after`` (seconds from now)."""
    if at is not None and after is not None:
        raise ValueError("give at or after, not both")
    if at is not None and finite("at", at) > 0:
        return {"at": float(at)}
    if after is not None and finite("after", after, 0) > 0:
        return {"after": float(after)}
    return {}


def check_priority(priority: Optional[int]) -> Optional[int]:
    if priority is None:
        return None
    if isinstance(priority, bool) or not isinstance(priority, int) or not -100 <= priority <= 100:
        raise ValueError(f"a priority is an integer within -100…100, not {priority!r}")
    return priority


def parameter_members(parameters: Optional[Mapping[str, Number]], kw: Mapping[str, Number]) -> Dict[str, float]:
    values: Dict[str, float] = {}
    for k, v in list((parameters or {}).items()) + list(kw.items()):
        values[k] = finite(f"parameter {k}", v)
    if not 1 <= len(values) <= 16:
        raise ValueError("send 1…16 parameters, e.g. intensity=0.5")
    return values


def curve_points(points: Iterable[Union[Tuple[Number, Number], Sequence[Number]]]) -> List[List[float]]:
    """The points as sent: at least one, as the protocol says. How many at most is the daemon's
    ``limits.max_curve_points`` (1024 by default, configurable): ``LimitExceededError`` from it."""
    out = [[finite("curve time", t, 0), finite("curve value", v)] for t, v in points]
    if not out:
        raise ValueError("a curve has at least one point")
    return out


@dataclass
class PlayerStatus:
    """A player as the daemon described it in its last reply (``state`` one of ``idle``,
    ``scheduled``, ``playing``, ``paused``, ``finished``; the library adds ``invalid``)."""

    player: int = -1
    device: int = -1
    locality: str = "default"
    state: str = "idle"
    offset: float = 0.0
    duration: float = 0.0
    advanced: bool = True
    loop: bool = False
    loop_end: float = 0.0
    rate: float = 1.0
    muted: bool = False
    engine_time: float = 0.0
    #: As the policy grants it: the asked priority, capped by the app's.
    priority: int = 0
    #: The policy's gain on the player, 0…1 (0: its app is not heard now).
    heard_at: float = 1.0

    def update(self, o: Mapping[str, Any]) -> None:
        for k in self.__dataclass_fields__:
            if k in o and o[k] is not None:
                cur = getattr(self, k)
                v = o[k]
                if isinstance(cur, bool):
                    v = bool(v)
                elif isinstance(cur, int):
                    v = int(v)
                elif isinstance(cur, float):
                    v = float(v)
                setattr(self, k, v)


def engine_members(device: Optional[int], locality: Optional[str]) -> Dict[str, Any]:
    m: Dict[str, Any] = {}
    if device is not None:
        m["device"] = device
    if locality is not None:
        m["locality"] = locality
    return m


# --------------------------------------------------------------------------------------------
# What both clients send and how they read the replies: the synchronous and the asyncio client
# differ only in how a request goes out and its reply comes back (``_request``).

#: A request before it is sent: command, members (None values left out), pattern.
Request = Tuple[str, Dict[str, Any], Optional[Pattern]]


def result_of(reply: Mapping[str, Any], cmd: str, path: str) -> Dict[str, Any]:
    """A reply's result object, or the error it carries raised."""
    if reply.get("ok") is not True:
        raise error_from_reply(reply, cmd, path)
    result = reply.get("result")
    if not isinstance(result, dict):
        raise ProtocolError(f"hapticd at {path} answered `{cmd}` without a result object")
    return result


def note_event(players: Iterable["PlayerCore"], e: Event) -> None:
    """What an event says of the client's players: finished, or lost in an engine reset."""
    if e.type == "player.finished":
        for p in players:
            if p.id == e.player:
                p.status.state = "finished"
    elif e.type == "engine.reset":
        for p in players:
            if p.status.device == e.device and p.status.locality == e.locality:
                p.status.state = "invalid"


def policy_set_request(mode: Optional[str], max_strength: Optional[float], duck: Optional[float],
                       profile: Optional[str] = None) -> Request:
    """``profile`` is the mode's name until hapticd 0.5 (still accepted; not with ``mode``)."""
    if mode is not None and profile is not None:
        raise ValueError("policy_set: give mode, or its old name profile, not both")
    members = {
        "mode": mode if mode is not None else profile,
        "max_strength": None if max_strength is None else finite("max_strength", max_strength, 0, 1),
        "duck": None if duck is None else finite("duck", duck, 0, 1),
    }
    return "policy.set", members, None


class EngineCore:
    """A pad and a locality (Core Haptics' CHHapticEngine, as GCController.haptics makes them).
    ``priority`` (-100…100, None: the app's) goes with everything it plays. The requests its
    methods send; ``Engine`` and ``AsyncEngine`` send them."""

    def __init__(self, client: Any, device: Optional[int] = None, locality: Optional[str] = "default", priority: Optional[int] = None) -> None:
        self.client = client
        self.device = device
        self.locality = locality
        self.priority = check_priority(priority)
        self._offset: Optional[float] = None
        self._last_reading = float("-inf")

    def _members(self, with_locality: bool = True) -> Dict[str, Any]:
        return engine_members(self.device, self.locality if with_locality else None)

    def _note_clock(self, result: Mapping[str, Any], key: str) -> None:
        t = result.get(key)
        if isinstance(t, (int, float)):
            self._offset = float(t) - time.monotonic()

    def _clock_now(self) -> float:
        # Each reply moves the estimate by its own trip's delay: a reading never goes back past one
        # already given.
        assert self._offset is not None
        self._last_reading = max(self._last_reading, time.monotonic() + self._offset)
        return self._last_reading

    def _stopped(self, prepared: Mapping[str, Any]) -> Optional[EngineStoppedError]:
        """The error ``start()`` raises when ``prepare`` found the engine stopped for good."""
        if prepared.get("engine") != "stopped":
            return None
        return EngineStoppedError(
            f"the engine of device {prepared.get('device')} ({self.locality}) is stopped and does not start on demand: "
            "an admin must start it (hapticctl engine start), or set engine.idle_shutdown in hapticd.toml"
        )

    def _admin_request(self, action: str) -> Request:
        if action not in ("start", "stop", "reset"):
            raise ValueError("action is start, stop or reset")
        return "engine." + action, self._members(), None

    def _create_request(self, pattern: Union[Pattern, str], advanced: bool) -> Request:
        return "player.create", {**self._members(), "advanced": advanced, "priority": self.priority}, coerce_pattern(pattern)

    def _play_request(self, pattern: Union[Pattern, str], loop: bool, rate: float) -> Request:
        pat = coerce_pattern(pattern)
        finite("rate", rate)
        members = {**self._members(), "loop": True if loop else None, "rate": float(rate) if rate != 1 else None, "priority": self.priority}
        return "play", members, pat

    def _feedback_request(self, type: str, style: Optional[str], intensity: Optional[float], important: bool) -> Request:
        if intensity is not None:
            finite("intensity", intensity, 0, 1)
        members = {
            **self._members(),
            "type": type,
            "style": style,
            "intensity": intensity,
            "important": True if important else None,
            "priority": self.priority,
        }
        return "feedback", members, None

    def _rumble_request(self, strong: float, weak: float, duration: float, delay: float) -> Request:
        finite("strong", strong, 0, 1)
        finite("weak", weak, 0, 1)
        finite("delay", delay, 0)
        members = {
            **self._members(with_locality=False),
            "strong": float(strong),
            "weak": float(weak),
            "duration": finite("duration", duration) if (strong or weak) else None,
            "delay": float(delay) if delay else None,
            "priority": self.priority,
        }
        return "rumble", members, None


class PlayerCore:
    """A player of a pattern (CHHapticAdvancedPatternPlayer). Times: ``at`` on the engine's clock
    (``Engine.current_time()`` + seconds; 0: now) or ``after`` seconds from now. The members its
    commands send; ``Player`` and ``AsyncPlayer`` send them."""

    def __init__(self, client: Any, result: Mapping[str, Any]) -> None:
        self.client = client
        self.status = PlayerStatus()
        self.status.update(result)
        self.id = self.status.player
        self._generation = client._generation

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id} {self.status.state} on device {self.status.device}>"

    @property
    def state(self) -> str:
        """As of the last reply or event: idle, scheduled, playing, paused, finished, invalid."""
        return self.status.state

    def _check_generation(self) -> None:
        if self._generation != self.client._generation:
            raise PlayerInvalidatedError(f"player {self.id} was lost with the connection to hapticd: make it again after reconnect()")

    def _forget(self) -> bool:
        """Drops the player from its client; whether the daemon may still hold it."""
        if self in self.client._players:
            self.client._players.remove(self)
        return self._generation == self.client._generation and self.client.connected

    @staticmethod
    def _set_members(loop: Optional[bool], loop_end: Optional[float], rate: Optional[float], muted: Optional[bool]) -> Dict[str, Any]:
        return {
            "loop": loop,
            "loop_end": None if loop_end is None else finite("loop_end", loop_end, 0),
            "rate": None if rate is None else finite("rate", rate),
            "muted": muted,
        }

    @staticmethod
    def _parameters_members(parameters: Optional[Mapping[str, Number]], values: Mapping[str, Number], at: Optional[float], after: Optional[float]) -> Dict[str, Any]:
        return {"parameters": parameter_members(parameters, values), **time_members(at, after)}

    @staticmethod
    def _curve_members(parameter: str, points: Iterable[Tuple[Number, Number]], at: Optional[float], after: Optional[float]) -> Dict[str, Any]:
        return {"parameter": parameter, "points": curve_points(points), **time_members(at, after)}
