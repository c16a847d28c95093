import HapticCore
import HapticProtocol

/// UIKit's feedback generators (`feedback`, `prepare`) and the plain rumble of SDL and the Web Gamepad
/// API (`rumble`).

extension FeedbackRequest: DaemonCommand {
    /// Each feedback type and style is a pattern (`impact-heavy`, `selection`, `notification-error`,
    /// …), built in (`BuiltInPatterns`), that a user overrides by dropping a file of that name into a
    /// pattern directory.
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        guard let entry = state.library[pattern] else {
            throw ProtocolError(.notFound, "no feedback pattern \"\(pattern)\" (none is built in by that name, and no pattern directory has \(pattern).ahap)")
        }
        var result = try state.makePlayer(entry.pattern, placement, context, kind: .play, important: important) { engine, local throws(ProtocolError) in
            if let intensity {
                try engineCall { () throws(EngineError) in try engine.sendParameters([(.hapticIntensityControl, intensity)], to: local) }
            }
            try engineCall { () throws(EngineError) in try engine.start(local) }
        }
        result.append("pattern", .string(pattern))
        return result
    }
}

extension PrepareRequest: DaemonCommand {
    /// Readies a pad for feedback with the least latency: its engine started (when it may start on
    /// demand) and kept from idle shutdown for `preparedSeconds`, and its kernel effect
    /// uploaded (silent) so that the first rumble only updates it in place.
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let (pad, engine) = try state.engine(target, context.access)
        var engineState = "running"
        if !engine.isRunning {
            if engine.isAutoShutdownEnabled {
                engine.start()
                engineState = "started"
            } else {
                engineState = "stopped"
            }
        }
        let until = engine.currentTime + Self.preparedSeconds
        engine.keepAwake(until: until)
        let effect: String
        do {
            effect = try context.access.prepareDevice(pad) ? "uploaded" : (state.pads[pad]?.simulated == true ? "simulated" : "already uploaded")
        } catch {
            throw ProtocolError(.deviceError, error.description)
        }
        return JSONObject([
            "device": .number(Double(pad)), "engine": .string(engineState), "effect": .string(effect),
            "prepared_until": .number(until), "engine_time": .number(engine.currentTime),
        ])
    }
}

extension RumbleRequest: DaemonCommand {
    /// `SDL_RumbleGamepad` / `dual-rumble`: both motors at these magnitudes for `duration` seconds
    /// after `delay`. A new rumble from the connection replaces its previous one; 0/0 stops it. It is a
    /// player like any other, and stops when its connection closes. While the connection's rumble
    /// plays, an immediate one to the same pad, locality and priority changes it in place (the same
    /// player, `HapticEngine.updateRumble`): a game sends one per frame, and a new player each time
    /// (compiled, registered, ended with an event) was most of the command's cost.
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let client = context.client
        if let duration, delay == 0, let previous = client.rumble, let rec = state.players[previous],
           rec.locality == placement.target.locality, rec.requestedPriority == placement.priority,
           (try state.padID(placement.target.device, context.access)) == rec.pad,
           let engine = context.access.engine(rec.pad, rec.locality)
        {
            var updated = false
            try engineCall { () throws(EngineError) in
                updated = try engine.updateRumble(rec.local, strong: self.strong, weak: self.weak, duration: duration)
            }
            if updated {
                var result = state.playerFieldsAfterRender(previous, rec, engine)
                result.append("replaced", .bool(true))
                return result
            }
        }
        // The previous rumble of this connection goes, whatever comes next (its owner hears
        // `player.finished`, as for any player destroyed while active).
        var replaced = false
        if let previous = client.rumble, let rec = state.players[previous], let engine = context.access.engine(rec.pad, rec.locality) {
            try? engine.destroyPlayer(rec.local)
            state.players.remove(previous)
            state.clients.removePlayer(previous, from: client.id)
            replaced = true
        }
        guard let duration else { return JSONObject(["stopped": .bool(replaced)]) }
        // The client as the removal left it (its players), when there was one to remove.
        // (Read again whether or not it replaced one: the pad's catch-up may have ended its rumble.)
        let current = state.clients[client.id].map { CommandContext(client: $0, access: context.access) } ?? context
        let (strong, weak, delay) = (self.strong, self.weak, self.delay)
        var result = try state.makePlayer(HapticPattern(), placement, current, kind: .rumble, make: { engine throws(EngineError) in
            try engine.makeRumble(strong: strong, weak: weak, duration: duration)
        }) { engine, local throws(ProtocolError) in
            try engineCall { () throws(EngineError) in
                try engine.start(local, at: delay > 0 ? .at(engine.currentTime + delay) : .immediately)
            }
        }
        if case .number(let id)? = result["player"] { state.clients.setRumble(Int(id), of: client.id) }
        result.append("replaced", .bool(replaced))
        return result
    }
}

extension PrepareRequest {
    /// How long `prepare` keeps a pad's engine from shutting down when idle (seconds): UIKit keeps its
    /// generators ready "for a few seconds", or until the next feedback.
    static let preparedSeconds = 5.0
}
