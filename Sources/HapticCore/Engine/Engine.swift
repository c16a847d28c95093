/// Errors of the engine/player API.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    case notRunning
    case playerNotFound(PlayerID)
    /// The engine was reset: its players are gone and must be created again.
    case playerInvalidated(PlayerID)
    case notAdvanced(PlayerID)
    case invalidRate(Double)
    case invalidValue(String)
    /// A bound on the engine's state was reached (`EngineLimits`); the message names it.
    case limitExceeded(String)

    public var description: String { description(naming: { "player \($0)" }) }

    /// The message, with each player named by `name` (the daemon names them by its own numbers, not
    /// the engine's).
    public func description(naming name: (PlayerID) -> String) -> String {
        switch self {
        case .notRunning: "the engine is stopped (start it, or enable auto-shutdown to start it on demand)"
        case .playerNotFound(let id): "no \(name(id))"
        case .playerInvalidated(let id): "\(name(id)) was invalidated by an engine reset; create it again"
        case .notAdvanced(let id): "\(name(id)) is not an advanced player (pause, resume, seek, loop and rate need one)"
        case .invalidRate(let r): "playback rate must be a finite number > 0, not \(r)"
        case .invalidValue(let why): why
        case .limitExceeded(let why): why
        }
    }
}

/// Bounds on what an engine accepts, so that no command can schedule work days away, slow a pattern
/// into one that never ends, or grow a player's state without end. The daemon sets them from its
/// configuration (`limits.*`).
public struct EngineLimits: Equatable, Sendable {
    /// How far ahead of the engine's clock any command may be scheduled, and the largest seek offset,
    /// loop end or played length (pattern length ÷ rate), in seconds.
    public var timeHorizon: Double
    /// Accepted playback rates.
    public var rates: ClosedRange<Double>
    /// Commands plus future parameter values and curves one player may hold at once.
    public var maximumScheduledPerPlayer: Int

    public init(timeHorizon: Double = 86_400, rates: ClosedRange<Double> = 0.01...100, maximumScheduledPerPlayer: Int = 64) {
        self.timeHorizon = timeHorizon
        self.rates = rates
        self.maximumScheduledPerPlayer = maximumScheduledPerPlayer
    }

    public static let `default` = EngineLimits()
}

/// A haptic engine for one pad: Core Haptics' `CHHapticEngine` semantics, without I/O.
///
/// The engine owns its players; `render()` advances everything to the clock's time, applies due
/// commands at their exact times, fires handlers, and returns the pad's mixed (unquantized) output.
/// Not `Sendable`: an engine belongs to one owner (the daemon's render loop, under its lock) or one test.
public final class HapticEngine {
    public enum StoppedReason: String, Sendable, Equatable {
        case idleTimeout
        case gameControllerDisconnect
        case engineDestroyed
        case systemError
        case notifyWhenFinished
    }

    public enum FinishedAction: Sendable { case stopEngine, leaveRunning }

    public let clock: any HapticClock
    public let profile: DeviceProfile
    public private(set) var isRunning = false
    /// Auto-shutdown (off by default, as in Core Haptics): stop after `idleTimeout` seconds with
    /// nothing to play; a player start restarts the engine.
    public var isAutoShutdownEnabled = false
    public var idleTimeout = 10.0
    public var isMutedForHaptics = false {
        didSet { mutations &+= 1; commanded() }
    }
    public var limits = EngineLimits.default
    /// Bumped by everything that can change what a player will do (commands, player lookups by the
    /// API, starts, stops, ends): the players' cached next changes are valid only for the same count.
    private var mutations = 0
    /// The clock's time at the end of the last command that changed what the engine plays (a player
    /// made, started, stopped, given parameters or curves, sought, muted, …; the engine started,
    /// stopped or reset). Its output before then is no longer what it was: a command applies at now,
    /// and prunes what is past (`sendParameters` drops the controls before now), so nothing may look
    /// at the output before this time — `PadPipeline.catchUp()` walks only from here (issue 26: a
    /// command's render pass held up past a short pulse the command began).
    public private(set) var lastCommandTime = -Double.infinity
    /// Commands that changed what the engine plays, since it was made (`lastCommandTime`'s count:
    /// two commands at one clock reading are two).
    public private(set) var commandCount = 0
    private func commanded() {
        lastCommandTime = currentTime
        commandCount &+= 1
    }
    /// The last rumble pattern compiled, and its intensity at its start (`rumbleOutput`).
    private var lastRumble: (duration: Double, compiled: CompiledPattern, startIntensity: Double)?
    /// Called when the engine stops by itself — never after an explicit `stop()`.
    public var stoppedHandler: ((StoppedReason) -> Void)?
    /// Called after a reset: players are gone (create them again), patterns survive.
    public var resetHandler: (() -> Void)?
    /// Called whenever any player ends, one-shot players included.
    public var playerEnded: ((PlayerID, PlayerEnd) -> Void)?

