import HapticCore
import HapticProtocol

/// A pad's engines: `engine.start`, `stop`, `reset` (admins: they act on every client of the pad),
/// `engine.status`, and `stop_all`, everyone's panic button (a plain client's stops its user's players
/// across all of that user's connections; an admin's stops every player).

extension EngineStartRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let (pad, engine) = try state.engine(target, context.access)
        engine.start()
        return state.engineFields(pad, target.locality, engine, context)
    }
}

extension EngineStopRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let (pad, engine) = try state.engine(target, context.access)
        // The engine's own handler is not called for an explicit stop (Core Haptics' rule), but for
        // every other client of the pad it was stopped from outside: they hear of it.
        let wasRunning = engine.isRunning
        engine.stop()
        if wasRunning {
            state.clients.broadcast(.engineStopped, JSONObject([
                "device": .number(Double(pad)), "locality": .string(target.locality.rawValue),
                "reason": .string(HapticEngine.StoppedReason.systemError.rawValue), "by": .string("engine.stop"),
            ]))
        }
        return state.engineFields(pad, target.locality, engine, context)
    }
}

extension EngineResetRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let (pad, engine) = try state.engine(target, context.access)
        engine.reset()
        engine.start()
        return state.engineFields(pad, target.locality, engine, context)
    }
}

extension EngineStatusRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let (pad, engine) = try state.engine(target, context.access, connected: false)
        return state.engineFields(pad, target.locality, engine, context)
    }
}

extension StopAllRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let client = context.client, access = context.access
        var stopped = 0
        // Cancelled, not stopped: a panic button that left a start scheduled for later would let
        // the motors come on after it (a stop at a time leaves later commands pending).
        func cancel(_ pid: PlayerID, on engine: HapticEngine) {
            guard let phase = try? engine.status(pid).phase, phase != .idle, phase != .finished else { return }
            try? engine.cancel(pid)
            stopped += 1
        }
        if client.isAdmin {
            for id in state.pads.ids {
                for (_, engine) in access.engines(id) {
                    for pid in engine.playerIDs { cancel(pid, on: engine) }
                }
            }
            return JSONObject(["stopped": .number(Double(stopped)), "scope": .string("all")])
        }
        let mine = client.peer.map { state.players.ids(uid: $0.uid) } ?? client.players.sorted()
        for pid in mine {
            guard let rec = state.players[pid], let engine = access.engine(rec.pad, rec.locality) else { continue }
            cancel(rec.local, on: engine)
        }
        return JSONObject(["stopped": .number(Double(stopped)), "scope": .string("user")])
    }
}

extension DaemonState {
    func engineFields(_ pad: PadID, _ locality: Locality, _ engine: HapticEngine, _ context: CommandContext) -> JSONObject {
        let access = context.access
        let mine = (clients[context.client.id]?.players ?? []).filter { players[$0]?.pad == pad && players[$0]?.locality == locality }.sorted()
        return JSONObject([
            "device": .number(Double(pad)), "locality": .string(locality.rawValue), "running": .bool(engine.isRunning),
            "current_time": .number(engine.currentTime),
            "playing": .bool(engine.isPlaying), "players": .number(Double(engine.playerIDs.count)),
            "my_players": .array(mine.map { .number(Double($0)) }),
            "auto_shutdown": .bool(engine.isAutoShutdownEnabled), "muted": .bool(engine.isMutedForHaptics),
            "gain": .number(access.pipeline(pad)?.gain ?? 1), "connected": .bool(access.hasDevice(pad)),
        ])
    }
}
