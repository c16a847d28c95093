internal import HapticCore
import Synchronization

/// Plays a pattern on an engine: Apple's `CHHapticPatternPlayer` protocol, whose players
/// `CHHapticEngine.makePlayer(with:)` makes (`any CHHapticPatternPlayer`). Times are on the engine's
/// clock (`CHHapticEngine.currentTime`); `CHHapticTimeImmediate` (0) means as soon as possible, and so
/// does a time already past.
///
/// A protocol, as Apple declares it: code that spells the type `any CHHapticPatternPlayer`, keeps
/// players in `[String: any CHHapticPatternPlayer]`, casts to `CHHapticAdvancedPatternPlayer`, or
/// makes a test double of its own (`final class Recording: NSObject, CHHapticPatternPlayer`)
/// compiles as written. What does not is `Unmanaged<CHHapticPatternPlayer>`: Apple's is an
/// Objective-C protocol, whose existential is a class type; Swift on Linux has none (carry
/// `player as AnyObject` across a C boundary instead; docs/clients.md).
public protocol CHHapticPatternPlayer: NSObjectProtocol {
    /// Starts playing at `time` on the engine's clock (`CHHapticTimeImmediate`: now).
    func start(atTime time: TimeInterval) throws
    /// Stops at `time`.
    func stop(atTime time: TimeInterval) throws
    /// Each parameter takes effect at `time` plus its own `relativeTime`.
    func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws
    /// The curve starts at `time`, which takes the place of its own `relativeTime`.
    func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws
    /// Stops at once and drops every command scheduled.
    func cancel() throws
    /// Muted players play silently.
    var isMuted: Bool { get set }
}

/// A player that also pauses, resumes, seeks, loops and changes its rate: Apple's
/// `CHHapticAdvancedPatternPlayer`, which refines `CHHapticPatternPlayer`, made by
/// `CHHapticEngine.makeAdvancedPlayer(with:)` (hapticd's `player.create` with `advanced`).
public protocol CHHapticAdvancedPatternPlayer: CHHapticPatternPlayer {
    func pause(atTime time: TimeInterval) throws
    func resume(atTime time: TimeInterval) throws
    /// An offset into the pattern (seconds); past its end ends playback, unless the player loops.
    func seek(toOffset offsetTime: TimeInterval) throws
    var loopEnabled: Bool { get set }
    /// Seconds; 0 loops at the pattern's length (its duration).
    var loopEnd: TimeInterval { get set }
    /// Above 0; other values are ignored.
    var playbackRate: Float { get set }
    /// Called when the player finishes playing.
    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler { get set }
}

/// hapticd's player behind `CHHapticPatternPlayer`: a hapticd player (`player.create`) owned by its
/// engine. One whose last reference goes while it plays plays to its end, and an advanced one's
/// completion handler is called then — unless it loops (or is paused): a loop nobody holds could be
/// stopped only by stopping its engine, so it stops then.
class PatternPlayer: NSObject, CHHapticPatternPlayer, @unchecked Sendable {
    // @unchecked Sendable: the mutable state is in `local`, behind its mutex.
    let engine: CHHapticEngine
    let id: Int
    let generation: Int
    let duration: TimeInterval

    struct Local {
        var muted = false
        var loopEnabled = false
        var loopEnd: TimeInterval = 0
        var playbackRate: Float = 1
        /// Counts `playbackRate`'s changes: a refused one reverts only if it is still the latest.
        var rateSerial = 0
        /// The rate hapticd last took (1 until a change is answered).
        var acceptedRate: Float = 1
        /// Its last transport command was a pause: it has no end of its own until resumed.
        var held = false
    }

    let local = Mutex(Local())

    required init(engine: CHHapticEngine, id: Int, generation: Int, duration: TimeInterval) {
        self.engine = engine
        self.id = id
        self.generation = generation
        self.duration = duration
        super.init()
    }

    // One that plays on leaves its completion handler with the engine, called when it ends.
    deinit { engine.release(id, endless: local.withLock { $0.loopEnabled || $0.held }) }

    var ownMuted: Bool { local.withLock { $0.muted } }
    var completionHandlerIfAdvanced: Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>? { completionBox?.handler.withLock { $0 } }
    /// An advanced player's completion handler, which its engine's record shares (nil: not advanced).
    var completionBox: CompletionBox? { nil }

    // MARK: CHHapticPatternPlayer

    public func start(atTime time: TimeInterval) throws {
        try requireValid()
        try engine.ensureRunning()
        try command("player.start", at: time)
        local.withLock { $0.held = false }
    }