    private var players: [PlayerID: PlayerState] = [:]
    /// The same players in creation order: what every tick iterates.
    private var order: [PlayerState] = []
    private var invalidated: Set<PlayerID> = []
    private var nextPlayerID = 1
    private var sequence = 0
    private var finishedHandler: (() -> FinishedAction)?
    /// When the engine last had something to do (for auto-shutdown).
    private var idleSince: Double?
    /// Auto-shutdown waits at least until then (`keepAwake`).
    private var awakeUntil = -Double.infinity

    /// Which motors this engine's output drives (its locality's route).
    public let route: MotorRoute

    public init(profile: DeviceProfile = .generic, clock: any HapticClock, route: MotorRoute = .both) {
        self.profile = profile
        self.clock = clock
        self.route = route
    }

    /// The engine's clock: what `HapticTime.at` values refer to.
    public var currentTime: Double { clock.now }

    // MARK: - Engine lifecycle

    public func start() {
        defer { commanded() }
        mutations &+= 1
        if !isRunning {
            isRunning = true
            idleSince = currentTime
        }
    }

    /// An explicit stop: every player stops; the stopped handler is not called.
    public func stop() {
        defer { commanded() }
        halt()
    }

    /// The pad went away (Core Haptics' gameControllerDisconnect).
    public func deviceDisconnected() {
        defer { commanded() }
        stopBySelf(.gameControllerDisconnect)
    }

    /// The device failed in a way the engine cannot play through.
    public func systemError() {
        defer { commanded() }
        stopBySelf(.systemError)
    }

    /// The engine is being torn down (daemon shutdown, pad removed for good).
    public func destroy() {
        defer { commanded() }
        stopBySelf(.engineDestroyed)
    }

    /// A reset (pad re-attached, device error recovered): players are invalidated, the engine is
    /// stopped, and the reset handler runs; it typically starts the engine and re-creates players.
    public func reset() {
        defer { commanded() }
        halt(notify: false)
        invalidated.formUnion(players.keys)
        // Remembered only so that a stale id gets a precise error; the oldest are forgotten first.
        if invalidated.count > 4096 { invalidated = Set(invalidated.sorted().suffix(2048)) }
        players = [:]
        order = []
        resetHandler?()
    }

    /// Calls `handler` once every player has finished (at once when nothing plays); it answers
    /// whether to stop the engine.
    /// Keeps auto-shutdown from stopping the engine before `t` (a prepared feedback generator).
    public func keepAwake(until t: Double) {
        guard t.isFinite else { return }
        awakeUntil = max(awakeUntil, t)
        mutations &+= 1
    }

    public func notifyWhenPlayersFinished(_ handler: @escaping () -> FinishedAction) {
        finishedHandler = handler
        checkFinished()
    }

    private func stopBySelf(_ reason: StoppedReason) {
        let wasRunning = isRunning
        halt()
        if wasRunning || reason == .gameControllerDisconnect || reason == .engineDestroyed { stoppedHandler?(reason) }
    }

    /// Every player stops. Not a command by itself (`commanded()`): the idle shutdown and the finished
    /// handler stop the engine this way while it advances, at a time of its own.
    private func halt(notify: Bool = true) {
        mutations &+= 1
        isRunning = false
        idleSince = nil
        let t = currentTime
        for p in order {
            let wasSounding = p.isActive
            p.pending = []
            p.phase = .idle
            if wasSounding && notify { ended(p.id, .stopped, at: t) }
        }
        removeEndedOneShots()
    }

    // MARK: - Players

    /// Makes a player for `pattern`, compiled against this engine's profile. A `oneShot` player is
    /// removed by the engine once it has ended (after its end was reported).
    @discardableResult
    public func makePlayer(_ pattern: HapticPattern, advanced: Bool = false, oneShot: Bool = false) -> PlayerID {
        makePlayer(CompiledPattern(pattern, profile: profile), advanced: advanced, oneShot: oneShot)
    }

