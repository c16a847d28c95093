/// Identifies a player within its engine.
public typealias PlayerID = Int

/// Why a player stopped sounding.
public enum PlayerEnd: String, Sendable, Equatable {
    /// It reached the end of its pattern (tails included).
    case finished
    /// `stop(at:)` took effect, or its engine stopped.
    case stopped
    /// `cancel()`.
    case cancelled
}

/// A player's externally visible state.
public struct PlayerStatus: Equatable, Sendable {
    public enum Phase: String, Sendable { case idle, scheduled, playing, paused, finished }
    public var id: PlayerID
    public var phase: Phase
    public var isAdvanced: Bool
    /// Position in the pattern, in pattern seconds (looping wraps it).
    public var offset: Double
    public var duration: Double
    public var isMuted: Bool
    public var loopEnabled: Bool
    public var loopEnd: Double
    public var rate: Double
}

/// One player's state machine. Time-stamped commands wait in `pending` until the engine's clock
/// reaches them; each takes effect at its own time, not at the tick that notices it, so playback is
/// exact whatever the tick rate. Dynamic parameters and curves sent to the player live in `controls`,
/// a set of timelines on the engine's clock. A class: the engine touches every player on every tick,
/// and copying a value this size in and out of a dictionary dominated the render cost.
final class PlayerState {
    enum Phase: Equatable {
        case idle
        /// Playing: the offset at `time` t is `offset + (t − time) × rate`, before loop wrapping.
        case playing(time: Double, offset: Double)
        case paused(offset: Double)
        case finished
    }

    enum Command: Equatable {
        case start
        case stop
        case pause
        case resume
        /// The end of a lifetime limit (`HapticEngine.limitLifetime`): a stop that also drops what
        /// comes after it.
        case expire
    }

    struct Pending {
        var time: Double
        var sequence: Int
        var command: Command
    }

    let id: PlayerID
    /// Replaced only by `HapticEngine.updateRumble` (a rumble's new duration).
    var compiled: CompiledPattern
    let isAdvanced: Bool
    /// A one-shot player made by `playPattern`: destroyed when it ends.
    let isOneShot: Bool
    /// A one-shot just made, not yet given a command: not reaped with the one-shots that ended (it
    /// is idle with nothing pending until its caller starts it).
    var awaitingFirstCommand = false
    var phase = Phase.idle
    var pending: [Pending] = []
    var controls = ControlTimelines()
    var isMuted = false
    var loopEnabled = false
    var loopEnd = 0.0
    var rate = 1.0
    /// Where the next start begins (set by seeking a player that is not playing).
    var startOffset = 0.0
    var completion: ((PlayerEnd) -> Void)?
    /// `nextChange(at:)` as last computed: the engine's mutation count, the time, the answer.
    var cachedChange: (version: Int, at: Double, result: NextChange)?
    /// A plain rumble (`HapticEngine.makeRumble`): these magnitudes while its pattern sounds, scaled by
    /// its intensity, instead of the pattern's mapping.
    var fixedOutput: MotorMagnitudes?
    /// The policy's say: its priority on the pad, and the gain it may be heard at (0…1).
    var priority = 0
    var policyGain = 1.0

    init(id: PlayerID, compiled: CompiledPattern, isAdvanced: Bool, isOneShot: Bool = false) {
        self.id = id
        self.compiled = compiled
        self.isAdvanced = isAdvanced
        self.isOneShot = isOneShot
    }

    /// The loop length: `loopEnd`, or when it is 0 the pattern's duration (a transient's logical
    /// length included; parameters and curves too — docs/rendering.md, "Advanced players", says why
    /// not only the last event's end), or for a pattern whose duration is 0 (a single transient)
    /// the end of its output.
    var loopLength: Double { loopEnd > 0 ? loopEnd : compiled.length }

    /// Whether the player holds anything that will sound or act later.
    var isActive: Bool {
        switch phase {
        case .playing, .paused: true
        case .idle, .finished: pending.contains { $0.command == .start || $0.command == .resume }
        }
    }

    var isPlaying: Bool { if case .playing = phase { true } else { false } }

