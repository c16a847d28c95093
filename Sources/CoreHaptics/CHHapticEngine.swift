import Dispatch
internal import HapticCore
import Synchronization

/// A haptic engine: Apple's `CHHapticEngine`, playing on a gamepad through hapticd.
///
/// `CHHapticEngine()` plays on the default pad (the lowest-numbered connected one, chosen when the
/// engine starts) in the `default` locality (both motors, by sharpness); `GCController`'s
/// `haptics?.createEngine(withLocality:)` makes one for a given pad and locality. As on Apple
/// platforms: `init()` needs the haptics server (here: hapticd; without it, `serverInitFailed`);
/// `start()` needs hardware (without a pad: `notSupported`); a player starts only on a running
/// engine (`engineNotRunning`), unless `isAutoShutdownEnabled`, which stops the engine after
/// `autoShutdownDelay` seconds without anything to play and starts it again on demand.
///
/// Handlers — `stoppedHandler`, `resetHandler`, completion and finished handlers, and advanced
/// players' `completionHandler` — run on the engine's own serial dispatch queue (`handlerQueue`),
/// never on the caller's thread, in the order their causes happened. The engine stops by itself, and
/// calls `stoppedHandler`, when its pad is unplugged (`gameControllerDisconnect`), when it has been
/// idle (`idleTimeout`), after `notifyWhenPlayersFinished` asked it to (`notifyWhenFinished`), when
/// hapticd went away or an administrator stopped the pad's engine (`systemError`). `resetHandler` runs
/// when hapticd reset the pad's engine (the pad came back, or an administrator reset it) and when hapticd
/// is back after it went away: players made before are invalid then (`invalidPatternPlayer`); start
/// the engine and make them again.
///
/// Thread-safe: every method may be called from any thread.
open class CHHapticEngine: Hashable, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: every mutable property is in `state`, behind its mutex; handlers are
    // called only on `handlerQueue`.
    //
    // Not an NSObject subclass, unlike Apple's: Swift cannot give an NSObject subclass the throwing
    // `init()` that Apple's Objective-C initializer imports as. Engines compare and hash by identity.

    public typealias CompletionHandler = (Error?) -> Void
    public typealias FinishedHandler = (Error?) -> CHHapticEngine.FinishedAction
    public typealias StoppedHandler = (CHHapticEngine.StoppedReason) -> Void
    public typealias ResetHandler = () -> Void

    /// What `notifyWhenPlayersFinished`'s handler asks for.
    public enum FinishedAction: Int, Sendable {
        case stopEngine = 1
        case leaveEngineRunning = 2
    }

    /// Why the engine stopped by itself (Apple's raw values).
    public enum StoppedReason: Int, Sendable {
        case audioSessionInterrupt = 1
        case applicationSuspended = 2
        case idleTimeout = 3
        case notifyWhenFinished = 4
        case engineDestroyed = 5
        case gameControllerDisconnect = 6
        case systemError = -1

        /// The reason hapticd's `engine.stopped` event names (anything unknown: `systemError`).
        init(daemon name: String) {
            self = switch name {
            case "idleTimeout": .idleTimeout
            case "gameControllerDisconnect": .gameControllerDisconnect
            case "engineDestroyed": .engineDestroyed
            case "notifyWhenFinished": .notifyWhenFinished
            default: .systemError
            }
        }
    }

    /// Seconds without anything to play after which an engine with `isAutoShutdownEnabled` stops
    /// itself: Apple's "approximately two minutes of inactivity" (`isAutoShutdownEnabled`).
    public static let autoShutdownDelay: TimeInterval = 120

    /// Where this engine's handlers run.
    public let handlerQueue: DispatchQueue

    /// The pad (nil: the default one, chosen at `start()`) and the locality, in hapticd's names.
    let fixedDevice: Int?
    let locality: String
    let service = HapticService.shared

    struct PlayerRecord {
        weak var player: PatternPlayer?
        var active = false
        /// The player object is gone but its pattern plays on: destroyed in hapticd when it ends.
        var orphan = false
        /// An advanced player's completion handler, shared with the player (not reached through the
        /// weak `player`: nil while it deinitialises, and a load that could make this engine's lock
        /// the place of its last release): called when it ends, held or dropped.
        var completion: CompletionBox?

        /// The completion handler to call when it ends.
        var completionHandler: Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>? {
            completion?.handler.withLock { $0 }
        }
    }

    struct State {
        var running = false
        /// Counts starts: a `.stopEngine` decided before a start does not stop the engine it began.
        var starts = 0
        /// The pad this engine plays on now.
        var device: Int?
        /// The pad a default-pad engine lost to an unplug: its return resets the engine, as for an
        /// engine made for that pad (until the engine starts on a pad again).
        var departedDevice: Int?
        var players: [Int: PlayerRecord] = [:]
        /// Players made before a reset or a lost connection carry an older generation: invalid.
        var generation = 0
        // Handlers are the program's closures (not Sendable, as Apple's types are not): kept here,
        // called only on `handlerQueue`.
        var finishedHandler: Unchecked<FinishedHandler>?
        /// Why the players last stopped, when an error stopped them (a reset, hapticd gone): what
        /// the pending `notifyWhenPlayersFinished` handler hears (Apple: "If the engine detects the
        /// players have stopped due to an error, this is set").
        var finishError: CHHapticError?
        var stoppedHandler = Unchecked<StoppedHandler>({ _ in })
        var resetHandler = Unchecked<ResetHandler>({})
        var playsHapticsOnly = false
        var playsAudioOnly = false
        var isMutedForAudio = false
        var isMutedForHaptics = false
        var isAutoShutdownEnabled = false
        /// When auto-shutdown stops the engine if nothing plays until then (nil: not counting down).
        var idleDeadline: DispatchTime?
        /// One timer at most is queued for it: every finished player moves the deadline, and a game
        /// playing 30 transients a second must not queue a timer each for two minutes.
        var idleTimerQueued = false
        /// hapticd went away while this engine existed: its reset handler runs once it is back.
        var lostServer = false
        /// `autoShutdownDelay`, or a test's own.
        var idleDelay = CHHapticEngine.autoShutdownDelay
        /// The audio resources registered with this engine since it was made or last reset (a reset
        /// forgets them, as Apple's header says the app "must reload all custom audio resources").
        var audioResources: [CHHapticAudioResourceID: URL] = [:]
    }

    let state = Mutex(State())

    /// An engine for the default pad, `default` locality. As Apple's fails on a system without haptic
    /// hardware, it throws `notSupported` when hapticd has no pad, and `serverInitFailed` when hapticd
    /// does not answer.
    /// Designated, as Apple's is, so that a subclass in a program inherits it.
    public init() throws {
        fixedDevice = nil
        locality = "default"
        handlerQueue = Self.makeHandlerQueue()
        try connectDefault()
    }

    /// Apple's engine for an audio session (nil: one of the engine's own). The session has no effect
    /// here: the engine plays on the default pad, as `init()` does. Designated, as Apple's is.
    public init(audioSession: AVAudioSession?) throws {
        fixedDevice = nil
        locality = "default"
        handlerQueue = Self.makeHandlerQueue()
        try connectDefault()
    }

    /// An engine for `device` (nil: the default pad) and a hapticd locality name.
    package init(device: Int?, locality: String) throws(CHHapticError) {
        fixedDevice = device
        self.locality = locality
        handlerQueue = Self.makeHandlerQueue()
        _ = try service.client()
        service.register(self)
    }

    private static func makeHandlerQueue() -> DispatchQueue { DispatchQueue(label: "hapticd.CoreHaptics.engine") }

    /// `init()`'s and `init(audioSession:)`'s: hapticd must answer and have a pad.
    private func connectDefault() throws {
        _ = try service.client()
        guard service.connectedPadCount() > 0 else {
            throw CHHapticError(.notSupported, "hapticd has no pad connected: there is no haptic hardware to play on")
        }
        // Registered (to hear hapticd's events) only once it will be an engine.
        service.register(self)
    }

    public static func == (a: CHHapticEngine, b: CHHapticEngine) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    open var description: String {
        "<CHHapticEngine \(fixedDevice.map { "pad \($0)" } ?? "default pad") \(locality)>"
    }

    deinit {
        service.unregister(self)
        // As on Apple platforms, an engine that goes takes its players' sound with it.
        let (ids, resources) = state.withLock { (Array($0.players.keys), Array($0.audioResources.keys)) }
        AudioResources.unregister(resources)
        for id in ids {
            service.disown(id)
            service.post("player.destroy", JSONObject(["player": .number(Double(id))]))
        }
    }

    // MARK: capabilities

    /// What the default pad can do: `supportsHaptics` is true when hapticd answers and has a pad;
    /// `supportsAudio` is false (a pad has no speaker).
    open class func capabilitiesForHardware() -> any CHHapticDeviceCapability {
        HapticDeviceCapability(device: nil)
    }

    // MARK: properties

    /// The engine's clock (seconds): what every `atTime:` is measured on (hapticd's engine clock).
    open var currentTime: TimeInterval { service.engineTime }

    open var stoppedHandler: StoppedHandler {
        get { state.withLock { $0.stoppedHandler.value } }
        set {
            let h = Unchecked(newValue)
            state.withLock { $0.stoppedHandler = h }
        }
    }

    open var resetHandler: ResetHandler {
        get { state.withLock { $0.resetHandler.value } }
        set {
            let h = Unchecked(newValue)
            state.withLock { $0.resetHandler = h }
        }
    }

    /// Accepted; a pad plays only haptics anyway.
    open var playsHapticsOnly: Bool {
        get { state.withLock { $0.playsHapticsOnly } }
        set { state.withLock { $0.playsHapticsOnly = newValue } }
    }

    /// True: the engine plays audio only, so nothing reaches the pad (its players are muted).
    open var playsAudioOnly: Bool {
        get { state.withLock { $0.playsAudioOnly } }
        set {
            state.withLock { $0.playsAudioOnly = newValue }
            applyMute()
        }
    }

    /// Accepted; there is no audio to mute.
    open var isMutedForAudio: Bool {
        get { state.withLock { $0.isMutedForAudio } }
        set { state.withLock { $0.isMutedForAudio = newValue } }
    }

    /// Mutes every player of this engine (and those made later); other programs' players on the
    /// pad are not affected.
    open var isMutedForHaptics: Bool {
        get { state.withLock { $0.isMutedForHaptics } }
        set {
            state.withLock { $0.isMutedForHaptics = newValue }
            applyMute()
        }
    }

    open var isAutoShutdownEnabled: Bool {
        get { state.withLock { $0.isAutoShutdownEnabled } }
        set {
            state.withLock { $0.isAutoShutdownEnabled = newValue }
            scheduleIdleCheck()
        }
    }

    // MARK: starting and stopping

    /// Starts the engine: picks its pad, readies it (hapticd's `prepare`: the pad's engine started if
    /// it may start on demand, its kernel effect uploaded) and makes players playable.
    open func start() throws {
        let result: JSONObject
        do {
            result = try service.request("prepare", target(), otherwise: .engineStartTimeout)
        } catch {
            if error.code == .resourceNotAvailable || error.code == .notSupported {
                throw CHHapticError(.notSupported, "no pad to play on: \(error.localizedDescription)")
            }
            throw error
        }
        if case .string("stopped")? = result["engine"] {
            throw CHHapticError(.engineNotRunning, "the pad's engine was stopped by an administrator (hapticctl engine start, as root, starts it again)")
        }
        state.withLock { s in
            if case .number(let d)? = result["device"] { s.device = Int(saturating: d) }
            s.departedDevice = nil
            s.running = true
            s.starts &+= 1
        }
        scheduleIdleCheck()
    }

    /// Starts the engine on another thread; `completionHandler` runs on `handlerQueue`.
    open func start(completionHandler: CompletionHandler? = nil) {
        let handler = Unchecked(completionHandler)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            var failure: Error?
            do { try start() } catch { failure = error }
            if handler.value != nil { handlerQueue.async { [failure] in handler.value?(failure) } }
        }
    }

    open func start() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            start { error in if let error { c.resume(throwing: error) } else { c.resume() } }
        }
    }

    /// Stops the engine: every player of it stops. The stopped handler is not called (it is for
    /// stops the program did not ask for). `completionHandler` runs on `handlerQueue`.
    open func stop(completionHandler: CompletionHandler? = nil) {
        let handler = Unchecked(completionHandler)
        cancel(halt()) { error in handler.value?(error) }
    }

    /// Cancels `playing` (a stopped engine's players), then calls `done` on `handlerQueue` with the
    /// first error. Cancelled, not stopped: a start scheduled for later must not play on a stopped
    /// engine (a stop at a time leaves it pending). Sent before this returns, so that a start the
    /// program sends next comes after them; `done` runs once they are answered.
    private func cancel(_ playing: [Int], then done: (@Sendable (CHHapticError?) -> Void)? = nil) {
        let group = DispatchGroup()
        final class FirstError: Sendable { let error = Mutex<CHHapticError?>(nil) }
        let failure = FirstError()
        for id in playing {
            group.enter()
            service.post("player.cancel", JSONObject(["player": .number(Double(id))])) { error in
                if let error, error.code != .invalidPatternPlayer { failure.error.withLock { $0 = $0 ?? error } }  // gone already: fine
                group.leave()
            }
        }
        if let done { group.notify(queue: handlerQueue) { done(failure.error.withLock { $0 }) } }
    }

    open func stop() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            stop { error in if let error { c.resume(throwing: error) } else { c.resume() } }
        }
    }

    /// Calls `finishedHandler` (on `handlerQueue`) once every player of this engine has finished —
    /// at once when none plays — with the error they stopped on, if one did. `.stopEngine` stops a
    /// running engine, whose stopped handler hears `notifyWhenFinished`.
    open func notifyWhenPlayersFinished(finishedHandler: @escaping CHHapticEngine.FinishedHandler) {
        let h = Unchecked(finishedHandler)
        state.withLock { $0.finishedHandler = h }
        checkFinished()
    }

    // MARK: players and patterns

    open func makePlayer(with pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
        try makePlayer(pattern, PatternPlayer.self)
    }

    open func makeAdvancedPlayer(with pattern: CHHapticPattern) throws -> any CHHapticAdvancedPatternPlayer {
        try makePlayer(pattern, AdvancedPatternPlayer.self)
    }

    private func makePlayer<Player: PatternPlayer>(_ pattern: CHHapticPattern, _ kind: Player.Type) throws(CHHapticError) -> Player {
        // Audio is not played here, but a pattern naming a resource this engine does not have is as
        // wrong as on Apple's (`invalidAudioResource`).
        let unknown = state.withLock { s in pattern.audioResourceIDs.filter { s.audioResources[$0] == nil }.min() }
        if let id = unknown { throw CHHapticError(.invalidAudioResource, "audio resource \(id) is not registered with this engine") }
        let advanced = kind == AdvancedPatternPlayer.self
        var body = target(pattern: pattern.json)
        body.append("advanced", .bool(advanced))
        let result = try service.request("player.create", body, otherwise: .invalidPatternData)
        guard case .number(let n)? = result["player"] else { throw CHHapticError(.unknownError, "hapticd made no player") }
        let id = Int(saturating: n)
        let (generation, muted) = state.withLock { s -> (Int, Bool) in
            if s.device == nil, case .number(let d)? = result["device"] { s.device = Int(saturating: d) }
            return (s.generation, s.isMutedForHaptics || s.playsAudioOnly)
        }
        let player = Player(engine: self, id: id, generation: generation, duration: pattern.duration)
        state.withLock { $0.players[id] = PlayerRecord(player: player, completion: player.completionBox) }
        service.own(id, by: self)
        if muted { service.post("player.set", JSONObject(["player": .number(Double(id)), "muted": .bool(true)])) }
        return player
    }

    /// Plays an AHAP file at once (or a `.haptic` clip), with no player to keep.
    open func playPattern(from fileURL: URL) throws {
        try play(CHHapticPattern.load(contentsOf: fileURL))
    }

    /// Plays AHAP data at once, with no player to keep.
    open func playPattern(from data: Data) throws {
        try play(CHHapticPattern.load(data: data))
    }

    private func play(_ pattern: HapticPattern) throws {
        // Apple: "the engine should be started prior to calling this method …; if this is not done,
        // this method will start it".
        if !state.withLock({ $0.running }) { try start() }
        let body = target(pattern: AHAPWriter.json(pattern))
        let muted = state.withLock { $0.isMutedForHaptics || $0.playsAudioOnly }
        if muted { return }
        let result = try service.request("play", body, otherwise: .invalidPatternData)
        guard case .number(let n)? = result["player"] else { return }
        let id = Int(saturating: n)
        let playing: Bool = if case .string(let s)? = result["state"] { s == "playing" || s == "scheduled" } else { false }
        guard playing else { return }
        state.withLock { $0.players[id] = PlayerRecord(player: nil, active: true, orphan: true) }
        service.own(id, by: self)
    }

    /// Accepted (a pad has no speaker): audio events are skipped when they play. As Apple's, it
    /// throws when the file cannot be read (`fileNotFound`); its content is not decoded.
    open func registerAudioResource(_ resourceURL: URL, options: [AnyHashable: Any] = [:]) throws -> CHHapticAudioResourceID {
        guard resourceURL.isFileURL else { throw CHHapticError(.invalidAudioResource, "\(resourceURL): audio resources are files") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resourceURL.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: resourceURL.path)
        else { throw CHHapticError(.fileNotFound, "\(resourceURL.path): no audio file can be read there") }
        return state.withLock { s in
            let id = AudioResources.register(resourceURL)
            s.audioResources[id] = resourceURL
            return id
        }
    }

    open func unregisterAudioResource(_ resourceID: CHHapticAudioResourceID) throws {
        let known = state.withLock { $0.audioResources.removeValue(forKey: resourceID) != nil }
        guard known else { throw CHHapticError(.invalidAudioResource, "no audio resource \(resourceID) is registered with this engine") }
        AudioResources.unregister([resourceID])
    }

    /// The engine was reset: its audio resources are gone with its players; the program registers
    /// them again from its reset handler (new IDs: an old one names nothing, on any engine).
    private func forgetAudioResources(_ s: inout State) {
        AudioResources.unregister(Array(s.audioResources.keys))
        s.audioResources = [:]
    }

    // MARK: for players

    /// `device` and `locality` for a request on this engine's pad.
    func target() -> JSONObject {
        var body = JSONObject(["locality": .string(locality)])
        if let d = fixedDevice ?? state.withLock({ $0.device }) { body.append("device", .number(Double(d))) }
        return body
    }

    /// `target()` and a pattern to play (`play`, `player.create`). The library's patterns are
    /// resolved already (made from objects, or loaded here): their curve times are relative, and
    /// hapticd must not read them again as a file's.
    func target(pattern: JSONValue) -> JSONObject {
        var body = target()
        body.append("pattern", pattern)
        body.append("curve_times", .string("relative"))
        return body
    }

    /// A player may start: the engine runs, or starts again on demand (auto-shutdown).
    func ensureRunning() throws(CHHapticError) {
        let (running, auto) = state.withLock { ($0.running, $0.isAutoShutdownEnabled) }
        if running { return }
        guard auto else { throw CHHapticError(.engineNotRunning, "the engine is stopped: call start() first") }
        do {
            try start()
        } catch let e as CHHapticError {
            throw e
        } catch {
            throw CHHapticError(.unknownError, error.localizedDescription)
        }
    }

    func isValid(_ generation: Int) -> Bool { state.withLock { $0.generation == generation } }

    /// What a player's latest reply said of its state.
    func note(_ id: Int, state phase: String?) {
        guard let phase else { return }
        let active = phase == "playing" || phase == "scheduled" || phase == "paused"
        let changed = state.withLock { s -> Bool in
            guard s.players[id] != nil, s.players[id]!.active != active else { return false }
            s.players[id]!.active = active
            return true
        }
        if changed {
            scheduleIdleCheck()
            if !active { checkFinished() }
        }
    }

    /// The player object `id` is gone. One that plays plays on to its end and is destroyed then; one
    /// that is `endless` — it loops, or was paused — has no end, and goes at once (its motors stop):
    /// nothing could stop it otherwise but stopping the engine (the Unity plug-in's `DestroyPlayer`
    /// of a looping player left it playing, found by a stranger's check; a paused one was kept for
    /// good, counting against the connection's players).
    func release(_ id: Int, endless: Bool = false) {
        let (keep, wasActive) = state.withLock { s -> (Bool, Bool) in
            guard let r = s.players[id] else { return (false, false) }
            if r.active && !endless {
                s.players[id]!.orphan = true
                return (true, true)
            }
            s.players[id] = nil
            return (false, r.active)
        }
        if !keep {
            service.disown(id)
            service.post("player.destroy", JSONObject(["player": .number(Double(id))]))
        }
        if wasActive && !keep {
            // Its `player.finished` is not heard (disowned above): what waits for players to end
            // learns it here.
            scheduleIdleCheck()
            checkFinished()
        }
    }

    func isMuted(_ own: Bool) -> Bool { own || state.withLock { $0.isMutedForHaptics || $0.playsAudioOnly } }

    // MARK: what hapticd reports

    /// `player.finished`.
    func playerEnded(_ id: Int) {
        let (known, completion, orphan) = state.withLock { s -> (Bool, Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>?, Bool) in
            guard var r = s.players[id] else { return (false, nil, false) }
            r.active = false
            if r.orphan { s.players[id] = nil } else { s.players[id] = r }
            return (true, r.completionHandler, r.orphan)
        }
        if orphan {
            service.post("player.destroy", JSONObject(["player": .number(Double(id))]))
        } else if known {
            service.own(id, by: self)  // it may be started again (not one `release` freed meanwhile)
        }
        if let handler = completion {
            handlerQueue.async { handler.value(nil) }
        }
        scheduleIdleCheck()
        checkFinished()
    }

    func isBound(device: Int, locality name: String? = nil) -> Bool {
        guard name == nil || name == locality else { return false }
        return (fixedDevice ?? state.withLock { $0.device ?? $0.departedDevice }) == device
    }

    /// hapticd stopped the pad's engine (pad removed, idle, an administrator, a device error).
    func stoppedByDaemon(_ reason: String) {
        let why = StoppedReason(daemon: reason)
        let handler = state.withLock { s -> Unchecked<StoppedHandler>? in
            guard s.running else { return nil }
            s.running = false
            if why == .gameControllerDisconnect && fixedDevice == nil {
                s.departedDevice = s.device
                s.device = nil
            }
            for id in s.players.keys { s.players[id]!.active = false }
            return s.stoppedHandler
        }
        guard let handler else { return }
        handlerQueue.async { handler.value(why) }
    }

    /// hapticd reset the pad's engine: players are gone (the advanced players that were playing
    /// finish, hearing `invalidPatternPlayer`; hapticd says no `player.finished` for them); the
    /// program starts the engine again.
    func resetByDaemon() {
        let error = CHHapticError(.invalidPatternPlayer, "the pad's engine was reset: make the player again")
        let (handler, ids, playing) = state.withLock { s -> (Unchecked<ResetHandler>, [Int], [Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>]) in
            let ids = Array(s.players.keys)
            let playing = s.players.values.filter(\.active).compactMap(\.completionHandler)
            invalidatePlayers(&s, because: error)
            forgetAudioResources(&s)
            return (s.resetHandler, ids, playing)
        }
        for id in ids { service.disown(id) }
        finish(playing, error)
        handlerQueue.async { handler.value() }
        checkFinished()
    }

    /// The connection to hapticd is gone: what played has stopped, so the advanced players that were
    /// playing finish (their completion handlers hear `serverInterrupted`: hapticd, which would say
    /// `player.finished`, cannot), as does `notifyWhenPlayersFinished`.
    func serverLost() {
        let error = CHHapticError(.serverInterrupted, "hapticd went away")
        let (handler, playing) = state.withLock { s -> (Unchecked<StoppedHandler>?, [Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>]) in
            let wasRunning = s.running
            let playing = s.players.values.filter(\.active).compactMap(\.completionHandler)
            invalidatePlayers(&s, because: error)
            s.lostServer = true
            return (wasRunning ? s.stoppedHandler : nil, playing)
        }
        finish(playing, error)
        if let handler { handlerQueue.async { handler.value(.systemError) } }
        checkFinished()
    }

    /// hapticd is back after it went away: as after a reset (for engines that lost it).
    func serverReset() {
        let handler = state.withLock { s -> Unchecked<ResetHandler>? in
            guard s.lostServer else { return nil }
            s.lostServer = false
            forgetAudioResources(&s)
            return s.resetHandler
        }
        guard let handler else { return }
        handlerQueue.async { handler.value() }
    }

    /// Calls these completion handlers (the advanced players' that were playing) with `error`.
    private func finish(_ completions: [Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>], _ error: CHHapticError) {
        for completion in completions {
            handlerQueue.async { completion.value(error) }
        }
    }

    /// The engine's players are gone, stopped by `error` (what a pending
    /// `notifyWhenPlayersFinished` handler hears if any of them was playing).
    private func invalidatePlayers(_ s: inout State, because error: CHHapticError) {
        if s.finishedHandler != nil, s.players.values.contains(where: \.active) { s.finishError = error }
        s.running = false
        s.generation += 1
        s.players = [:]
        // A default-pad engine picks its pad again at its next start, and hears the pad it was on
        // until then: a start that fails (the pad back but not yet ready, hapticd restarting) must
        // not leave it deaf to that pad's next reset — it would never learn the pad is back.
        if fixedDevice == nil {
            s.departedDevice = s.device ?? s.departedDevice
            s.device = nil
        }
    }

    // MARK: internals

    /// Stops the engine (state only); returns the players that were playing.
    private func halt() -> [Int] {
        state.withLock { s in
            s.running = false
            s.idleDeadline = nil
            return s.players.filter(\.value.active).map(\.key)
        }
    }

    /// Calls a pending `notifyWhenPlayersFinished` handler once nothing plays, with the error the
    /// players stopped on, if one did. `.stopEngine` stops a running engine as `stop()` does (a
    /// player started while the handler ran stops too), and its `stoppedHandler` then hears
    /// `notifyWhenFinished`; an engine that was not running has nothing to stop.
    private func checkFinished() {
        let pending = state.withLock { s -> (Unchecked<FinishedHandler>, CHHapticError?, Int)? in
            guard let h = s.finishedHandler, !s.players.values.contains(where: \.active) else { return nil }
            s.finishedHandler = nil
            defer { s.finishError = nil }
            return (h, s.finishError, s.starts)
        }
        guard let (handler, error, starts) = pending else { return }
        handlerQueue.async { [self] in
            // Apple: "If additional players are started after this call is made, they will delay the
            // callback." One started between the decision and now (the queue was busy, or the program
            // started it right after the call): the handler waits for it again, unless the program
            // asked for another handler meanwhile (which replaces this one).
            let delayed = state.withLock { s -> Bool in
                guard s.players.values.contains(where: \.active) else { return false }
                if s.finishedHandler == nil {
                    s.finishedHandler = handler
                    s.finishError = s.finishError ?? error
                }
                return true
            }
            guard !delayed, handler.value(error) == .stopEngine else { return }
            // The engine that finished, if it still runs — not one the program started since (after
            // a reset, say, from its reset handler; or right after this handler returned).
            let playing = state.withLock { s -> [Int]? in
                guard s.running, s.starts == starts else { return nil }
                s.running = false
                s.idleDeadline = nil
                return s.players.filter(\.value.active).map(\.key)
            }
            guard let playing else { return }
            cancel(playing)
            stoppedHandler(.notifyWhenFinished)
        }
    }

    /// With auto-shutdown, an engine with nothing to play stops after `autoShutdownDelay`.
    private func scheduleIdleCheck() {
        let arm = state.withLock { s -> DispatchTime? in
            guard s.isAutoShutdownEnabled, s.running, !s.players.values.contains(where: \.active) else {
                s.idleDeadline = nil
                return nil
            }
            let deadline = DispatchTime.now() + s.idleDelay
            s.idleDeadline = deadline
            guard !s.idleTimerQueued else { return nil }  // the queued one looks again when it fires
            s.idleTimerQueued = true
            return deadline
        }
        if let arm { armIdleTimer(arm) }
    }

    private func armIdleTimer(_ deadline: DispatchTime) {
        handlerQueue.asyncAfter(deadline: deadline) { [weak self] in
            guard let self else { return }
            enum Next { case nothing, later(DispatchTime), stop(Unchecked<StoppedHandler>) }
            let next = state.withLock { s -> Next in
                s.idleTimerQueued = false
                guard let d = s.idleDeadline, s.isAutoShutdownEnabled, s.running, !s.players.values.contains(where: \.active) else { return .nothing }
                if d > DispatchTime.now() {
                    s.idleTimerQueued = true
                    return .later(d)
                }
                s.idleDeadline = nil
                s.running = false
                return .stop(s.stoppedHandler)
            }
            switch next {
            case .nothing: break
            case .later(let d): armIdleTimer(d)
            case .stop(let handler): handler.value(.idleTimeout)
            }
        }
    }

    private func applyMute() {
        let (ids, engineMuted) = state.withLock { s in (s.players.compactMap { $0.value.player == nil ? nil : $0.key }, s.isMutedForHaptics || s.playsAudioOnly) }
        let players = state.withLock { s in ids.compactMap { s.players[$0]?.player } }
        for p in players {
            service.post("player.set", JSONObject(["player": .number(Double(p.id)), "muted": .bool(engineMuted || p.ownMuted)]))
        }
    }
}

/// A value carried to another thread where the compiler cannot see it is safe: a program's handler
/// (Apple's handler types are not `@Sendable`), called only on the engine's `handlerQueue`; in
/// GameController, what a notification carries to the notification queue.
package struct Unchecked<T>: @unchecked Sendable {
    package let value: T
    package init(_ value: T) { self.value = value }
}

/// Audio resource URLs by id, for writing audio events of patterns made from objects. IDs are
/// unique in the process, never reused: a pattern made with one engine's resource names that file
/// only, and an ID that a reset or `unregisterAudioResource` retired names nothing.
enum AudioResources {
    private struct Table {
        var paths: [CHHapticAudioResourceID: String] = [:]
        var next: CHHapticAudioResourceID = 1
    }
    private static let table = Mutex(Table())
    /// A new ID for `url`.
    static func register(_ url: URL) -> CHHapticAudioResourceID {
        table.withLock { t in
            let id = t.next
            t.next &+= 1
            t.paths[id] = url.path
            return id
        }
    }
    static func unregister(_ ids: [CHHapticAudioResourceID]) { table.withLock { t in for id in ids { t.paths[id] = nil } } }
    static func path(_ id: CHHapticAudioResourceID) -> String? { table.withLock { $0.paths[id] } }
}