    private func makePlayer(_ compiled: CompiledPattern, advanced: Bool, oneShot: Bool) -> PlayerID {
        defer { commanded() }
        mutations &+= 1
        let id = nextPlayerID
        nextPlayerID += 1
        let player = PlayerState(id: id, compiled: compiled, isAdvanced: advanced, isOneShot: oneShot)
        player.awaitingFirstCommand = oneShot
        players[id] = player
        order.append(player)
        return id
    }

    /// Plays a pattern at once without a player object to manage; returns the one-shot player's id
    /// (for status and stopping). It is destroyed when it ends.
    @discardableResult
    public func playPattern(_ pattern: HapticPattern) throws(EngineError) -> PlayerID {
        try ensureRunning()
        let id = makePlayer(CompiledPattern(pattern, profile: profile), advanced: true, oneShot: true)
        try start(id)
        return id
    }

    /// A plain rumble, as SDL's `SDL_RumbleGamepad` and the Web Gamepad API's `dual-rumble` give it:
    /// the strong and weak motors at these magnitudes (0…1, given straight to the motors, whatever the
    /// engine's locality) for `duration` seconds. A player like any other — mixed, paced, stopped,
    /// muted, scaled by an intensity control — made and started by the caller (`start(at:)` gives the
    /// delay). One-shot: it is gone once it ends.
    public func makeRumble(strong: Double, weak: Double, duration: Double) throws(EngineError) -> PlayerID {
        try Self.checkRumble(strong: strong, weak: weak, duration: duration)
        try withinHorizon(duration, "rumble duration")
        let id = makePlayer(rumbleCompiled(duration).compiled, advanced: true, oneShot: true)
        players[id]!.fixedOutput = Self.rumbleMagnitudes(strong: strong, weak: weak)
        return id
    }

    /// Changes a playing rumble (`makeRumble`) in place, as a game's next `SDL_RumbleGamepad` does:
    /// these magnitudes from now on, for `duration` seconds from now. The same player, so nothing is
    /// made, registered or ended: the cheapest way from a command to the motors, and a game sends one
    /// per frame. Returns false, changing nothing, when the player is not a rumble that is playing now
    /// with nothing scheduled and nothing changed by its caller (it is waiting for its delay, paused,
    /// has ended, or has a parameter, rate or loop of its own): the caller then replaces it with a new one.
    public func updateRumble(_ id: PlayerID, strong: Double, weak: Double, duration: Double) throws(EngineError) -> Bool {
        defer { commanded() }
        let p = try player(id)
        try Self.checkRumble(strong: strong, weak: weak, duration: duration)
        try withinHorizon(duration, "rumble duration")
        guard canUpdateRumble(p) else { return false }
        mutations &+= 1
        p.compiled = rumbleCompiled(duration).compiled
        p.phase = .playing(time: currentTime, offset: 0)
        p.fixedOutput = Self.rumbleMagnitudes(strong: strong, weak: weak)
        return true
    }

    /// Whether `updateRumble` changes `p` in place now.
    private func canUpdateRumble(_ p: PlayerState) -> Bool {
        isRunning && p.fixedOutput != nil && p.isPlaying && p.pending.isEmpty && p.controls.isEmpty && p.rate == 1 && !p.loopEnabled
            && !p.hasEnded(at: currentTime)
    }

    /// The engine's output now once a rumble of these magnitudes plays from its start as the engine's
    /// only playing player, with policy gain `gain`: what `output(at: currentTime)` gives after
    /// `makeRumble` and `start(id, at: .immediately)` on an engine where nothing plays, or after
    /// `updateRumble` of its one playing player — computed as `output` computes it, making no
    /// player and changing none (it compiles the rumble's pattern into the cache `makeRumble` uses)
    /// (the daemon writes a rumble's first frame ahead of its player: docs/rendering.md §8). Throws
    /// what `makeRumble` throws; nil when the engine would not play it now (stopped, muted for
    /// haptics).
    public func rumbleOutput(strong: Double, weak: Double, duration: Double, gain: Double) throws(EngineError) -> MotorMagnitudes? {
        try Self.checkRumble(strong: strong, weak: weak, duration: duration)
        try withinHorizon(duration, "rumble duration")
        guard isRunning, !isMutedForHaptics else { return nil }
        guard gain > 0 else { return .zero }
        let start = rumbleCompiled(duration).startIntensity
        let m = PlayerState.fixedMagnitudes(Self.rumbleMagnitudes(strong: strong, weak: weak), intensity: start, route: route)
        return MotorMagnitudes.zero.mixed(with: m.scaled(by: gain))
    }

