"""``python3 -m hapticd``: a small command line over the package.

    python3 -m hapticd play heartbeat            # a library pattern, until it ends
    python3 -m hapticd play my.ahap --loop        # a file, looping until Ctrl-C
    python3 -m hapticd feedback impact heavy      # selection; notification success|warning|error
    python3 -m hapticd rumble 0.8 0.2 --for 0.5
    python3 -m hapticd devices | patterns | caps | policy | ping | watch

``--socket PATH`` (default ``$HAPTICD_SOCKET`` or the daemon's default), ``--json`` for the
daemon's own JSON. Exit status: 0; 1 when a request is refused, by the daemon or by the library
before sending it (an argument out of range), with the message on stderr; 2 when the daemon is not
running.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from typing import Any, List, Optional

from . import Client, HapticdError, NotRunningError, Pattern


def _print(args: argparse.Namespace, value: Any, text: str) -> None:
    print(json.dumps(value) if args.json else text)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m hapticd", description="Talk to hapticd, the haptic player daemon.")
    ap.add_argument("--socket", help="the daemon's socket (default: $HAPTICD_SOCKET, or the daemon's default path)")
    ap.add_argument("--json", action="store_true", help="print the daemon's JSON")
    ap.add_argument("--app", default="org.hapticd.python-cli", help="the app id told to the daemon")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="play a library pattern or an AHAP file, until it ends")
    p.add_argument("pattern", help="a library name (see `patterns`), or an AHAP file or .haptic clip")
    p.add_argument("--device", type=int)
    p.add_argument("--locality")
    p.add_argument("--loop", action="store_true", help="loop until Ctrl-C")
    p.add_argument("--rate", type=float, default=1.0)
    p.add_argument("--no-wait", action="store_true", help="return at once (the daemon finishes a non-looping pattern)")
    f = sub.add_parser("feedback", help="UIKit-style feedback")
    f.add_argument("type", choices=["impact", "selection", "notification"])
    f.add_argument("style", nargs="?")
    f.add_argument("--intensity", type=float)
    f.add_argument("--device", type=int)
    r = sub.add_parser("rumble", help="both motors (0…1) for a while, like SDL_RumbleGamepad")
    r.add_argument("strong", type=float)
    r.add_argument("weak", type=float)
    r.add_argument("--for", dest="duration", type=float, default=0.5, help="seconds (default 0.5)")
    r.add_argument("--device", type=int)
    for name, help in (
        ("devices", "the pads"),
        ("patterns", "the pattern library"),
        ("ping", "is the daemon there"),
        ("policy", "the policy in force for this client"),
        ("stop", "stop your players (the panic button)"),
    ):
        sub.add_parser(name, help=help)
    c = sub.add_parser("caps", help="what a pad can do")
    c.add_argument("--device", type=int)
    w = sub.add_parser("watch", help="print events as they come, until Ctrl-C")
    w.add_argument("--output", action="store_true", help="every write to the pads too (device.output)")
    args = ap.parse_args(argv)

    try:
        with Client(args.socket, app=args.app) as client:
            return run(client, args)
    except NotRunningError as e:
        print(f"hapticd: {e}", file=sys.stderr)
        return 2
    except HapticdError as e:
        print(f"hapticd: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        # An argument the library refuses before sending it (a strength of 2, an intensity of 7, a
        # NaN rate, an app id with a space): refused as the daemon would refuse it, not a traceback.
        print(f"hapticd: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def run(client: Client, args: argparse.Namespace) -> int:
    cmd = args.command
    if cmd == "play":
        # As hapticctl: on the command line a name that is a file here is that file.
        pattern = Pattern.from_file(args.pattern) if os.path.exists(args.pattern) else args.pattern
        player = client.play(pattern, device=args.device, locality=args.locality, loop=args.loop, rate=args.rate)
        _print(args, {"player": player}, f"playing {args.pattern} (player {player})")
        if args.no_wait:
            return 0
        if args.loop:
            signal.pause()  # until Ctrl-C; closing the connection stops it
            return 0
        e = client.wait_for("player.finished", player=player, timeout=24 * 3600)
        _print(args, e.raw, f"finished ({e.reason})")
    elif cmd == "feedback":
        player = client.feedback(args.type, args.style, args.intensity, device=args.device)
        _print(args, {"player": player}, f"{args.type} {args.style or ''}".strip() + f" (player {player})")
    elif cmd == "rumble":
        result = client.rumble(args.strong, args.weak, args.duration, device=args.device)
        _print(args, result, f"rumbling {args.strong:g}/{args.weak:g} for {args.duration:g} s")
        if args.strong or args.weak:
            client.wait_for("player.finished", player=result.get("player"), timeout=args.duration + 10)
    elif cmd == "devices":
        devices = client.devices()
        _print(args, devices, "\n".join(f"{d['device']}: {d.get('name')} ({d.get('profile')}{', disconnected' if not d.get('connected') else ''})" for d in devices))
    elif cmd == "patterns":
        pats = client.patterns()
        _print(args, pats, "\n".join(f"{p['name']:<24} {p.get('duration', 0):7.3f} s  {p.get('description', '')}" for p in pats))
    elif cmd == "ping":
        client.ping()
        _print(args, {"pong": True}, "pong")
    elif cmd == "policy":
        pol = client.policy()
        _print(args, pol, json.dumps(pol, indent=2))
    elif cmd == "stop":
        n = client.stop_all()
        _print(args, {"stopped": n}, f"stopped {n} player(s)")
    elif cmd == "caps":
        caps = client.capabilities(args.device)
        text = (
            f"device {caps.get('device')}: {caps.get('name')}\n"
            f"  localities: {', '.join(caps.get('localities', []))}\n"
            f"  levels: {caps.get('levels')}  minimum update interval: {caps.get('minimum_update_interval')} s\n"
            f"  profile: {caps.get('profile')} ({caps.get('profile_source')})"
        )
        _print(args, caps, text)
    elif cmd == "watch":
        if args.output:
            client.subscribe(["player.finished", "engine.stopped", "engine.reset", "device.added", "device.removed", "device.output"])
        for e in client.events():
            _print(args, e.raw or {"event": e.type}, f"{e.type} " + " ".join(f"{k}={v}" for k, v in e.raw.items() if k != "event"))
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
