import HapticCore
import HapticProtocol

/// Players: `play`, `player.create` and the commands on one player (docs/PROTOCOL.md). A client acts
/// on its own players; `DaemonState.dispatch` has checked that before these run.

extension PlayRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let pattern = try state.pattern(source)
        return try state.makePlayer(pattern, placement, context, kind: .play) { engine, local throws(ProtocolError) in
            if let loop { try engineCall { () throws(EngineError) in try engine.setLoopEnabled(local, loop) } }
            if let rate { try engineCall { () throws(EngineError) in try engine.setRate(local, rate) } }
            try engineCall { () throws(EngineError) in try engine.start(local) }
        }
    }
}

extension PlayerCreateRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try state.makePlayer(try state.pattern(source), placement, context, kind: .created) { _, _ throws(ProtocolError) in }
    }
}

/// `player.start`, `stop`, `pause`, `resume` differ only in what they ask of the engine.
extension DaemonPlayerCommand where Self: PlayerTransportRequest {
    /// `sounds`: the command makes the player sound (start, resume), which needs its pad there — an
    /// engine that starts on demand (`engine.idle_shutdown`) would otherwise start on an unplugged pad.
    func transport(
        _ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext, sounds: Bool = false,
        _ call: (HapticEngine, PlayerID, HapticTime) throws(EngineError) -> Void
    ) throws(ProtocolError) -> JSONObject {
        if sounds { _ = try state.padID(p.record.pad, context.access) }
        let time = when.time(now: p.engine.currentTime)
        try state.requireScheduleRoom(context, time, adding: 1)
        try state.playerCall(p, context.access) { () throws(EngineError) in try call(p.engine, p.record.local, time) }
        return state.playerFieldsAfterRender(p.id, p.record, p.engine)
    }
}

extension PlayerStartRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try transport(state, p, context, sounds: true) { engine, local, time throws(EngineError) in try engine.start(local, at: time) }
    }
}

extension PlayerStopRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try transport(state, p, context) { engine, local, time throws(EngineError) in try engine.stop(local, at: time) }
    }
}

extension PlayerPauseRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try transport(state, p, context) { engine, local, time throws(EngineError) in try engine.pause(local, at: time) }
    }
}

extension PlayerResumeRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try transport(state, p, context, sounds: true) { engine, local, time throws(EngineError) in try engine.resume(local, at: time) }
    }
}

extension PlayerCancelRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try state.playerCall(p, context.access) { () throws(EngineError) in try p.engine.cancel(p.record.local) }
        return state.playerFieldsAfterRender(p.id, p.record, p.engine)
    }
}

extension PlayerSeekRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try state.playerCall(p, context.access) { () throws(EngineError) in try p.engine.seek(p.record.local, toOffset: offset) }
        return state.playerFieldsAfterRender(p.id, p.record, p.engine)
    }
}

extension PlayerSetRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let engine = p.engine, local = p.record.local
        try state.playerCall(p, context.access) { () throws(EngineError) in
            if let loop { try engine.setLoopEnabled(local, loop) }
            if let loopEnd { try engine.setLoopEnd(local, loopEnd) }
            if let rate { try engine.setRate(local, rate) }
            if let muted { try engine.setMuted(local, muted) }
        }
        return state.playerFieldsAfterRender(p.id, p.record, engine)
    }
}

extension PlayerSendParametersRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let time = when.time(now: p.engine.currentTime)
        try state.requireScheduleRoom(context, time, adding: values.count)
        try state.playerCall(p, context.access) { () throws(EngineError) in try p.engine.sendParameters(values, to: p.record.local, at: time) }
        return state.playerFieldsAfterRender(p.id, p.record, p.engine)
    }
}

extension PlayerScheduleCurveRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let time = when.time(now: p.engine.currentTime)
        try state.requireScheduleRoom(context, time, adding: 1)
        try state.playerCall(p, context.access) { () throws(EngineError) in try p.engine.scheduleCurve(curve, on: p.record.local, at: time) }
        return state.playerFieldsAfterRender(p.id, p.record, p.engine)
    }
}

extension PlayerDestroyRequest: DaemonPlayerCommand {
    func run(_ state: DaemonState, _ p: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try state.playerCall(p, context.access) { () throws(EngineError) in try p.engine.destroyPlayer(p.record.local) }
        state.players.remove(p.id)
        state.clients.removePlayer(p.id, from: context.client.id)
        return JSONObject(["player": .number(Double(p.id)), "destroyed": .bool(true)])
    }
}

// MARK: making players

