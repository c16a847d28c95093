import Evdev
import HapticCore
import HapticProtocol
import Logging

public typealias ClientID = Int

/// Who is on the other end of a connection (SO_PEERCRED).
public struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// The daemon's command handling: clients, their players, pads, the pattern library and events.
///
/// `@unchecked Sendable`: every mutable property is touched only on the render loop's queue — inside
/// `loop.perform`, or in the loop's event handler, which runs there. Requests arrive on socket
/// threads, are parsed there, and hop onto the queue; replies and events leave as strings.
public final class DaemonCore: @unchecked Sendable {
    public let loop: RenderLoop
    public let logger: Logger
    public private(set) var config: DaemonConfig
    public static let version = "0.4.0"
    /// Commands that change no engine: no render pass after them.
    static let readOnly: Set<Command> = [.ping, .version, .devices, .patterns, .subscribe, .engineStatus]

    struct Client {
        var credentials: PeerCredentials?
        var allowed: Bool
        var subscriptions: Set<EventName> = []
        var players: Set<Int> = []
        var send: @Sendable (String) -> Void
    }

    struct PlayerRecord {
        var pad: PadID
        var local: PlayerID
        var owner: ClientID
        /// The owner's uid (nil: unknown); a kept player of a closed connection can be adopted by a
        /// connection of the same uid, or root.
        var ownerUID: UInt32?
        /// Made by `play`: destroyed when it ends.
        var oneShot: Bool
    }

    struct PadRecord {
        var info: DeviceInfo
        var profile: DeviceProfile
        var simulated: Bool
        var connected: Bool
    }

    private var clients: [ClientID: Client] = [:]
    private var nextClient = 1
    private var players: [Int: PlayerRecord] = [:]
    private var invalidatedPlayers: Set<Int> = []
    private var nextPlayer = 1
    private var pads: [PadID: PadRecord] = [:]
    private var nextPad = 0
    private var library = PatternLibrary()
    private let trace: TraceWriter?
    /// Called on the render queue for every device write (benchmarks, tools); the loop's own event
    /// handler belongs to the core.
    private var writeObserver: (@Sendable (PadID, Double, MotorMagnitudes) -> Void)?
    /// Called (on the render queue: hop elsewhere before doing I/O) with the path of a device whose
    /// write failed while it stayed plugged in; `DeviceManager` reopens it and calls `addPad`.
    private var deviceRecovery: (@Sendable (String) -> Void)?

    public func onDeviceFailure(_ recovery: (@Sendable (String) -> Void)?) {
        loop.perform(ticking: false) { _ in deviceRecovery = recovery }
    }

    public func observeWrites(_ observer: (@Sendable (PadID, Double, MotorMagnitudes) -> Void)?) {
        loop.perform { _ in writeObserver = observer }
    }

    public init(config: DaemonConfig, loop: RenderLoop, logger: Logger, trace: TraceWriter? = nil) {
        self.config = config
        self.loop = loop
        self.logger = logger
        self.trace = trace
        loop.setEventHandler { [weak self] event in self?.loopEvent(event) }
        reloadLibrary()
    }

    // MARK: configuration

    public func reloadLibrary() {
        let lib = PatternLibrary.load(directories: config.patternDirectories, limits: config.patternLimits, logger: logger)
        loop.perform { _ in library = lib }
        logger.info("pattern library: \(lib.names.count) patterns from \(config.patternDirectories.joined(separator: ", "))")
    }

    /// SIGHUP: new limits, gains, library and profiles for pads that arrive later; clients stay.
    public func reload(_ newConfig: DaemonConfig) {
        loop.perform { access in
            config = newConfig
            for (id, pad) in pads {
                access.pipeline(id)?.gain = newConfig.gain(for: pad.info.name, usbID: pad.info.usbID)
                if let engine = access.engine(id) {
                    engine.isAutoShutdownEnabled = newConfig.idleShutdown > 0
                    if newConfig.idleShutdown > 0 { engine.idleTimeout = newConfig.idleShutdown }
                }
            }
        }
        reloadLibrary()
    }

    // MARK: pads

