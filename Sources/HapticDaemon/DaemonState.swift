import HapticCore
import HapticProtocol
import NIOConcurrencyHelpers

/// What the daemon knows: the configuration commands see, the connected clients (and, through their
/// outlets, where events go), the players and who owns them, the pads by number and the pattern
/// library. The engines are not here: they belong to the render loop, and a command reaches them
/// through the `RenderLoop.PadAccess` it runs with.
///
/// `DaemonCore` owns one and touches it only under the render loop's lock; tests build one directly,
/// with a `RenderLoop` for the engines. Each command's handler (Handlers/) is a function of its
/// decoded request and this state; the helpers they share live with the family that uses them, as
/// extensions of this type.
///
/// A class, not a struct handed to handlers `inout`: an engine reports synchronously, inside the
/// engine call a handler makes (a reset invalidates players, a one-shot that ends is removed), and
/// `apply` then changes this state while the handler is still running — which an `inout` access
/// spanning the whole handler would forbid. It is not `Sendable`: one owner, under one lock.
final class DaemonState {
    /// The configuration, as commands see it. Each change (a reload, `policy.set`) is published to
    /// `shared` as it is made.
    var config: DaemonConfig {
        didSet { shared.withLockedValue { $0 = config } }
    }
    /// The configuration for the threads that do not hold the render loop's lock (`DaemonCore.config`:
    /// the socket threads read the pattern limits while decoding and the connection limits for a new
    /// connection). Written only by `config`'s observer, so a read-modify-write under the render
    /// loop's lock (`config.policy = p`) loses nothing.
    let shared: NIOLockedValueBox<DaemonConfig>
    var clients = ClientRegistry()
    var players = PlayerRegistry()
    var pads = PadRegistry()
    var library: PatternLibrary
    /// Patterns being sent in pieces (`pattern.upload`): touched on the socket threads without the
    /// render loop's lock (it has its own).
    let uploads = PatternUploads()

    /// The rest of a reply that its handler left to after the command's render pass (`deferFields`).
    private var lateFields: (() -> JSONObject)?

    init(config: DaemonConfig, library: PatternLibrary = PatternLibrary()) {
        self.config = config
        shared = NIOLockedValueBox(config)
        self.library = library
    }

    // MARK: replies

    /// Leaves the reply's fields to `finishReply`, after the command's render pass: what a reply
    /// reads (a player's status, the policy's say) then costs the pad's write nothing. The fields
    /// come first in the reply; the handler's own result adds to them.
    func deferFields(_ fields: @escaping () -> JSONObject) { lateFields = fields }

    /// A handler's result with the fields it deferred, read now (`DaemonCore` calls it after the
    /// command's render pass, still under the render loop's lock).
    func finishReply(_ result: JSONObject) -> JSONObject {
        guard let late = lateFields else { return result }
        lateFields = nil
        var out = late()
        for m in result.members where out[m.key] == nil { out.append(m.key, m.value) }
        return out
    }

    /// Forgets deferred fields (a command that failed after deferring, or one about to run).
    func dropDeferredFields() { lateFields = nil }

    // MARK: configuration

    /// A new configuration (SIGHUP): new gains and engine settings for the pads there are, and the
    /// policy applied to every player; clients stay. Profiles apply to pads that arrive later.
    func reload(_ newConfig: DaemonConfig, _ access: RenderLoop.PadAccess) {
        config = newConfig
        for id in pads.ids {
            let pad = pads[id]!
            access.pipeline(id)?.gain = newConfig.gain(for: pad.info.name, usbID: pad.info.usbID)
            for (_, engine) in access.engines(id) { newConfig.configure(engine) }
        }
        applyPolicy(access)
    }

    // MARK: clients

    /// The connection `client` closed. Its players stop and are destroyed — except a one-shot `play`
    /// that does not loop, which finishes its pattern (`echo … | socat` half-closes at once) — or, with
    /// `clients.stop_players_on_disconnect = false`, all of them are kept for the same user to take
    /// over. Whatever goes on sounding is an orphan: it still counts against its user, and stops
    /// after `clients.orphan_max_seconds` at the latest.
    func disconnect(_ client: ClientID, _ access: RenderLoop.PadAccess) {
        uploads.drop(client)
        guard let c = clients.remove(client) else { return }
        let deadline = access.now + config.orphanMaxSeconds
        for pid in c.players.sorted() {
            guard let rec = players[pid], let engine = access.engine(rec.pad, rec.locality) else {
                players.remove(pid)
                continue
            }
            let status = try? engine.status(rec.local)
            let finishesOnItsOwn = rec.kind == .play && status?.phase == .playing && status?.loopEnabled == false
            if rec.kind == .rumble {
                // A rumble stops with its connection, as a game's rumble stops with the game.
                players.remove(pid)
                try? engine.destroyPlayer(rec.local)
                continue
            }
            if config.stopPlayersOnDisconnect && !finishesOnItsOwn {
                players.remove(pid)
                try? engine.destroyPlayer(rec.local)
                continue
            }
            players.setOwner(nil, of: pid)
            if let phase = status?.phase, phase != .idle && phase != .finished {
                try? engine.limitLifetime(rec.local, until: deadline)
            }
        }
    }