    /// The unwrapped offset at time `t` while playing.
    func rawOffset(at t: Double) -> Double? {
        if case .playing(let time, let offset) = phase { return offset + (t - time) * rate }
        return nil
    }

    /// The position in the pattern at time `t`: wrapped when looping.
    func offset(at t: Double) -> Double {
        switch phase {
        case .playing:
            let raw = rawOffset(at: t)!
            return loopEnabled ? wrap(raw) : raw
        case .paused(let o): return o
        case .idle: return startOffset
        case .finished: return compiled.duration
        }
    }

    func wrap(_ raw: Double) -> Double {
        let length = loopLength
        let r = raw.truncatingRemainder(dividingBy: length)
        return r < 0 ? r + length : r
    }

    /// Whether a playing, non-looping player has run past its pattern at `t` (tails included).
    func hasEnded(at t: Double) -> Bool {
        guard !loopEnabled, let o = rawOffset(at: t) else { return false }
        if o < compiled.duration { return false }
        return !compiled.isSounding(at: o, external: controls.values(at: t))
    }

    /// Re-anchors a playing player at `t` so that rate or loop changes apply from `t` on.
    func reanchor(at t: Double) {
        if case .playing = phase { phase = .playing(time: t, offset: offset(at: t)) }
    }

    func status(at t: Double) -> PlayerStatus {
        let p: PlayerStatus.Phase
        switch phase {
        case .idle: p = pending.contains { $0.command == .start } ? .scheduled : .idle
        case .playing: p = .playing
        case .paused: p = .paused
        case .finished: p = pending.contains { $0.command == .start } ? .scheduled : .finished
        }
        return PlayerStatus(
            id: id, phase: p, isAdvanced: isAdvanced, offset: offset(at: t), duration: compiled.duration,
            isMuted: isMuted, loopEnabled: loopEnabled, loopEnd: loopEnd, rate: rate)
    }

    /// When this player's output can next change, on the engine clock, seen at `t`: a due command, a
    /// parameter or curve sent to it, or — while playing — the pattern's next breakpoint at this
    /// rate, a loop's wrap, or the pattern's end. Between these the output is constant or, when
    /// `ramping`, changing continuously.
    func nextChange(at t: Double) -> NextChange {
        var result = NextChange.never
        if let first = pending.first { result.merge(time: first.time) }
        var controlsRamping = false
        if !controls.isEmpty {
            let c = controls.nextChange(after: t)
            result.merge(time: c.time)
            controlsRamping = c.ramping
        }
        guard isPlaying else { return result }
        let o = offset(at: t)
        let external = controls.isEmpty ? ControlValues.neutral : controls.values(at: t)
        var (change, sounding) = compiled.nextChange(after: o, external: external)
        if loopEnabled { change.merge(time: loopLength) }
        if change.time.isFinite {
            result.merge(time: t + (change.time - o) / rate)
        } else if !loopEnabled {
            result.merge(time: t)  // past its end with nothing sounding: it finishes now
        }
        result.ramping = !isMuted && sounding && (change.ramping || controlsRamping)
        return result
    }

    /// The unquantized motor output at `t` (zero unless playing and not muted).
    func magnitudes(at t: Double, route: MotorRoute = .both) -> MotorMagnitudes {
        guard !isMuted, isPlaying else { return .zero }
        let o = offset(at: t)
        let signal = compiled.frame(at: o, external: controls.isEmpty ? .neutral : controls.values(at: t))
        if let fixed = fixedOutput { return Self.fixedMagnitudes(fixed, intensity: signal.intensity, route: route) }
        return MotorMapping.magnitudes(for: signal, profile: compiled.profile, route: route, quantized: false)
    }

    /// A rumble's motors (`fixedOutput`) at its pattern's `intensity`, placed by `route`: its output
    /// here, and the first frame `HapticEngine.rumbleOutput` tells ahead of it.
    static func fixedMagnitudes(_ fixed: MotorMagnitudes, intensity: Double, route: MotorRoute) -> MotorMagnitudes {
        let i = min(max(intensity, 0), 1)
        return route.place(strong: UInt16(Double(fixed.strong) * i), weak: UInt16(Double(fixed.weak) * i))
    }
}