    /// Adds a pad (a real device or a simulated one); returns its id.
    @discardableResult
    public func addPad(info: DeviceInfo, sink: any MotorSink, simulated: Bool) -> PadID {
        let profile = info.profile(in: config.profiles)
        let (id, reattached): (PadID, Bool) = loop.perform { _ in
            // A pad we knew (same identity) that comes back takes up its old engine: a reset.
            if let (known, _) = pads.first(where: { !$0.value.connected && Self.sameDevice($0.value.info, info) }) {
                pads[known]!.connected = true
                pads[known]!.info = info
                return (known, true)
            }
            let id = nextPad
            nextPad += 1
            pads[id] = PadRecord(info: info, profile: profile, simulated: simulated, connected: true)
            return (id, false)
        }
        if reattached {
            loop.reattachPad(id, sink: sink)
            logger.info("pad \(id) re-attached: \(info.name) (\(info.path))")
        } else {
            let config = self.config
            loop.addPad(id, sink: sink, profile: profile, gain: config.gain(for: info.name, usbID: info.usbID)) { engine in
                engine.isAutoShutdownEnabled = config.idleShutdown > 0
                if config.idleShutdown > 0 { engine.idleTimeout = config.idleShutdown }
            }
            logger.info("pad \(id): \(info.name) (\(info.path), \(info.usbID), profile \(profile.name))")
        }
        loop.perform { _ in broadcast(.deviceAdded, padFields(id)) }
        return id
    }

    /// The device at `path` is gone.
    public func removeDevice(path: String) {
        let id: PadID? = loop.perform { _ in
            guard let (id, _) = pads.first(where: { $0.value.info.path == path && $0.value.connected }) else { return nil }
            pads[id]!.connected = false
            return id
        }
        guard let id else { return }
        loop.detachPad(id)
        logger.info("pad \(id) removed (\(path))")
        loop.perform { _ in broadcast(.deviceRemoved, padFields(id)) }
    }

    static func sameDevice(_ a: DeviceInfo, _ b: DeviceInfo) -> Bool {
        guard a.vendor == b.vendor, a.product == b.product, a.bus == b.bus, a.name == b.name else { return false }
        if let ua = a.uniq, let ub = b.uniq, !ua.isEmpty { return ua == ub }
        return true
    }

    // MARK: clients

    /// A new connection; nil when the client limit is reached.
    public func connect(credentials: PeerCredentials?, send: @escaping @Sendable (String) -> Void) -> ClientID? {
        loop.perform { _ in
            guard clients.count < config.maxClients else { return nil }
            let id = nextClient
            nextClient += 1
            let allowed = credentials.map { config.allows(uid: $0.uid, gid: $0.gid) } ?? true
            clients[id] = Client(credentials: credentials, allowed: allowed, send: send)
            return id
        }
    }

    /// The connection closed: its players stop and are destroyed (unless configured otherwise).
    public func disconnect(_ client: ClientID) {
        loop.perform { access in
            guard let c = clients.removeValue(forKey: client) else { return }
            guard config.stopPlayersOnDisconnect else {
                // Orphaned players keep playing; nobody can address them any more, so one-shots clean up.
                return
            }
            for pid in c.players.sorted() {
                guard let rec = players[pid], let engine = access.engine(rec.pad) else { continue }
                // A one-shot `play` that does not loop is fire-and-forget (`echo … | socat`): it
                // finishes its pattern — bounded by the pattern limits — and is cleaned up when it
                // ends. Everything else the client made stops and is destroyed now.
                if rec.oneShot, let status = try? engine.status(rec.local), !status.loopEnabled, status.phase == .playing {
                    continue
                }
                players[pid] = nil
                try? engine.destroyPlayer(rec.local)
            }
        }
    }

    // MARK: requests