    /// The policy gain of `id` when it is a rumble `updateRumble` would change in place now and
    /// still `margin` seconds from now (it does not end before), and the only player playing on this
    /// engine (its output then is `rumbleOutput` with that gain); nil otherwise.
    public func soleRumbleGain(_ id: PlayerID, margin: Double) -> Double? {
        guard let p = players[id], canUpdateRumble(p), !p.isMuted, !p.hasEnded(at: currentTime + margin),
              !order.contains(where: { $0 !== p && $0.isPlaying }) else { return nil }
        return p.policyGain
    }

    /// The shortest a rumble lasts (seconds): a shorter one (SDL's callers give milliseconds; a
    /// client may give less) plays this long. No pad can carry less — the pacer holds a pulse one
    /// interval, 4 ms or more, once it is seen — but a pulse shorter than this could end before its
    /// own command's render pass (`PadPipeline.heldUp`: later passes walk what they missed) and be
    /// lost.
    public static let minimumRumble = PadPipeline.heldUp

    private static func checkRumble(strong: Double, weak: Double, duration: Double) throws(EngineError) {
        guard strong.isFinite, weak.isFinite, (0...1).contains(strong), (0...1).contains(weak) else {
            throw .invalidValue("rumble magnitudes are 0…1, not \(strong) and \(weak)")
        }
        guard duration.isFinite, duration > 0 else { throw .invalidValue("a rumble lasts more than 0 s, not \(duration)") }
    }

