"""Calls every request-sending method of the Python client, with every optional argument given, so
that a recording daemon sees what the client sends (scripts/bindings-test.sh). The daemon's refusals
are expected (a stopped engine, a player already gone) and ignored: what counts is what was sent.

Usage: PYTHONPATH=clients/python python3 exercise.py sync|asyncio SOCKET"""
import asyncio
import inspect
import sys

import hapticd
from hapticd import Pattern
from hapticd.aio import AsyncClient

AHAP = '{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":0.2}}]}'
# Over the inline bound: sent in pieces (pattern.upload) and named by `upload`.
LONG = Pattern.from_events([hapticd.Transient(i * 0.01, intensity=0.5) for i in range(3000)])


async def call(fn, *args, **kw):
    try:
        r = fn(*args, **kw)
        return await r if inspect.isawaitable(r) else r
    except hapticd.HapticdError:
        return None


async def exercise(c):
    await call(c.ping)
    await call(c.version)
    await call(c.devices)
    await call(c.patterns)
    await call(c.capabilities, device=0)
    await call(c.hello, "org.example.Bindings")
    await call(c.policy)
    await call(c.policy_set, mode="full", max_strength=1.0, duck=0.3)
    await call(c.subscribe, ["player.finished"])
    await call(c.prepare, device=0, locality="default")
    await call(c.play, "heartbeat", device=0, locality="default", loop=True, rate=1.5, priority=5)
    await call(c.play, Pattern.from_ahap(AHAP), device=0)
    await call(c.feedback, "impact", style="heavy", intensity=0.5, important=True, device=0, locality="default", priority=5)
    await call(c.rumble, 0.5, 0.5, 0.2, delay=0.1, device=0, priority=5)
    engine = await call(c.engine, device=0, locality="default", priority=5)
    await call(engine.status)
    await call(engine.current_time)
    await call(engine.capabilities)
    await call(engine.prepare)
    await call(engine.rumble, 0.5, 0.5, 0.2, delay=0.1)
    await call(engine.feedback, "selection", intensity=0.5, important=True)
    await call(engine.play, "heartbeat", loop=True, rate=1.5)
    await call(engine.make_player, Pattern.from_ahap(AHAP), advanced=False)
    await call(engine.make_player, LONG)
    await call(c.play, LONG, device=0)
    player = await call(engine.make_player, "heartbeat", advanced=True)
    if player is not None:
        await call(player.start, at=1)
        await call(player.start, after=0.01)
        await call(player.set, loop=True, loop_end=0.5, rate=1.5, muted=False)
        await call(player.send_parameters, {"intensity": 0.5}, after=0.01)
        await call(player.send_parameters, {"intensity": 0.5}, at=1)
        await call(player.schedule_curve, "intensity", [(0, 0.5), (0.1, 1)], after=0.01)
        await call(player.schedule_curve, "intensity", [(0, 0.5), (0.1, 1)], at=1)
        await call(player.seek, 0.1)
        await call(player.pause, after=0.01)
        await call(player.pause, at=1)
        await call(player.resume, after=0.01)
        await call(player.resume, at=1)
        await call(player.stop, after=0.01)
        await call(player.stop, at=1)
        await call(player.cancel)
        await call(player.destroy)
    for action in ("start", "stop", "reset"):
        await call(engine.admin, action)
    await call(engine.start)
    await call(engine.stop)
    await call(c.stop_all)


async def main(mode, socket):
    if mode == "sync":
        with hapticd.Client(socket) as c:
            await exercise(c)
    else:
        c = await AsyncClient.connect(socket)
        try:
            await exercise(c)
        finally:
            await c.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