    /// Handles one request line and returns the reply line.
    public func handle(line: String, from client: ClientID) -> String {
        let request: Request
        do {
            request = try Request.parse(line)
        } catch {
            return Reply.error(error.id, error.error)
        }
        do {
            guard let command = Command(rawValue: request.command) else {
                let known = Command.allCases.map(\.rawValue).joined(separator: ", ")
                throw ProtocolError(.unknownCommand, "unknown command \"\(request.command)\" (known: \(known))")
            }
            // Patterns are parsed here, off the render queue.
            let pattern = try resolveInlinePattern(request, command)
            let changesEngines = !Self.readOnly.contains(command)
            let result = try loop.perform(ticking: changesEngines) { access throws(ProtocolError) in
                commandDeviceErrors = []
                return try execute(command, request, pattern, client, access)
            }
            // The first frame of a command is written right after it (inside `perform`); a device
            // that failed then fails the command. (Read on the next hop only when that can happen.)
            if changesEngines, let failure = loop.perform(ticking: false, { _ in commandDeviceErrors.first }) {
                throw ProtocolError(.deviceError, failure)
            }
            return Reply.ok(request.id, result)
        } catch let error as ProtocolError {
            return Reply.error(request.id, error)
        } catch {
            return Reply.error(request.id, ProtocolError(.badRequest, "\(error)"))
        }
    }

    private func resolveInlinePattern(_ request: Request, _ command: Command) throws(ProtocolError) -> HapticPattern? {
        guard command == .play || command == .playerCreate, let json = request.optional("pattern") else { return nil }
        if request.optional("name") != nil { throw ProtocolError(.badRequest, "give \"pattern\" or \"name\", not both") }
        do {
            let loaded = try AHAPLoader.load(json: json, limits: config.patternLimits)
            return loaded.pattern
        } catch {
            let first = error.errors.first.map(\.description) ?? "invalid"
            throw ProtocolError(.invalidPattern, "pattern: \(first)", details: error.errors.map(\.description))
        }
    }

    private func execute(
        _ command: Command, _ r: Request, _ inline: HapticPattern?, _ clientID: ClientID, _ access: RenderLoop.PadAccess
    ) throws(ProtocolError) -> JSONObject {
        guard let client = clients[clientID] else { throw ProtocolError(.badRequest, "the connection is closing") }
        guard client.allowed else {
            throw ProtocolError(.permissionDenied, "\(client.credentials.map(\.description) ?? "this peer") is not in clients.allow_uids/allow_gids")
        }
        switch command {
        case .ping:
            return JSONObject(["pong": .bool(true)])
        case .version:
            return JSONObject(["version": .string(Self.version), "protocol": .number(Double(protocolVersion))])
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
            return try create(command, r, inline, clientID, access)
        case .playerStart, .playerStop, .playerPause, .playerResume:
            let (id, rec, engine) = try player(r, clientID, access)
            let time = try r.time(now: engine.currentTime)
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
            let (id, rec, engine) = try player(r, clientID, access)
            try engineCall { () throws(EngineError) in try engine.cancel(rec.local) }
            return playerFields(id, rec, engine)
        case .playerSeek:
            let (id, rec, engine) = try player(r, clientID, access)
            let offset = try r.requiredNumber("offset")
            try engineCall { () throws(EngineError) in try engine.seek(rec.local, toOffset: offset) }
            return playerFields(id, rec, engine)
        case .playerSet:
            let (id, rec, engine) = try player(r, clientID, access)
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
            let (id, rec, engine) = try player(r, clientID, access)
            let values = try parameters(r)
            let time = try r.time(now: engine.currentTime)
            try engineCall { () throws(EngineError) in try engine.sendParameters(values, to: rec.local, at: time) }
            return playerFields(id, rec, engine)
        case .playerScheduleCurve:
            let (id, rec, engine) = try player(r, clientID, access)
            let curve = try curveFrom(r)
            let time = try r.time(now: engine.currentTime)
            try engineCall { () throws(EngineError) in try engine.scheduleCurve(curve, on: rec.local, at: time) }
            return playerFields(id, rec, engine)
        case .playerDestroy:
            let (id, rec, engine) = try player(r, clientID, access)
            try engineCall { () throws(EngineError) in try engine.destroyPlayer(rec.local) }
            players[id] = nil
            clients[clientID]?.players.remove(id)
            return JSONObject(["player": .number(Double(id)), "destroyed": .bool(true)])
        case .engineStart, .engineStop, .engineReset, .engineStatus:
            let pad = try padID(r, access, connected: command != .engineStatus)
            let engine = access.engine(pad)!
            switch command {
            case .engineStart: engine.start()
            case .engineStop: engine.stop()
            case .engineReset:
                engine.reset()
                engine.start()
            default: break
            }
            return engineFields(pad, engine, clientID, access)
        case .stopAll:
            var stopped = 0
            for id in pads.keys.sorted() {
                guard let engine = access.engine(id) else { continue }
                for pid in engine.playerIDs where (try? engine.status(pid).phase) != .idle {
                    try? engine.stop(pid)
                    stopped += 1
                }
            }
            return JSONObject(["stopped": .number(Double(stopped))])
        case .gainSet:
            let pad = try padID(r, access)
            let gain = try r.requiredNumber("gain")
            guard (0...1).contains(gain) else { throw ProtocolError(.badRequest, "\"gain\" must be within 0…1, not \(gain)") }
            access.pipeline(pad)!.gain = gain
            return JSONObject(["device": .number(Double(pad)), "gain": .number(gain)])
        case .subscribe:
            var names = Set(EventName.allCases).subtracting([.deviceOutput])
            if let v = r.optional("events") {
                guard case .array(let list) = v else { throw ProtocolError(.badRequest, "\"events\" must be an array of event names") }
                names = []
                for item in list {
                    guard case .string(let s) = item, let name = EventName(rawValue: s) else {
                        throw ProtocolError(.badRequest, "unknown event \(JSONWriter.write(item)) (known: \(EventName.allCases.map(\.rawValue).joined(separator: ", ")))")
                    }
                    names.insert(name)
                }
            }
            clients[clientID]!.subscriptions = names
            return JSONObject(["events": .array(names.map(\.rawValue).sorted().map { .string($0) })])
        }
    }