    public func stop(atTime time: TimeInterval) throws {
        try command("player.stop", at: time)
    }

    /// Each parameter takes effect at `time` plus its own `relativeTime`; values are clamped to
    /// their ranges as Core Haptics clamps them; the audio controls have no effect.
    public func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws {
        try requireValid()
        var groups: [(TimeInterval, JSONObject)] = []
        for p in parameters {
            guard let id = DynamicParameterID(rawValue: p.parameterID.rawValue) else {
                throw CHHapticError(.invalidParameterType, "unknown dynamic parameter \"\(p.parameterID.rawValue)\"")
            }
            guard !id.isAudio else { continue }
            guard p.value.isFinite, p.relativeTime.isFinite else {
                throw CHHapticError(.invalidParameterType, "\(id.rawValue): values and times are finite numbers")
            }
            let value = min(max(Double(p.value), id.range.lowerBound), id.range.upperBound)
            let offset = max(0, p.relativeTime)
            if let i = groups.firstIndex(where: { $0.0 == offset }) {
                groups[i].1.append(id.rawValue, .number(value))
            } else {
                groups.append((offset, JSONObject([.init(key: id.rawValue, value: .number(value))])))
            }
        }
        // In time order: groups whose times are already past all take effect now, in the order
        // sent, and the latest must win.
        groups.sort { $0.0 < $1.0 }
        for (offset, values) in groups {
            try command("player.send_parameters", ["parameters": .object(values)], at: time, plus: offset)
        }
    }

    /// The curve starts at `time`, which takes the place of its own `relativeTime`: as Apple
    /// documents, the curve's `relativeTime` is set to `time` ("This method overrides the
    /// relativeTime property of the passed-in CHHapticParameterCurve"). Control points out of time
    /// order are taken in time order (those of one time in the order given), as in a pattern.
    public func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws {
        try requireValid()
        guard let id = DynamicParameterID(rawValue: parameterCurve.parameterID.rawValue) else {
            throw CHHapticError(.invalidParameterType, "unknown dynamic parameter \"\(parameterCurve.parameterID.rawValue)\"")
        }
        guard !id.isAudio else {
            parameterCurve.relativeTime = time
            return
        }
        var points: [(time: Double, value: Double)] = []
        for p in parameterCurve.controlPoints {
            guard p.value.isFinite, p.relativeTime.isFinite, p.relativeTime >= 0 else {
                throw CHHapticError(.invalidParameterType, "curve control points have finite values and times ≥ 0")
            }
            points.append((p.relativeTime, min(max(Double(p.value), id.range.lowerBound), id.range.upperBound)))
        }
        guard !points.isEmpty else { throw CHHapticError(.invalidParameterType, "a curve needs at least one control point") }
        // Stable: `sorted(by:)` is not guaranteed to be, so order by (time, position).
        let ordered = points.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map {
            JSONValue.array([.number($0.element.time), .number($0.element.value)])
        }
        try command("player.schedule_curve", ["parameter": .string(id.rawValue), "points": .array(ordered)], at: time)
        parameterCurve.relativeTime = time
    }

    public func cancel() throws {
        try command("player.cancel")
    }

    public var isMuted: Bool {
        get { ownMuted }
        set {
            local.withLock { $0.muted = newValue }
            guard engine.isValid(generation) else { return }
            engine.service.post("player.set", JSONObject(["player": .number(Double(id)), "muted": .bool(engine.isMuted(newValue))]))
        }
    }

    // MARK: requests

    func requireValid() throws(CHHapticError) {
        guard engine.isValid(generation) else {
            throw CHHapticError(.invalidPatternPlayer, "the player's engine was reset (or hapticd restarted): make the player again")
        }
    }

    /// Sends a player command at a time; the reply's state tells the engine whether the player is active.
    func command(_ name: String, _ members: KeyValuePairs<String, JSONValue> = [:], at time: TimeInterval? = nil, plus offset: TimeInterval = 0) throws(CHHapticError) {
        try requireValid()
        var body = JSONObject(["player": .number(Double(id))])
        for (k, v) in members { body.append(k, v) }
        if let time {
            guard time.isFinite else { throw CHHapticError(.invalidTime, "\(time) is not a time") }
            if time <= 0 {
                if offset > 0 { body.append("after", .number(offset)) }
            } else {
                body.append("at", .number(time + offset))
            }
        }
        let result = try engine.service.request(name, body, otherwise: .invalidEngineParameter)
        if case .string(let phase)? = result["state"] { engine.note(id, state: phase) }
    }