extension DaemonState {
    /// The pattern a request sent inline (parsed while decoding) or named from the library.
    func pattern(_ source: PatternSource) throws(ProtocolError) -> HapticPattern {
        switch source {
        case .inline(let pattern):
            return pattern
        case .named(let name):
            guard let entry = library[name] else {
                throw ProtocolError(.notFound, "no pattern named \"\(name)\" in the library (see the patterns command)")
            }
            return entry.pattern
        }
    }

    /// Makes a player of `pattern` on the engine `placement` names, owned by the client and within its
    /// limits, then lets `setUp` configure and start it; undone if that fails.
    func makePlayer(
        _ pattern: HapticPattern, _ placement: PlayerPlacement, _ context: CommandContext,
        kind: PlayerRegistry.Kind, important: Bool = false, make: ((HapticEngine) throws(EngineError) -> PlayerID)? = nil,
        _ setUp: (HapticEngine, PlayerID) throws(ProtocolError) -> Void
    ) throws(ProtocolError) -> JSONObject {
        let client = context.client, access = context.access
        guard pattern.duration <= config.limits.timeHorizon else {
            throw ProtocolError(.invalidPattern, "the pattern lasts \(pattern.duration) s, beyond the \(config.limits.timeHorizon) s horizon (limits.time_horizon)")
        }
        let pad = try padID(placement.target.device, access)
        let locality = placement.target.locality
        try players.requireRoom(for: client, config.limits)
        let engine = try engine(pad, locality, access)
        var local = 0
        if let make {
            try engineCall { () throws(EngineError) in local = try make(engine) }
        } else {
            local = engine.makePlayer(pattern, advanced: placement.advanced, oneShot: kind.isOneShot)
        }
        let id = players.add(
            pad: pad, locality: locality, local: local, owner: client.id, ownerUID: client.peer?.uid, kind: kind, app: client.app,
            important: important, requestedPriority: placement.priority)
        clients.addPlayer(id, to: client.id)
        applyPolicy(toNew: id, engine)
        let record = players[id]!
        do {
            try setUp(engine, local)
        } catch {
            try? engine.destroyPlayer(local)
            players.remove(id)
            clients.removePlayer(id, from: client.id)
            throw error
        }
        return playerFieldsAfterRender(id, record, engine)
    }

    /// `playerFields`, read after the command's render pass (`deferFields`): the reply's player
    /// fields cost the pad's write nothing. A one-shot may be over by then: the engine's clock is
    /// read anew while it starts, and when this process was held up for longer than the pattern (a
    /// loaded machine), the player finished and was removed (its `player.finished` event went out)
    /// before this reply. So does a one-shot with nothing to play (`"Pattern": []`).
    func playerFieldsAfterRender(_ id: Int, _ record: PlayerRegistry.Record, _ engine: HapticEngine) -> JSONObject {
        deferFields { [unowned self] in
            var fields = self.playerFields(id, self.players[id] ?? record, engine)
            if self.players[id] == nil && fields["state"] == nil { fields.append("state", .string("finished")) }
            return fields
        }
        return JSONObject(["player": .number(Double(id))])
    }

    /// Scheduling for later is bounded per connection, over all its players (each player's own bound
    /// is the engine's).
    func requireScheduleRoom(_ context: CommandContext, _ time: HapticTime, adding count: Int) throws(ProtocolError) {
        guard case .at(let t) = time, t > context.access.now else { return }
        var held = 0
        for pid in context.client.players {
            guard let rec = players[pid], let engine = context.access.engine(rec.pad, rec.locality) else { continue }
            held += (try? engine.scheduledCount(rec.local)) ?? 0
        }
        guard held + count <= config.limits.maxScheduledPerClient else {
            throw ProtocolError(.limitExceeded, "this connection already holds \(held) scheduled commands and parameter changes (limits.max_scheduled_per_client)")
        }
    }

    func playerFields(_ id: Int, _ rec: PlayerRegistry.Record, _ engine: HapticEngine) -> JSONObject {
        var o = JSONObject(["player": .number(Double(id)), "device": .number(Double(rec.pad)), "locality": .string(rec.locality.rawValue)])
        o.append("priority", .number(Double(config.policy.priority(app: rec.app, requested: rec.requestedPriority))))
        o.append("heard_at", .number(config.policy.gain(app: rec.app, important: rec.important)))
        if let s = try? engine.status(rec.local) {
            o.append("state", .string(s.phase.rawValue))
            o.append("offset", .number(s.offset))
            o.append("duration", .number(s.duration))
            o.append("advanced", .bool(s.isAdvanced))
            o.append("loop", .bool(s.loopEnabled))
            o.append("loop_end", .number(s.loopEnd))
            o.append("rate", .number(s.rate))
            o.append("muted", .bool(s.isMuted))
        }
        o.append("engine_time", .number(engine.currentTime))
        return o
    }
}
