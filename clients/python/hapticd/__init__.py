"""hapticd: a client for hapticd, the haptic player daemon for Linux gamepads.

Shaped like Apple's Core Haptics — a client connects, an engine is a pad and a locality, a
pattern is AHAP (a file, text, a dict, events, or a library name), a player plays it — with a
synchronous (``Client``) and an asyncio (``AsyncClient``) flavour. Standard library only.

    from hapticd import Client, Pattern
    with Client(app="org.example.Tool") as c:
        c.play("heartbeat")
        player = c.engine(device=0).make_player(Pattern.from_file("rumble.ahap"))
        player.set(loop=True).start()
        player.send_parameters(intensity=0.5)

The protocol: docs/PROTOCOL.md; this API: docs/clients.md.
"""

from ._core import (
    CONNECTION_LOST,
    DEFAULT_EVENTS,
    EVENTS,
    EVENTS_DROPPED,
    LOCALITIES,
    MAX_PATTERN_BYTES,
    PARAMETERS,
    BadJSONError,
    BadRequestError,
    Continuous,
    DeviceError,
    DisconnectedError,
    EngineStoppedError,
    Event,
    HapticdError,
    HapticdTimeoutError,
    InvalidPatternError,
    LimitExceededError,
    NotFoundError,
    NotRunningError,
    Pattern,
    PermissionDeniedError,
    PlayerInvalidatedError,
    PlayerStatus,
    ProtocolError,
    Transient,
    UnknownCommandError,
    UnsupportedError,
    default_socket_path,
    minify_ahap,
)
from .aio import AsyncClient, AsyncEngine, AsyncPlayer
from .client import Client, Engine, Player

__version__ = "1.0.0"

__all__ = [
    "Client",
    "Engine",
    "Player",
    "AsyncClient",
    "AsyncEngine",
    "AsyncPlayer",
    "Pattern",
    "Transient",
    "Continuous",
    "Event",
    "PlayerStatus",
    "default_socket_path",
    "minify_ahap",
    "HapticdError",
    "NotRunningError",
    "PermissionDeniedError",
    "DisconnectedError",
    "HapticdTimeoutError",
    "ProtocolError",
    "BadJSONError",
    "BadRequestError",
    "UnknownCommandError",
    "InvalidPatternError",
    "NotFoundError",
    "LimitExceededError",
    "DeviceError",
    "EngineStoppedError",
    "PlayerInvalidatedError",
    "UnsupportedError",
    "LOCALITIES",
    "PARAMETERS",
    "EVENTS",
    "DEFAULT_EVENTS",
    "CONNECTION_LOST",
    "EVENTS_DROPPED",
    "MAX_PATTERN_BYTES",
]