    /// A setter's change (it cannot fail in Apple's API): sent without waiting.
    func post(_ members: KeyValuePairs<String, JSONValue>) {
        guard engine.isValid(generation) else { return }
        var body = JSONObject(["player": .number(Double(id))])
        for (k, v) in members { body.append(k, v) }
        engine.service.post("player.set", body)
    }
}

/// hapticd's advanced player behind `CHHapticAdvancedPatternPlayer`.
final class AdvancedPatternPlayer: PatternPlayer, CHHapticAdvancedPatternPlayer, @unchecked Sendable {
    // @unchecked Sendable: see `PatternPlayer`.

    private let box = CompletionBox()
    override var completionBox: CompletionBox? { box }

    public func pause(atTime time: TimeInterval) throws {
        try command("player.pause", at: time)
        local.withLock { $0.held = true }
    }

    public func resume(atTime time: TimeInterval) throws {
        try requireValid()
        try engine.ensureRunning()
        try command("player.resume", at: time)
        local.withLock { $0.held = false }
    }

    /// An offset past the pattern's end ends playback (unless the player loops).
    public func seek(toOffset offsetTime: TimeInterval) throws {
        guard offsetTime.isFinite else { throw CHHapticError(.invalidTime, "\(offsetTime) is not an offset") }
        try command("player.seek", ["offset": .number(max(0, offsetTime))])
    }

    public var loopEnabled: Bool {
        get { local.withLock { $0.loopEnabled } }
        set {
            local.withLock { $0.loopEnabled = newValue }
            post(["loop": .bool(newValue)])
        }
    }

    /// Seconds; 0 loops at the pattern's length (its duration: docs/rendering.md, "Advanced
    /// players"). Unset (or set to 0) it reads as that length, where the loop goes back — as Apple's
    /// own Unity plug-in test expects (`Test_AdvancedPlayer_LoopEnd_DefaultIsPatternLength`); 0 for a
    /// pattern of lone transients at 0, which hapticd loops at the end of their pulses.
    public var loopEnd: TimeInterval {
        get {
            let end = local.withLock { $0.loopEnd }
            return end > 0 ? end : duration
        }
        set {
            guard newValue.isFinite, newValue >= 0 else { return }
            local.withLock { $0.loopEnd = newValue }
            post(["loop_end": .number(newValue)])
        }
    }

    /// Any value above 0 is taken; others are ignored, as Apple documents. A rate outside hapticd's
    /// default range (`limits.min_rate`…`max_rate`, 0.01…100) is taken as the nearer end of it, and
    /// one hapticd refuses all the same (a narrower range in its configuration, or a pattern that
    /// would then play longer than `limits.time_horizon`) is not kept: the getter says the rate the
    /// player plays at.
    public var playbackRate: Float {
        get { local.withLock { $0.playbackRate } }
        set {
            guard newValue.isFinite, newValue > 0 else { return }
            // Clamped as a Double and sent as one: Float(0.01) is just below 0.01, which hapticd refuses.
            let range = EngineLimits().rates
            let rate = min(max(Double(newValue), range.lowerBound), range.upperBound)
            let serial = local.withLock { l in
                l.playbackRate = Float(rate)
                l.rateSerial &+= 1
                return l.rateSerial
            }
            guard engine.isValid(generation) else { return }
            var body = JSONObject(["player": .number(Double(id))])
            body.append("rate", .number(rate))
            // Replies come in order: `acceptedRate` is the rate hapticd took last. A refusal (or no
            // answer) puts it back, unless a newer rate was set since.
            engine.service.post("player.set", body, completed: { [weak self] error in
                self?.local.withLock { l in
                    if error == nil {
                        l.acceptedRate = Float(rate)
                    } else if l.rateSerial == serial {
                        l.playbackRate = l.acceptedRate
                    }
                }
            })
        }
    }

    /// Called on the engine's `handlerQueue` when the player finishes: its pattern ends, it is stopped
    /// or cancelled, its engine stops under it, or — with an error — its engine is reset or hapticd
    /// goes away.
    public var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler {
        get { box.handler.withLock { $0.value } }
        set {
            let h = Unchecked(newValue)
            box.handler.withLock { $0 = h }
        }
    }
}

/// An advanced player's completion handler, shared by the player and its engine's record of it.
final class CompletionBox: Sendable {
    let handler = Mutex(Unchecked<CHHapticAdvancedPatternPlayerCompletionHandler>({ _ in }))
}