    // MARK: pads and engines

    /// The pad a request names (`device`), or the first connected one. `connected: false` accepts a
    /// known pad that is unplugged (status, capabilities).
    func padID(_ device: Int?, _ access: RenderLoop.PadAccess, connected: Bool = true) throws(ProtocolError) -> PadID {
        if let d = device {
            guard let pad = pads[d], access.engine(d) != nil else {
                throw ProtocolError(.notFound, "no device \(d) (see the devices command)")
            }
            guard !connected || (pad.connected && access.hasDevice(d)) else {
                throw ProtocolError(.deviceError, "device \(d) (\(pad.info.name)) is disconnected")
            }
            return d
        }
        guard let first = pads.ids.first(where: { pads.isConnected($0) && access.hasDevice($0) }) else {
            throw ProtocolError(.notFound, "no rumble device is connected (hapticd --simulate gives simulated ones)")
        }
        return first
    }

    /// The pad's engine for `locality`, made on first use; a locality the pad does not have (the
    /// triggers of a pad driven through evdev: the kernel has no trigger rumble) is `unsupported`,
    /// never silently accepted.
    func engine(_ pad: PadID, _ locality: Locality, _ access: RenderLoop.PadAccess) throws(ProtocolError) -> HapticEngine {
        let actuators = pads[pad]?.profile.actuators ?? .rumble
        guard locality.route(for: actuators) != nil else {
            let why = actuators == .rumble ? "the kernel's force feedback has no trigger rumble" : "its actuators have none there"
            let supported = Locality.supported(by: actuators).map(\.rawValue).joined(separator: ", ")
            throw ProtocolError(.unsupported, "device \(pad) has no \(locality.rawValue) locality: \(why) (supported: \(supported))")
        }
        guard let engine = access.engine(pad, creating: locality) else { throw ProtocolError(.notFound, "no device \(pad)") }
        return engine
    }

    /// The pad and engine a request targets.
    func engine(_ target: EngineTarget, _ access: RenderLoop.PadAccess, connected: Bool = true) throws(ProtocolError) -> (PadID, HapticEngine) {
        let pad = try padID(target.device, access, connected: connected)
        return (pad, try engine(pad, target.locality, access))
    }
}

/// An engine call, its error as the protocol reports it. `player`: the daemon's number of the player
/// the call is about, which the message names (the engine's own number for it means nothing to a
/// client).
func engineCall(player: Int? = nil, _ body: () throws(EngineError) -> Void) throws(ProtocolError) {
    do {
        try body()
    } catch {
        let message = error.description(naming: { local in "player \(player ?? local)" })
        switch error {
        case .notRunning: throw ProtocolError(.engineStopped, "the device's engine is stopped: an admin must send engine.start (or set engine.idle_shutdown to start on demand)")
        case .playerInvalidated: throw ProtocolError(.playerInvalidated, message)
        case .playerNotFound: throw ProtocolError(.notFound, message)
        case .limitExceeded: throw ProtocolError(.limitExceeded, player.map { "player \($0): \(message)" } ?? message)
        default: throw ProtocolError(.badRequest, message)
        }
    }
}

extension DaemonState {
    /// A call on an owned player's engine (`engineCall` naming the player). An engine that is
    /// stopped because its pad is unplugged is the pad's `device_error`, not an administrator's
    /// stop (whose advice, `engine.start`, cannot help there).
    func playerCall(_ p: OwnedPlayer, _ access: RenderLoop.PadAccess, _ body: () throws(EngineError) -> Void) throws(ProtocolError) {
        do {
            try engineCall(player: p.id, body)
        } catch where error.code == .engineStopped {
            _ = try padID(p.record.pad, access)
            throw error
        }
    }
}

extension DaemonConfig {
    /// What the configuration says about every engine.
    func configure(_ engine: HapticEngine) {
        engine.isAutoShutdownEnabled = idleShutdown > 0
        if idleShutdown > 0 { engine.idleTimeout = idleShutdown }
        engine.limits = limits.engine
    }

    /// What decoding a request may depend on.
    var decodingContext: DecodingContext {
        DecodingContext(patternLimits: patternLimits, timeHorizon: limits.timeHorizon, maxCurvePoints: limits.maxCurvePoints)
    }
}