    // MARK: command helpers

    private func create(
        _ command: Command, _ r: Request, _ inline: HapticPattern?, _ clientID: ClientID, _ access: RenderLoop.PadAccess
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
        let pad = try padID(r, access)
        guard clients[clientID]!.players.count < config.maxPlayersPerClient else {
            throw ProtocolError(.limitExceeded, "this client already has \(config.maxPlayersPerClient) players (limits.max_players_per_client); destroy some")
        }
        let engine = access.engine(pad)!
        let advanced = try r.bool("advanced") ?? true
        let local = engine.makePlayer(pattern, advanced: advanced, oneShot: command == .play)
        let id = nextPlayer
        nextPlayer += 1
        let rec = PlayerRecord(
            pad: pad, local: local, owner: clientID, ownerUID: clients[clientID]!.credentials?.uid, oneShot: command == .play)
        players[id] = rec
        clients[clientID]!.players.insert(id)
        do {
            if command == .play {
                if let loopFlag = try r.bool("loop") { try engineCall { () throws(EngineError) in try engine.setLoopEnabled(local, loopFlag) } }
                if let rate = try r.number("rate") { try engineCall { () throws(EngineError) in try engine.setRate(local, rate) } }
                try engineCall { () throws(EngineError) in try engine.start(local) }
            }
        } catch {
            try? engine.destroyPlayer(local)
            players[id] = nil
            clients[clientID]!.players.remove(id)
            throw error
        }
        return playerFields(id, rec, engine)
    }

