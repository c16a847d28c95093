import HapticCore
import HapticProtocol

/// Executing each command (docs/PROTOCOL.md), under the render loop's lock.
///
/// Who may do what: a client acts on its own players; the controls that affect every client of a
/// pad — `engine.start/stop/reset`, `gain.set`, and `stop_all` for everyone — need root or an admin
/// (`clients.admin_uids`/`admin_gids`). A plain client's `stop_all` stops its user's players, across
/// all of that user's connections: everyone keeps a panic button.
extension DaemonCore {
    func execute(
        _ command: Command, _ r: Request, _ inline: HapticPattern?, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess
    ) throws(ProtocolError) -> JSONObject {
        switch command {
        case .ping:
            return Self.pong  // answered on the socket thread (`DaemonCore.prepare`); kept for completeness
        case .version:
            return Self.versionResult
        case .devices:
            return JSONObject(["devices": .array(pads.keys.sorted().map { .object(padFields($0, access)) })])
        case .patterns:
            let list: [JSONValue] = library.names.map { name in
                let e = library[name]!
                var o = JSONObject(["name": .string(name), "duration": .number(e.pattern.duration), "path": .string(e.path)])
                if let d = e.description { o.append("description", .string(d)) }
                return .object(o)
            }
            return JSONObject(["patterns": .array(list), "problems": .array(library.problems.map { .string($0) })])
        case .play, .playerCreate:
            return try create(command, r, inline, client, access)
        case .playerStart, .playerStop, .playerPause, .playerResume:
            let (id, rec, engine) = try player(r, client, access)
            let time = try r.time(now: engine.currentTime)
            try requireScheduleRoom(client, time, adding: 1, access)
            try engineCall { () throws(EngineError) in
                switch command {
                case .playerStart: try engine.start(rec.local, at: time)
                case .playerStop: try engine.stop(rec.local, at: time)
                case .playerPause: try engine.pause(rec.local, at: time)
                default: try engine.resume(rec.local, at: time)
                }
            }
            return playerFields(id, rec, engine)
        case .playerCancel:
            let (id, rec, engine) = try player(r, client, access)
            try engineCall { () throws(EngineError) in try engine.cancel(rec.local) }
            return playerFields(id, rec, engine)
        case .playerSeek:
            let (id, rec, engine) = try player(r, client, access)
            let offset = try r.requiredNumber("offset")
            try engineCall { () throws(EngineError) in try engine.seek(rec.local, toOffset: offset) }
            return playerFields(id, rec, engine)
        case .playerSet:
            let (id, rec, engine) = try player(r, client, access)
            let loopFlag = try r.bool("loop"), loopEnd = try r.number("loop_end"), rate = try r.number("rate"), muted = try r.bool("muted")
            guard loopFlag != nil || loopEnd != nil || rate != nil || muted != nil else {
                throw ProtocolError(.badRequest, "player.set needs at least one of loop, loop_end, rate, muted")
            }
            try engineCall { () throws(EngineError) in
                if let loopFlag { try engine.setLoopEnabled(rec.local, loopFlag) }
                if let loopEnd { try engine.setLoopEnd(rec.local, loopEnd) }
                if let rate { try engine.setRate(rec.local, rate) }
                if let muted { try engine.setMuted(rec.local, muted) }
            }
            return playerFields(id, rec, engine)
        case .playerSendParameters:
            let (id, rec, engine) = try player(r, client, access)
            let values = try parameters(r)
            let time = try r.time(now: engine.currentTime)
            try requireScheduleRoom(client, time, adding: values.count, access)
            try engineCall { () throws(EngineError) in try engine.sendParameters(values, to: rec.local, at: time) }
            return playerFields(id, rec, engine)
        case .playerScheduleCurve:
            let (id, rec, engine) = try player(r, client, access)
            let curve = try curveFrom(r)
            let time = try r.time(now: engine.currentTime)
            try requireScheduleRoom(client, time, adding: 1, access)
            try engineCall { () throws(EngineError) in try engine.scheduleCurve(curve, on: rec.local, at: time) }
            return playerFields(id, rec, engine)
        case .playerDestroy:
            let (id, rec, engine) = try player(r, client, access)
            try engineCall { () throws(EngineError) in try engine.destroyPlayer(rec.local) }
            players.remove(id)
            clients.removePlayer(id, from: client.id)
            return JSONObject(["player": .number(Double(id)), "destroyed": .bool(true)])
        case .engineStatus:
            let pad = try padID(r, access, connected: false)
            let locality = try self.locality(r)
            return engineFields(pad, locality, try engine(pad, locality, access), client.id, access)
        case .engineStart, .engineStop, .engineReset:
            try requireAdmin(client, "\(command.rawValue) acts on every client's players of the pad")
            let pad = try padID(r, access)
            let locality = try self.locality(r)
            let engine = try engine(pad, locality, access)
            switch command {
            case .engineStart: engine.start()
            case .engineStop:
                // The engine's own handler is not called for an explicit stop (Core Haptics' rule), but
                // for every other client of the pad it was stopped from outside: they hear of it.
                let wasRunning = engine.isRunning
                engine.stop()
                if wasRunning {
                    broadcast(.engineStopped, JSONObject([
                        "device": .number(Double(pad)), "locality": .string(locality.rawValue),
                        "reason": .string(HapticEngine.StoppedReason.systemError.rawValue), "by": .string("engine.stop"),
                    ]))
                }
            default:
                engine.reset()
                engine.start()
            }
            return engineFields(pad, locality, engine, client.id, access)
        case .stopAll:
            return stopAll(client, access)
        case .gainSet:
            try requireAdmin(client, "gain.set changes the pad for every client")
            let pad = try padID(r, access)
            let gain = try r.requiredNumber("gain")
            guard (0...1).contains(gain) else { throw ProtocolError(.badRequest, "\"gain\" must be within 0…1, not \(gain)") }
            access.pipeline(pad)!.gain = gain
            return JSONObject(["device": .number(Double(pad)), "gain": .number(gain)])
        case .subscribe:
            var names = Set(EventName.allCases).subtracting([.deviceOutput])
            if let v = r.optional("events") {
                guard case .array(let list) = v else { throw ProtocolError(.badRequest, "\"events\" must be an array of event names") }
                guard list.count <= 64 else { throw ProtocolError(.badRequest, "\"events\" lists at most 64 names") }
                names = []
                for item in list {
                    guard case .string(let s) = item, let name = EventName(rawValue: s) else {
                        throw ProtocolError(.badRequest, "unknown event \(JSONWriter.write(item)) (known: \(EventName.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    names.insert(name)
                }
            }
            clients.setSubscriptions(names, of: client.id)
            return JSONObject(["events": .array(names.map(\.rawValue).sorted().map { .string($0) })])
        case .capabilities:
            return try capabilities(r, access)
        case .feedback:
            return try feedback(r, client, access)
        case .prepare:
            return try prepare(r, access)
        case .rumble:
            return try rumble(r, client, access)
        case .hello:
            return try hello(r, client, access)
        case .policy:
            return policyFields(client)
        case .policySet:
            return try setPolicy(r, client, access)
        }
    }

    // MARK: who may

    func requireAdmin(_ client: ClientRegistry.Client, _ why: String) throws(ProtocolError) {
        guard client.isAdmin else {
            throw ProtocolError(.permissionDenied, "\(why): it needs root or an admin (clients.admin_uids, clients.admin_gids)")
        }
    }

    /// `stop_all`: an admin stops every player of every client; anyone else the players of their
    /// own user (all their connections, and their orphans).
    func stopAll(_ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess) -> JSONObject {
        var stopped = 0
        if client.isAdmin {
            for id in pads.keys.sorted() {
                for (_, engine) in access.engines(id) {
                    for pid in engine.playerIDs where (try? engine.status(pid).phase) != .idle {
                        try? engine.stop(pid)
                        stopped += 1
                    }
                }
            }
            return JSONObject(["stopped": .number(Double(stopped)), "scope": .string("all")])
        }
        let mine = client.peer.map { players.ids(uid: $0.uid) } ?? client.players.sorted()
        for pid in mine {
            guard let rec = players[pid], let engine = access.engine(rec.pad, rec.locality),
                  let phase = try? engine.status(rec.local).phase, phase != .idle
            else { continue }
            try? engine.stop(rec.local)
            stopped += 1
        }
        return JSONObject(["stopped": .number(Double(stopped)), "scope": .string("user")])
    }

    // MARK: creating players

    func create(
        _ command: Command, _ r: Request, _ inline: HapticPattern?, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess
    ) throws(ProtocolError) -> JSONObject {
        let pattern: HapticPattern
        if let inline {
            pattern = inline
        } else if let name = try r.string("name") {
            guard let entry = library[name] else {
                throw ProtocolError(.notFound, "no pattern named \"\(name)\" in the library (see the patterns command)")
            }
            pattern = entry.pattern
        } else {
            throw ProtocolError(.badRequest, "give \"pattern\" (an AHAP object) or \"name\" (a library pattern)")
        }
        let oneShot = command == .play
        return try makePlayer(pattern, r, client, access, kind: oneShot ? .play : .created) { engine, local throws(ProtocolError) in
            guard oneShot else { return }
            if let loopFlag = try r.bool("loop") { try engineCall { () throws(EngineError) in try engine.setLoopEnabled(local, loopFlag) } }
            if let rate = try r.number("rate") { try engineCall { () throws(EngineError) in try engine.setRate(local, rate) } }
            try engineCall { () throws(EngineError) in try engine.start(local) }
        }
    }

    /// Makes a player of `pattern` on the engine the request names (device, locality), owned by the
    /// client and within its limits, then lets `setUp` configure and start it; undone if that fails.
    func makePlayer(
        _ pattern: HapticPattern, _ r: Request, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess,
        kind: PlayerRegistry.Kind, important: Bool = false, make: ((HapticEngine) throws(EngineError) -> PlayerID)? = nil,
        _ setUp: (HapticEngine, PlayerID) throws(ProtocolError) -> Void
    ) throws(ProtocolError) -> JSONObject {
        let priority = try requestedPriority(r)
        guard pattern.duration <= config.limits.timeHorizon else {
            throw ProtocolError(.invalidPattern, "the pattern lasts \(pattern.duration) s, beyond the \(config.limits.timeHorizon) s horizon (limits.time_horizon)")
        }
        let pad = try padID(r, access)
        let locality = try self.locality(r)
        try requirePlayerRoom(client)
        let engine = try engine(pad, locality, access)
        let advanced = try r.bool("advanced") ?? true
        var local = 0
        if let make {
            try engineCall { () throws(EngineError) in local = try make(engine) }
        } else {
            local = engine.makePlayer(pattern, advanced: advanced, oneShot: kind.isOneShot)
        }
        let id = players.add(
            pad: pad, locality: locality, local: local, owner: client.id, ownerUID: client.peer?.uid, kind: kind, app: client.app,
            important: important, requestedPriority: priority)
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
        // A one-shot may be over already: the engine's clock is read anew while it starts, and when
        // this process was held up for longer than the pattern (a loaded machine), the player
        // finished and was removed (its `player.finished` event went out) before this reply. So does a
        // one-shot with nothing to play (`"Pattern": []`; found by the fuzzer, docs/robustness.md).
        var fields = playerFields(id, players[id] ?? record, engine)
        if players[id] == nil && fields["state"] == nil { fields.append("state", .string("finished")) }
        return fields
    }

    /// Players are bounded per connection, per user (orphans included) and for the whole daemon.
    func requirePlayerRoom(_ client: ClientRegistry.Client) throws(ProtocolError) {
        let limits = config.limits
        guard client.players.count < limits.maxPlayersPerClient else {
            throw ProtocolError(.limitExceeded, "this connection already has \(client.players.count) players (limits.max_players_per_client); destroy some")
        }
        if let uid = client.peer?.uid, players.count(uid: uid) >= limits.maxPlayersPerUID {
            throw ProtocolError(.limitExceeded, "user \(uid) already has \(players.count(uid: uid)) players, counting those still playing after their connection closed (limits.max_players_per_uid)")
        }
        guard players.count < limits.maxPlayers else {
            throw ProtocolError(.limitExceeded, "the daemon holds \(players.count) players, its limit (limits.max_players)")
        }
    }

    /// Scheduling for later is bounded per connection, over all its players (each player's own bound
    /// is the engine's).
    func requireScheduleRoom(_ client: ClientRegistry.Client, _ time: HapticTime, adding count: Int, _ access: RenderLoop.PadAccess) throws(ProtocolError) {
        guard case .at(let t) = time, t > access.now else { return }
        var held = 0
        for pid in client.players {
            guard let rec = players[pid], let engine = access.engine(rec.pad, rec.locality) else { continue }
            held += (try? engine.scheduledCount(rec.local)) ?? 0
        }
        guard held + count <= config.limits.maxScheduledPerClient else {
            throw ProtocolError(.limitExceeded, "this connection already holds \(held) scheduled commands and parameter changes (limits.max_scheduled_per_client)")
        }
    }

    // MARK: finding players and pads

    /// The player a request names. Another connection's player is off limits while that connection
    /// is open; an orphan (its connection closed, `stop_players_on_disconnect = false` or a finishing
    /// one-shot) is taken over by the same user, or root, which lifts its orphan cap.
    func player(_ r: Request, _ client: ClientRegistry.Client, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> (Int, PlayerRegistry.Record, HapticEngine) {
        let id = try r.requiredInteger("player")
        guard var rec = players[id] else {
            if players.isInvalidated(id) {
                throw ProtocolError(.playerInvalidated, "player \(id) was invalidated by an engine reset; create it again")
            }
            throw ProtocolError(.notFound, "no player \(id)")
        }
        guard let engine = access.engine(rec.pad, rec.locality) else { throw ProtocolError(.notFound, "the device of player \(id) is gone") }
        if rec.owner != client.id {
            let uid = client.peer?.uid
            guard rec.owner == nil, uid == 0 || (uid != nil && uid == rec.ownerUID) else {
                throw ProtocolError(.permissionDenied, "player \(id) belongs to another client")
            }
            try requirePlayerRoomForAdoption(client)
            rec.owner = client.id
            players.setOwner(client.id, of: id)
            clients.addPlayer(id, to: client.id)
            try? engine.clearLifetimeLimit(rec.local)
        }
        return (id, rec, engine)
    }

    private func requirePlayerRoomForAdoption(_ client: ClientRegistry.Client) throws(ProtocolError) {
        guard client.players.count < config.limits.maxPlayersPerClient else {
            throw ProtocolError(.limitExceeded, "this connection already has \(client.players.count) players (limits.max_players_per_client); destroy some")
        }
    }

    func padID(_ r: Request, _ access: RenderLoop.PadAccess, connected: Bool = true) throws(ProtocolError) -> PadID {
        if let d = try r.integer("device") {
            guard let pad = pads[d], access.engine(d) != nil else {
                throw ProtocolError(.notFound, "no device \(d) (see the devices command)")
            }
            guard !connected || (pad.connected && access.hasDevice(d)) else {
                throw ProtocolError(.deviceError, "device \(d) (\(pad.info.name)) is disconnected")
            }
            return d
        }
        guard let first = pads.keys.sorted().first(where: { pads[$0]!.connected && access.hasDevice($0) }) else {
            throw ProtocolError(.notFound, "no rumble device is connected (hapticd --simulate gives simulated ones)")
        }
        return first
    }

    func engineCall(_ body: () throws(EngineError) -> Void) throws(ProtocolError) {
        do {
            try body()
        } catch {
            switch error {
            case .notRunning: throw ProtocolError(.engineStopped, "the device's engine is stopped: an admin must send engine.start (or set engine.idle_shutdown to start on demand)")
            case .playerInvalidated: throw ProtocolError(.playerInvalidated, error.description)
            case .playerNotFound: throw ProtocolError(.notFound, error.description)
            case .limitExceeded: throw ProtocolError(.limitExceeded, error.description)
            default: throw ProtocolError(.badRequest, error.description)
            }
        }
    }

    // MARK: parsing members

    func parameters(_ r: Request) throws(ProtocolError) -> [(DynamicParameterID, Double)] {
        guard let v = r.optional("parameters") else {
            throw ProtocolError(.badRequest, "missing \"parameters\", e.g. {\"intensity\": 0.5}")
        }
        guard case .object(let o) = v, !o.members.isEmpty else {
            throw ProtocolError(.badRequest, "\"parameters\" must be an object such as {\"intensity\": 0.5, \"sharpness\": -0.2}")
        }
        guard o.members.count <= 16 else { throw ProtocolError(.badRequest, "\"parameters\" holds at most 16 values") }
        var out: [(DynamicParameterID, Double)] = []
        for m in o.members {
            guard let id = DynamicParameterID.named(m.key) else {
                throw ProtocolError(.badRequest, "unknown parameter \"\(m.key)\" (intensity, sharpness, attack, decay, release, or an AHAP dynamic parameter ID)")
            }
            guard case .number(let x) = m.value, x.isFinite else { throw ProtocolError(.badRequest, "parameter \"\(m.key)\" must be a number") }
            guard id.range.contains(x) else {
                throw ProtocolError(.badRequest, "parameter \"\(m.key)\" must be within \(id.range.lowerBound)…\(id.range.upperBound), not \(x)")
            }
            out.append((id, x))
        }
        return out
    }

    func curveFrom(_ r: Request) throws(ProtocolError) -> ParameterCurve {
        guard let name = try r.string("parameter") else { throw ProtocolError(.badRequest, "missing \"parameter\" (e.g. \"intensity\")") }
        guard let id = DynamicParameterID.named(name) else { throw ProtocolError(.badRequest, "unknown parameter \"\(name)\"") }
        guard case .array(let list)? = r.optional("points"), !list.isEmpty else {
            throw ProtocolError(.badRequest, "\"points\" must be a non-empty array of [time, value] pairs")
        }
        guard list.count <= config.limits.maxCurvePoints else {
            throw ProtocolError(.limitExceeded, "a curve sent to a player has at most \(config.limits.maxCurvePoints) points (limits.max_curve_points)")
        }
        var points: [ParameterCurve.ControlPoint] = []
        for item in list {
            var t = 0.0, v = 0.0
            switch item {
            case .array(let pair) where pair.count == 2:
                guard case .number(let a) = pair[0], case .number(let b) = pair[1] else {
                    throw ProtocolError(.badRequest, "a curve point is [time, value] with two numbers")
                }
                t = a
                v = b
            case .object(let o):
                guard case .number(let a)? = o["time"], case .number(let b)? = o["value"] else {
                    throw ProtocolError(.badRequest, "a curve point is [time, value] or {\"time\": …, \"value\": …}")
                }
                t = a
                v = b
            default:
                throw ProtocolError(.badRequest, "a curve point is [time, value] or {\"time\": …, \"value\": …}")
            }
            guard t.isFinite, v.isFinite, t >= 0 else { throw ProtocolError(.badRequest, "curve point times must be ≥ 0 and values finite") }
            guard t <= config.limits.timeHorizon else {
                throw ProtocolError(.badRequest, "curve point time \(t) s is beyond the \(config.limits.timeHorizon) s horizon (limits.time_horizon)")
            }
            if let last = points.last, t < last.time { throw ProtocolError(.badRequest, "curve points must be in time order") }
            points.append(.init(t, min(max(v, id.range.lowerBound), id.range.upperBound)))
        }
        return ParameterCurve(id, at: 0, points: points)
    }

    // MARK: replies

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

    func engineFields(_ pad: PadID, _ locality: Locality, _ engine: HapticEngine, _ client: ClientID, _ access: RenderLoop.PadAccess) -> JSONObject {
        let mine = (clients[client]?.players ?? []).filter { players[$0]?.pad == pad && players[$0]?.locality == locality }.sorted()
        return JSONObject([
            "device": .number(Double(pad)), "locality": .string(locality.rawValue), "running": .bool(engine.isRunning),
            "current_time": .number(engine.currentTime),
            "playing": .bool(engine.isPlaying), "players": .number(Double(engine.playerIDs.count)),
            "my_players": .array(mine.map { .number(Double($0)) }),
            "auto_shutdown": .bool(engine.isAutoShutdownEnabled), "muted": .bool(engine.isMutedForHaptics),
            "gain": .number(access.pipeline(pad)?.gain ?? 1), "connected": .bool(access.hasDevice(pad)),
        ])
    }

    func padFields(_ id: PadID, _ access: RenderLoop.PadAccess? = nil) -> JSONObject {
        guard let p = pads[id] else { return JSONObject(["device": .number(Double(id))]) }
        var o = JSONObject([
            "device": .number(Double(id)), "name": .string(p.info.name), "path": .string(p.info.path),
            "usb_id": .string(p.info.usbID), "bus": .number(Double(p.info.bus)), "profile": .string(p.profile.name),
            "connected": .bool(p.connected), "simulated": .bool(p.simulated), "effect_slots": .number(Double(p.info.effectSlots)),
        ])
        if let access, let g = access.pipeline(id)?.gain { o.append("gain", .number(g)) }
        return o
    }
}