    /// A rumble's pattern, compiled: the last duration's is kept, since a game gives every rumble
    /// the same one (SDL's callers: a frame's, or "until changed"), and compiling was most of a
    /// rumble's cost.
    private func rumbleCompiled(_ asked: Double) -> (compiled: CompiledPattern, startIntensity: Double) {
        let duration = max(asked, Self.minimumRumble)
        if let last = lastRumble, last.duration == duration { return (last.compiled, last.startIntensity) }
        let pattern = HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: 1, sharpness: 0))])
        let compiled = CompiledPattern(pattern, profile: profile)
        let start = compiled.frame(at: 0, external: .neutral).intensity
        lastRumble = (duration, compiled, start)
        return (compiled, start)
    }

    private static func rumbleMagnitudes(strong: Double, weak: Double) -> MotorMagnitudes {
        MotorMagnitudes(strong: UInt16(saturating: (strong * 65535).rounded()), weak: UInt16(saturating: (weak * 65535).rounded()))
    }

    /// Removes a player. One that was active ends first, as a stop or a cancel would end it — stopped
    /// while it played or was paused, cancelled while its start still waited — so that whoever owns
    /// it hears why (`playerEnded`).
    public func destroyPlayer(_ id: PlayerID) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        if p.isActive {
            let waiting = p.phase == .idle || p.phase == .finished
            ended(id, waiting ? .cancelled : .stopped, at: currentTime)
        }
        players[id] = nil
        order.removeAll { $0.id == id }
        checkFinished()
    }

    public var playerIDs: [PlayerID] { order.map(\.id) }

    public func status(_ id: PlayerID) throws(EngineError) -> PlayerStatus {
        try player(id).status(at: currentTime)
    }

    public func start(_ id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        _ = try player(id)
        try ensureRunning()
        try schedule(id, .start, at: time)
    }

    public func stop(_ id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        try schedule(id, .stop, at: time)
    }

    public func pause(_ id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        try requireAdvanced(id)
        try schedule(id, .pause, at: time)
    }

    public func resume(_ id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        try requireAdvanced(id)
        try ensureRunning()
        try schedule(id, .resume, at: time)
    }

    /// Drops every pending command (scheduled starts, stops, parameters, curves) and stops at once.
    public func cancel(_ id: PlayerID) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        let t = currentTime
        let wasActive = p.isActive
        p.awaitingFirstCommand = false
        p.pending = []
        p.controls.removeEntries(after: t)
        p.phase = .idle
        if wasActive { ended(id, .cancelled, at: t) }
        removeEndedOneShots()
        checkFinished()
    }

    /// Moves to `offset` (pattern seconds) at once. Past the end a non-looping player ends; a
    /// looping one starts at the beginning of its loop (Apple: "If set to >= the duration of the
    /// pattern, playback will terminate as soon as possible unless the player is looped, in which
    /// case playback will start at the beginning of the loop" — and so too at or past `loopEnd`,
    /// where the loop would have gone back). A player that is not playing starts from there next time.
    public func seek(_ id: PlayerID, toOffset offset: Double) throws(EngineError) {
        defer { commanded() }
        try requireAdvanced(id)
        guard offset.isFinite, offset >= 0 else { throw .invalidValue("seek offset must be a finite number ≥ 0, not \(offset)") }
        try withinHorizon(offset, "seek offset")
        let p = try player(id)
        let t = currentTime
        let target = p.loopEnabled && (offset >= p.loopLength || offset >= p.compiled.duration) ? 0 : offset
        switch p.phase {
        case .playing: p.phase = .playing(time: t, offset: target)
        case .paused: p.phase = .paused(offset: target)
        case .idle, .finished: p.startOffset = target
        }
        if p.isPlaying && !p.loopEnabled && target >= p.compiled.duration && p.hasEnded(at: t) {
            finish(id, at: t)
        } else if case .paused = p.phase, !p.loopEnabled, target >= p.compiled.duration {
            finish(id, at: t)
        }
    }

    /// Sends dynamic parameter values that take effect at `time` and hold until replaced.
    public func sendParameters(_ values: [(DynamicParameterID, Double)], to id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        let t = try resolve(time)
        for (pid, value) in values where !value.isFinite {
            throw .invalidValue("\(pid.rawValue) must be a finite number")
        }
        if t > currentTime { try requireRoom(p, for: values.count) }
        for (pid, value) in values {
            p.controls.add(pid, .value(min(max(value, pid.range.lowerBound), pid.range.upperBound)), at: t)
        }
        p.controls.prune(through: currentTime)
    }

    /// Schedules a parameter curve starting at `time` (overriding the curve's own time).
    public func scheduleCurve(_ curve: ParameterCurve, on id: PlayerID, at time: HapticTime = .immediately) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        let t = try resolve(time)
        guard !curve.controlPoints.isEmpty else { throw .invalidValue("a curve needs at least one control point") }
        for point in curve.controlPoints {
            guard point.time.isFinite, point.value.isFinite else { throw .invalidValue("curve points must be finite numbers") }
            try withinHorizon(point.time, "a curve point's time")
        }
        if t + (curve.controlPoints.last?.time ?? 0) > currentTime { try requireRoom(p, for: 1) }
        var clamped = curve
        clamped.time = t
        clamped.controlPoints = curve.controlPoints.map { .init($0.time, min(max($0.value, curve.id.range.lowerBound), curve.id.range.upperBound)) }
        p.controls.add(curve.id, .curve(clamped), at: t)
    }

    public func setMuted(_ id: PlayerID, _ muted: Bool) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        p.isMuted = muted
    }

    public func setLoopEnabled(_ id: PlayerID, _ enabled: Bool) throws(EngineError) {
        defer { commanded() }
        try requireAdvanced(id)
        let p = try player(id)
        p.reanchor(at: currentTime)
        p.loopEnabled = enabled
    }

    /// The loop's end in pattern seconds; 0 means the pattern's duration (`PlayerState.loopLength`).
    public func setLoopEnd(_ id: PlayerID, _ end: Double) throws(EngineError) {
        defer { commanded() }
        try requireAdvanced(id)
        guard end.isFinite, end >= 0 else { throw .invalidValue("loop end must be a finite number ≥ 0, not \(end)") }
        try withinHorizon(end, "loop end")
        let p = try player(id)
        p.reanchor(at: currentTime)
        p.loopEnd = end
    }

    /// Playback rate (> 0), changeable while playing: from now on pattern time runs `rate` times as
    /// fast, so times and durations scale by 1/rate.
    public func setRate(_ id: PlayerID, _ rate: Double) throws(EngineError) {
        defer { commanded() }
        try requireAdvanced(id)
        guard rate.isFinite, rate > 0 else { throw .invalidRate(rate) }
        guard limits.rates.contains(rate) else {
            throw .invalidValue("playback rate must be within \(limits.rates.lowerBound)…\(limits.rates.upperBound) (limits.min_rate, limits.max_rate), not \(rate)")
        }
        let p = try player(id)
        let played = p.compiled.renderEnd / rate
        // A pattern that reaches the horizon sounds until stopped (an event kept there): no rate
        // makes it end later than never.
        let untilStopped = p.compiled.duration >= limits.timeHorizon * (1 - 1e-9)
        guard played <= limits.timeHorizon || untilStopped else {
            throw .invalidValue("at rate \(rate) the pattern would play for \(played) s, beyond the \(limits.timeHorizon) s horizon (limits.time_horizon)")
        }
        p.reanchor(at: currentTime)
        p.rate = rate
    }

    public func setCompletionHandler(_ id: PlayerID, _ handler: ((PlayerEnd) -> Void)?) throws(EngineError) {
        try requireAdvanced(id)
        try player(id).completion = handler
    }

    // MARK: - Rendering

    /// Whether anything is playing: the render loop ticks only while this is true.
    public var isPlaying: Bool { order.contains { $0.isPlaying } }

    /// The earliest future time at which the engine has something to do while nothing plays: a
    /// scheduled command, or the auto-shutdown deadline. nil: nothing until a new command arrives.
    public var nextWakeup: Double? {
        var next: Double?
        for p in order {
            if let first = p.pending.first { next = min(next ?? first.time, first.time) }
        }
        if isAutoShutdownEnabled, isRunning, let since = idleSince {
            let deadline = max(since + idleTimeout, awakeUntil)
            next = min(next ?? deadline, deadline)
        }
        return next
    }

    /// When the engine's output can next change by itself, seen at `t` (normally its clock's time,
    /// right after `render()`): the earliest due command, player breakpoint or idle shutdown, and
    /// whether anything is ramping. Nothing changes before `time` except as `ramping` says.
    public func nextChange(at t: Double) -> NextChange {
        guard isRunning else { return .never }
        var result = NextChange.never
        for p in order {
            // A player's next change holds until it comes, unless something changed in between.
            if let c = p.cachedChange, c.version == mutations, c.at <= t, c.result.time > t {
                result.merge(c.result)
                continue
            }
            let change = p.nextChange(at: t)
            p.cachedChange = (mutations, t, change)
            result.merge(change)
        }
        if isAutoShutdownEnabled, let since = idleSince { result.merge(time: max(since + idleTimeout, awakeUntil)) }
        if isMutedForHaptics { result.ramping = false }
        return result
    }

    /// The mixed, unquantized output at `t` as it will be if no command or breakpoint comes first:
    /// a pure look ahead, changing nothing (for `t` before `nextChange(at:).time`).
    public func peek(at t: Double) -> MotorMagnitudes { output(at: t) }

    /// Advances to the clock's time and returns the mixed, unquantized output of every playing,
    /// unmuted player (summed per motor, clamped). Zero while muted or stopped.
    public func render() -> MotorMagnitudes {
        update()
        return output(at: currentTime)
    }

    /// Advances to the clock's time: due commands take effect at their own times, players that ran
    /// out end, spent parameter history is dropped. `render()` is this and `output(at:)`.
    public func update() {
        let now = currentTime
        advance(to: now)
        for p in order where !p.controls.isEmpty { p.controls.prune(through: now) }
    }

    /// The players in the order they were made (for renderers of the whole engine: waveforms).
    var playersInOrder: [PlayerState] { order }

    /// Advances to `t` (no later than the clock's time), as `update()` does to now: due commands take
    /// effect and players that ran out end, each at its own time. For looking at the output at a
    /// breakpoint the loop slept through (`PadPipeline.tick()`), before it renders now.
    public func update(to t: Double) {
        let now = currentTime
        guard t.isFinite else { return }
        advance(to: min(t, now))
    }

    /// The mix at `t` of every playing player, each scaled by its policy gain, and those with a
    /// priority below `duckBelow` also by `duck` (the pad's ducking: a higher-priority player plays).
    /// Pure: changes nothing.
    public func output(at t: Double, duckBelow threshold: Int? = nil, duck: Double = 1) -> MotorMagnitudes {
        guard isRunning, !isMutedForHaptics else { return .zero }
        var mix = MotorMagnitudes.zero
        for p in order where p.isPlaying {
            var g = p.policyGain
            if let threshold, p.priority < threshold { g *= duck }
            guard g > 0 else { continue }
            let m = p.magnitudes(at: t, route: route)
            mix = mix.mixed(with: m.scaled(by: g))
        }
        return mix
    }

    /// The highest priority among the players that play and may be heard (policy gain above zero):
    /// while one plays, players of lower priority on the pad are ducked. nil: nothing plays.
    public var playingPriority: Int? {
        guard isRunning, !isMutedForHaptics else { return nil }
        var top: Int?
        for p in order where p.isPlaying && !p.isMuted && p.policyGain > 0 { top = max(top ?? p.priority, p.priority) }
        return top
    }

    /// A player's priority (the policy's: a higher one playing ducks lower ones on the same pad).
    public func setPriority(_ id: PlayerID, _ priority: Int) throws(EngineError) {
        defer { commanded() }
        try player(id).priority = priority
    }

    /// A player's policy gain, 0…1: what the daemon's policy lets it be heard at (profile, app rules).
    public func setPolicyGain(_ id: PlayerID, _ gain: Double) throws(EngineError) {
        defer { commanded() }
        try player(id).policyGain = gain.isFinite ? min(max(gain, 0), 1) : 0
    }

    /// Applies every pending command due by `now`, in time order, each at its own time; ends players
    /// that ran out; runs the idle and finished checks.
    private func advance(to now: Double) {
        while let (p, due) = nextDue(by: now) {
            // Players that ran out before the command end first. The command stays pending on its
            // player meanwhile: a one-shot about to start is active, and is not reaped with the
            // one-shots that ended (taken off first, a play started in the same pass as another
            // one-shot's end was destroyed unheard — a pulse lost, caught by NothingLostTests at a
            // 4 ms interval).
            endPlayersRunOut(by: due.time)
            guard players[p.id] === p, p.pending.first?.sequence == due.sequence else { continue }
            p.pending.removeFirst()
            apply(due.command, to: p.id, at: due.time)
        }
        endPlayersRunOut(by: now)
        checkFinished()
        if isRunning && isAutoShutdownEnabled {
            if order.contains(where: \.isActive) {
                idleSince = nil
            } else {
                if idleSince == nil { idleSince = now }
                if now - idleSince! >= idleTimeout && now >= awakeUntil { stopBySelf(.idleTimeout) }
            }
        }
    }

    /// The earliest command due by `now` and its player (still pending: `advance` takes it off).
    private func nextDue(by now: Double) -> (PlayerState, PlayerState.Pending)? {
        var best: (PlayerState, PlayerState.Pending)?
        for p in order {
            guard let first = p.pending.first, first.time <= now else { continue }
            if best == nil || (first.time, first.sequence) < (best!.1.time, best!.1.sequence) { best = (p, first) }
        }
        return best
    }

    private func endPlayersRunOut(by t: Double) {
        for p in order where p.hasEnded(at: t) { finish(p.id, at: t) }
    }

    private func apply(_ command: PlayerState.Command, to id: PlayerID, at t: Double) {
        mutations &+= 1
        guard let p = players[id] else { return }
        switch command {
        case .start:
            p.phase = .playing(time: t, offset: p.startOffset)
            p.startOffset = 0
            idleSince = nil
        case .stop, .expire:
            let wasSounding = p.isPlaying || { if case .paused = p.phase { true } else { false } }()
            p.phase = .idle
            if command == .expire {
                // Everything after the limit goes: the player is done unless someone starts it anew.
                p.pending = []
                p.controls.removeEntries(after: t)
            }
            if wasSounding { ended(id, .stopped, at: t) }
            removeEndedOneShots()
            return
        case .pause:
            if p.isPlaying { p.phase = .paused(offset: p.offset(at: t)) }
        case .resume:
            if case .paused(let o) = p.phase { p.phase = .playing(time: t, offset: o) }
        }
    }

    private func finish(_ id: PlayerID, at t: Double) {
        mutations &+= 1
        guard let p = players[id] else { return }
        p.phase = .finished
        ended(id, .finished, at: t)
        removeEndedOneShots()
    }

    private func ended(_ id: PlayerID, _ end: PlayerEnd, at t: Double) {
        if let completion = players[id]?.completion { completion(end) }
        playerEnded?(id, end)
    }

    private func removeEndedOneShots() {
        func ended(_ p: PlayerState) -> Bool { p.isOneShot && !p.isActive && !p.awaitingFirstCommand }
        guard order.contains(where: ended) else { return }
        for p in order where ended(p) { players[p.id] = nil }
        order.removeAll { players[$0.id] == nil }
    }

    private func checkFinished() {
        guard let handler = finishedHandler, !order.contains(where: \.isActive) else { return }
        finishedHandler = nil
        if handler() == .stopEngine { stopBySelf(.notifyWhenFinished) }
    }

    // MARK: - Helpers

    /// Every API call on a player comes through here: it may change the player, so cached next
    /// changes are dropped.
    private func player(_ id: PlayerID) throws(EngineError) -> PlayerState {
        mutations &+= 1
        if let p = players[id] { return p }
        throw invalidated.contains(id) ? .playerInvalidated(id) : .playerNotFound(id)
    }

    private func requireAdvanced(_ id: PlayerID) throws(EngineError) {
        if !(try player(id)).isAdvanced { throw .notAdvanced(id) }
    }

    private func ensureRunning() throws(EngineError) {
        if isRunning { return }
        guard isAutoShutdownEnabled else { throw .notRunning }
        start()
    }

    /// A command's time: finite, and no further ahead of the clock than the horizon. A time already
    /// past when the command is given means now, as "immediately" does — a start at a past time
    /// plays its pattern from the beginning, now, not from where it would be had it started then (its
    /// first part lost; a whole pattern, when it would have ended). Commands given for later and
    /// applied a little late (the loop woke late) still take effect at their own times (`advance`).
    private func resolve(_ time: HapticTime) throws(EngineError) -> Double {
        let now = currentTime
        let t = time.resolved(now: now)
        guard t.isFinite else { throw .invalidValue("time must be finite") }
        guard t - now <= limits.timeHorizon else {
            throw .invalidValue("time \(t) is \(t - now) s ahead of the engine clock, beyond the \(limits.timeHorizon) s horizon (limits.time_horizon)")
        }
        return max(t, now)
    }

    private func withinHorizon(_ seconds: Double, _ what: String) throws(EngineError) {
        guard seconds <= limits.timeHorizon else {
            throw .invalidValue("\(what) \(seconds) s is beyond the \(limits.timeHorizon) s horizon (limits.time_horizon)")
        }
    }

    /// What a player holds for later: pending commands, and parameter values and curves that start in
    /// the future.
    public func scheduledCount(_ id: PlayerID) throws(EngineError) -> Int {
        let p = try player(id)
        return p.pending.count + p.controls.entries(after: currentTime)
    }

    /// Parameter values and curves a player holds, past and future (bounded: see `prune`).
    public func controlEntryCount(_ id: PlayerID) throws(EngineError) -> Int {
        try player(id).controls.count
    }

    private func requireRoom(_ p: PlayerState, for count: Int) throws(EngineError) {
        let held = p.pending.count + p.controls.entries(after: currentTime)
        guard held + count <= limits.maximumScheduledPerPlayer else {
            throw .limitExceeded("the player already holds \(held) scheduled commands and parameter changes, the most one player may (limits.max_scheduled_per_player)")
        }
    }

    /// Bounds how long a player may go on: at `t` it stops, and whatever it had scheduled from then on
    /// is dropped (the daemon's cap on players whose owner left). Replaces an earlier limit.
    public func limitLifetime(_ id: PlayerID, until t: Double) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        guard t.isFinite else { throw .invalidValue("time must be finite") }
        p.pending.removeAll { $0.command == .expire }
        insert(p, .expire, at: t)
        if t <= currentTime { advance(to: currentTime) }
    }

    /// Lifts a limit set by `limitLifetime` (a new owner took the player over).
    public func clearLifetimeLimit(_ id: PlayerID) throws(EngineError) {
        defer { commanded() }
        try player(id).pending.removeAll { $0.command == .expire }
    }

    private func schedule(_ id: PlayerID, _ command: PlayerState.Command, at time: HapticTime) throws(EngineError) {
        defer { commanded() }
        let p = try player(id)
        let t = try resolve(time)
        try requireRoom(p, for: 1)
        insert(p, command, at: t)
        // "Immediately" (and past times, made now) take effect now.
        if t <= currentTime { advance(to: currentTime) }
    }

    /// Inserts a command in time order (after others at the same time), by binary search.
    private func insert(_ p: PlayerState, _ command: PlayerState.Command, at t: Double) {
        mutations &+= 1
        p.awaitingFirstCommand = false
        sequence += 1
        var lo = 0
        var hi = p.pending.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if p.pending[mid].time <= t { lo = mid + 1 } else { hi = mid }
        }
        p.pending.insert(.init(time: t, sequence: sequence, command: command), at: lo)
    }
}