    private func player(_ r: Request, _ clientID: ClientID, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> (Int, PlayerRecord, HapticEngine) {
        let id = try r.requiredInteger("player")
        guard var rec = players[id] else {
            if invalidatedPlayers.contains(id) {
                throw ProtocolError(.playerInvalidated, "player \(id) was invalidated by an engine reset; create it again")
            }
            throw ProtocolError(.notFound, "no player \(id)")
        }
        if rec.owner != clientID {
            // Another connection's player: off limits while it is connected. A kept player of a
            // closed connection (clients.stop_players_on_disconnect = false) is adopted by the same
            // user, or root.
            let uid = clients[clientID]?.credentials?.uid
            guard clients[rec.owner] == nil, uid == 0 || (uid != nil && uid == rec.ownerUID) else {
                throw ProtocolError(.permissionDenied, "player \(id) belongs to another client")
            }
            rec.owner = clientID
            players[id] = rec
            clients[clientID]?.players.insert(id)
        }
        guard let engine = access.engine(rec.pad) else { throw ProtocolError(.notFound, "the device of player \(id) is gone") }
        return (id, rec, engine)
    }

    private func padID(_ r: Request, _ access: RenderLoop.PadAccess, connected: Bool = true) throws(ProtocolError) -> PadID {
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

    private func engineCall(_ body: () throws(EngineError) -> Void) throws(ProtocolError) {
        do {
            try body()
        } catch {
            switch error {
            case .notRunning: throw ProtocolError(.engineStopped, "the device's engine is stopped: send engine.start (or set engine.idle_shutdown to start on demand)")
            case .playerInvalidated: throw ProtocolError(.playerInvalidated, error.description)
            case .playerNotFound: throw ProtocolError(.notFound, error.description)
            default: throw ProtocolError(.badRequest, error.description)
            }
        }
    }

    private func parameters(_ r: Request) throws(ProtocolError) -> [(DynamicParameterID, Double)] {
        guard let v = r.optional("parameters") else {
            throw ProtocolError(.badRequest, "missing \"parameters\", e.g. {\"intensity\": 0.5}")
        }
        guard case .object(let o) = v, !o.members.isEmpty else {
            throw ProtocolError(.badRequest, "\"parameters\" must be an object such as {\"intensity\": 0.5, \"sharpness\": -0.2}")
        }
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

    private func curveFrom(_ r: Request) throws(ProtocolError) -> ParameterCurve {
        guard let name = try r.string("parameter") else { throw ProtocolError(.badRequest, "missing \"parameter\" (e.g. \"intensity\")") }
        guard let id = DynamicParameterID.named(name) else { throw ProtocolError(.badRequest, "unknown parameter \"\(name)\"") }
        guard case .array(let list)? = r.optional("points"), !list.isEmpty else {
            throw ProtocolError(.badRequest, "\"points\" must be a non-empty array of [time, value] pairs")
        }
        guard list.count <= config.patternLimits.maximumCurveControlPoints else {
            throw ProtocolError(.limitExceeded, "a curve has at most \(config.patternLimits.maximumCurveControlPoints) points")
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
            if let last = points.last, t < last.time { throw ProtocolError(.badRequest, "curve points must be in time order") }
            points.append(.init(t, min(max(v, id.range.lowerBound), id.range.upperBound)))
        }
        return ParameterCurve(id, at: 0, points: points)
    }

    // MARK: replies and events

    private func playerFields(_ id: Int, _ rec: PlayerRecord, _ engine: HapticEngine) -> JSONObject {
        var o = JSONObject(["player": .number(Double(id)), "device": .number(Double(rec.pad))])
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

    private func engineFields(_ pad: PadID, _ engine: HapticEngine, _ client: ClientID, _ access: RenderLoop.PadAccess) -> JSONObject {
        let mine = players.filter { $0.value.pad == pad && $0.value.owner == client }.keys.sorted()
        return JSONObject([
            "device": .number(Double(pad)), "running": .bool(engine.isRunning), "current_time": .number(engine.currentTime),
            "playing": .bool(engine.isPlaying), "players": .number(Double(engine.playerIDs.count)),
            "my_players": .array(mine.map { .number(Double($0)) }),
            "auto_shutdown": .bool(engine.isAutoShutdownEnabled), "muted": .bool(engine.isMutedForHaptics),
            "gain": .number(access.pipeline(pad)?.gain ?? 1), "connected": .bool(access.hasDevice(pad)),
        ])
    }

    private func padFields(_ id: PadID, _ access: RenderLoop.PadAccess? = nil) -> JSONObject {
        guard let p = pads[id] else { return JSONObject(["device": .number(Double(id))]) }
        var o = JSONObject([
            "device": .number(Double(id)), "name": .string(p.info.name), "path": .string(p.info.path),
            "usb_id": .string(p.info.usbID), "bus": .number(Double(p.info.bus)), "profile": .string(p.profile.name),
            "connected": .bool(p.connected), "simulated": .bool(p.simulated), "effect_slots": .number(Double(p.info.effectSlots)),
        ])
        if let access, let g = access.pipeline(id)?.gain { o.append("gain", .number(g)) }
        return o
    }

    private func broadcast(_ name: EventName, _ fields: JSONObject, only owner: ClientID? = nil) {
        var line: String?
        for (id, c) in clients where c.subscriptions.contains(name) && (owner == nil || owner == id) {
            if line == nil { line = Reply.event(name, fields) }
            c.send(line!)
        }
    }

    /// Engine and device events, on the render queue.
    private func loopEvent(_ event: LoopEvent) {
        switch event {
        case .playerEnded(let pad, let local, let end):
            guard let (id, rec) = players.first(where: { $0.value.pad == pad && $0.value.local == local }) else { return }
            broadcast(.playerFinished, JSONObject([
                "player": .number(Double(id)), "device": .number(Double(pad)), "reason": .string(end.rawValue),
            ]), only: rec.owner)
            if rec.oneShot {
                // A `play` player is done once it ends; the engine removes its own one-shots.
                players[id] = nil
                clients[rec.owner]?.players.remove(id)
            }
        case .engineStopped(let pad, let reason):
            logger.info("pad \(pad): engine stopped (\(reason.rawValue))")
            broadcast(.engineStopped, JSONObject(["device": .number(Double(pad)), "reason": .string(reason.rawValue)]))
        case .engineReset(let pad):
            for (id, rec) in players where rec.pad == pad {
                players[id] = nil
                clients[rec.owner]?.players.remove(id)
                invalidatedPlayers.insert(id)
            }
            logger.info("pad \(pad): engine reset; its players must be created again")
            broadcast(.engineReset, JSONObject(["device": .number(Double(pad))]))
        case .deviceError(let pad, let message, let disconnected):
            logger.error("pad \(pad): \(message)")
            commandDeviceErrors.append("device \(pad): \(message)")
            // A device that failed but is still there is reopened (by `deviceRecovery`); re-attaching
            // it resets its engine. An unplugged one is left to hot-plug.
            if !disconnected, let record = pads[pad], !record.simulated, record.connected {
                pads[pad]!.connected = false
                let path = record.info.path
                deviceRecovery?(path)
            }
        case .wrote(let pad, let time, let value):
            trace?.record(time: time, device: pad, value: value)
            writeObserver?(pad, time, value)
            broadcast(.deviceOutput, JSONObject([
                "device": .number(Double(pad)), "time": .number(time), "strong": .number(Double(value.strong)),
                "weak": .number(Double(value.weak)),
            ]))
        }
    }

    /// Device errors raised while the current command's first frame was written.
    private var commandDeviceErrors: [String] = []


    /// Stops every motor and closes every device (shutdown).
    public func shutdown() {
        loop.shutdown()
        trace?.close()
    }

    /// A pad's current output, for tests and the terminal view of simulated pads.
    public func padIDs() -> [PadID] { loop.perform { _ in pads.keys.sorted() } }
}

/// `--trace FILE`: appends `time,device,strong,weak` for every device write (monotonic seconds).
/// Used only on the render queue.
public final class TraceWriter: @unchecked Sendable {
    // @unchecked Sendable: `file` is written only on the render queue (from loop events).
    private var file: UnsafeMutablePointer<FILE>?

    public init(path: String) throws(ConfigError) {
        guard let f = fopen(path, "a") else { throw ConfigError("--trace", "cannot open \(path) for appending") }
        file = f
        if ftell(f) == 0 { fputs("time,device,strong,weak\n", f) }
        fflush(f)
    }

    func record(time: Double, device: PadID, value: MotorMagnitudes) {
        guard let f = file else { return }
        fputs("\(Format.fixed(time, 6)),\(device),\(value.strong),\(value.weak)\n", f)
        fflush(f)
    }

    public func close() {
        if let f = file { fclose(f) }
        file = nil
    }
}


#if canImport(Glibc)
import Glibc
#endif
