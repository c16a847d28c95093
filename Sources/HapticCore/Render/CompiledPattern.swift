/// A pattern prepared for rendering against one device profile: haptic events sorted by start with
/// their parameters resolved, and the pattern's own dynamic parameters as timelines.
///
/// `frame(at:external:)` is a pure function of the offset into the pattern and the externally applied
/// controls: the same inputs always give the same signal. docs/rendering.md states every rule.
public final class CompiledPattern: Sendable {
    public struct Event: Equatable, Sendable {
        public var start: Double
        /// Effective duration. The loader gives a continuous event without one (Apple: "no fixed end")
        /// the rest of the time horizon; a pattern built in code without one lasts until the pattern ends.
        public var duration: Double
        public var intensity: Double
        public var sharpness: Double
        public var attack: Double
        public var decay: Double
        public var release: Double
        public var sustained: Bool
        public var isTransient: Bool
        /// An upper bound of when the event falls silent, whatever the controls do.
        public var latestEnd: Double
        /// A tighter bound that holds unless external controls lengthen decay or release.
        var usualEnd = 0.0
        /// `EnvelopeTiming.seconds` of attack, decay and release with neutral controls (the common
        /// case), so that a frame needs no `exp` unless a time control is set.
        var attackSeconds = 0.0
        var decaySeconds = 0.0
        var releaseSeconds = 0.0
        /// Index into `envelopes` of the event's own intensity/sharpness envelope, or -1.
        var envelope: Int32 = -1
        /// A transient's group: those starting within `transientTogether` of the group's first
        /// (numbered in start order); -1 for a continuous event.
        var group: Int32 = -1
    }

    public let pattern: HapticPattern
    public let profile: DeviceProfile
    public let events: [Event]
    /// `prefixLatestEnd[i]` = max of `events[0...i].latestEnd`: lets a lookup stop scanning backwards.
    let prefixLatestEnd: [Double]
    /// The same over `usualEnd`: used when external controls do not lengthen decay or release, which
    /// keeps each frame's scan to the events that can actually be sounding.
    let prefixUsualEnd: [Double]
    public let controls: ControlTimelines
    /// The envelopes of continuous events that have one (`.haptic` clips).
    let envelopes: [EventEnvelope]
    /// Apple's duration: latest event end and parameter/curve time.
    public let duration: Double
    /// When the output falls silent if nothing external changes the controls (tails included).
    public let renderEnd: Double

    /// The pattern's length as hapticd loops it (an unset `loopEnd`): Apple's duration, or for a pattern
    /// whose duration is 0 (lone transients at 0) the end of its output, at least 1 ms (a loop that
    /// advances).
    public var length: Double { duration > 0 ? duration : max(renderEnd, 0.001) }

    public init(_ pattern: HapticPattern, profile: DeviceProfile = .generic) {
        self.pattern = pattern
        self.profile = profile
        let duration = pattern.duration
        self.duration = duration

        var entries: [(id: DynamicParameterID, entry: ControlTimeline.Entry, start: Double)] = []
        for element in pattern.elements {
            switch element {
            case .parameter(let p): entries.append((p.id, .value(p.value), p.time))
            case .curve(let c): entries.append((c.id, .curve(c), c.time))
            case .event: break
            }
        }
        let controls = ControlTimelines(entries)
        self.controls = controls

        let longestPulse = profile.pulseLength(sharpness: 0, decayControl: 1)
        let longestPhase = EnvelopeTiming.seconds(1)
        var events: [Event] = []
        var envelopes: [EventEnvelope] = []
        for e in pattern.events where e.type.isHaptic {
            let transient = e.type == .hapticTransient
            var d = transient ? 0 : (e.duration ?? 0)
            if !transient && d == 0 { d = max(duration - e.time, 0) }
            let latestEnd = transient ? e.time + longestPulse : e.time + d + longestPhase
            var event = Event(
                start: e.time, duration: d, intensity: e.value(.hapticIntensity),
                sharpness: e.value(.hapticSharpness), attack: e.value(.attackTime), decay: e.value(.decayTime),
                release: e.value(.releaseTime), sustained: e.value(.sustained) >= 0.5, isTransient: transient,
                latestEnd: latestEnd)
            event.attackSeconds = EnvelopeTiming.seconds(event.attack)
            event.decaySeconds = EnvelopeTiming.seconds(event.decay)
            event.releaseSeconds = EnvelopeTiming.seconds(event.release)
            if !transient, let envelope = e.envelope, !envelope.intensity.isEmpty {
                event.envelope = Int32(truncatingIfNeeded: envelopes.count)
                envelopes.append(envelope)
            }
            events.append(event)
        }
        self.envelopes = envelopes
        events.sort { $0.start < $1.start }  // stable in Swift: file order among equal starts
        var groupStart = -Double.infinity, group: Int32 = -1
        for i in events.indices where events[i].isTransient {
            // With a nanosecond's tolerance: times an AHAP file writes 2 ms apart (0.100, 0.102) differ
            // by a hair less than 0.002 in binary floating point.
            if events[i].start - groupStart >= Self.transientTogether - 1e-9 {
                group += 1
                groupStart = events[i].start
            }
            events[i].group = group
        }

        // With the pattern's own controls at their most prolonging values: the usual silent point of
        // each event, and of the whole pattern.
        let maxDecay = controls.decay.maximum
        let maxRelease = controls.release.maximum
        var end = duration
        for i in events.indices {
            let e = events[i]
            events[i].usualEnd = e.isTransient
                ? e.start + profile.pulseLength(sharpness: 0, decayControl: maxDecay)
                : e.start + e.duration + EnvelopeTiming.seconds(e.release + maxRelease)
            end = max(end, events[i].usualEnd)
        }
        self.renderEnd = end
        self.events = events
        self.prefixLatestEnd = Self.prefixMaxima(events.map(\.latestEnd))
        self.prefixUsualEnd = Self.prefixMaxima(events.map(\.usualEnd))
    }

    /// The event's own intensity/sharpness envelope (`.haptic` clips), if it has one.
    public func envelope(of event: Event) -> EventEnvelope? {
        event.envelope >= 0 ? envelopes[Int(event.envelope)] : nil
    }

    static func prefixMaxima(_ values: [Double]) -> [Double] {
        var out: [Double] = []
        out.reserveCapacity(values.count)
        var m = -Double.infinity
        for v in values {
            m = max(m, v)
            out.append(m)
        }
        return out
    }

    /// The signal at `offset` seconds into the pattern, with `external` controls (from a player)
    /// combined with the pattern's own.
    public func frame(at offset: Double, external: ControlValues = .neutral) -> HapticSignal {
        var sum = 0.0
        var weighted = 0.0
        // Transients whose (stretched) pulses overlap: those that start together (a group) sum; the
        // groups combine by the strongest on each side of the equal-power crossfade — dull
        // `I·√(1−S)`, sharp `I·√S` — not by their sum (docs/rendering.md §4).
        var dull = 0.0, sharp = 0.0
        var group = (id: Int32(-1), sum: 0.0, weighted: 0.0)
        func endGroup() {
            guard group.sum > 0 else { return }
            let i = min(group.sum, 1), s = min(max(group.weighted / group.sum, 0), 1)
            dull = max(dull, i * (1 - s).squareRoot())
            sharp = max(sharp, i * s.squareRoot())
        }
        forEachContribution(at: offset, external: external) { contribution, sharpness, transientGroup in
            guard let g = transientGroup else {
                sum += contribution
                weighted += contribution * sharpness
                return
            }
            // Candidates come latest start first, so a group's transients come one after another.
            if g != group.id {
                endGroup()
                group = (g, 0, 0)
            }
            group.sum += contribution
            group.weighted += contribution * sharpness
        }
        endGroup()
        let energy = dull * dull + sharp * sharp
        if energy > 0 {
            let i = min(energy.squareRoot(), 1)
            sum += i
            weighted += i * (sharp * sharp / energy)
        }
        guard sum > 0 else { return .silent }
        return HapticSignal(intensity: min(sum, 1), sharpness: min(max(weighted / sum, 0), 1))
    }

    /// Transients that start less than this after a group's first sound together and sum, as
    /// layered hits do on Apple's actuator; later ones overlap only through the pulse a rumble motor
    /// needs (the profile's `transientPulse`, far longer than Apple's), and do not add to each other.
    public static let transientTogether = 0.002

    /// Whether any event is still sounding at `offset` (a player has finished when it is past the
    /// pattern's duration and nothing sounds).
    public func isSounding(at offset: Double, external: ControlValues = .neutral) -> Bool {
        var any = false
        forEachContribution(at: offset, external: external, includeSilent: true) { _, _, _ in any = true }
        return any
    }

    /// How many events start at or before `offset` (a binary search): the index of the next to start.
    func eventsStarted(by offset: Double) -> Int {
        var lo = 0
        var hi = events.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if events[mid].start <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Calls `body(event, u, controls)` for each event that may be sounding at `offset` — started, and
    /// not past the bound on its end — latest start first, with `u` the time since its start and the
    /// pattern's controls at `offset` combined with `external`. Both the frame and the breakpoints
    /// (`nextChange`) scan through this.
    @inline(__always)
    func forEachCandidate(at offset: Double, external: ControlValues, _ body: (Event, Double, ControlValues) -> Void) {
        guard !events.isEmpty, offset >= 0 else { return }
        var i = eventsStarted(by: offset) - 1
        guard i >= 0 else { return }
        let c = controls.isEmpty ? external : controls.values(at: offset).combined(with: external)
        let bound = external.decay > 0 || external.release > 0 ? prefixLatestEnd : prefixUsualEnd
        while i >= 0 && bound[i] > offset {
            let e = events[i]
            i -= 1
            let u = offset - e.start
            guard u < e.latestEnd - e.start else { continue }
            body(e, u, c)
        }
    }

    /// Calls `body(contribution, sharpness, transientGroup)` for each event sounding at `offset`
    /// (`transientGroup`: a transient's `group`, nil for a continuous event), latest start first.
    func forEachContribution(
        at offset: Double, external: ControlValues, includeSilent: Bool = false, continuousOnly: Bool = false,
        _ body: (Double, Double, Int32?) -> Void
    ) {
        forEachCandidate(at: offset, external: external) { e, u, c in
            if continuousOnly && e.isTransient { return }
            var intensity = e.intensity
            var sharpness = e.sharpness
            if e.envelope >= 0 {
                let envelope = envelopes[Int(e.envelope)]
                intensity = envelope.intensity(atOffset: u)
                sharpness = envelope.sharpness(atOffset: u, fallback: sharpness)
            }
            let s = min(max(sharpness + c.sharpness, 0), 1)
            let level: Double
            if e.isTransient {
                guard u < profile.pulseLength(sharpness: s, decayControl: c.decay) else { return }
                level = 1
            } else {
                level = Self.envelope(e, u, c)
                if level <= 0 && !(includeSilent && u < e.duration) { return }
            }
            body(intensity * level * c.intensity, s, e.isTransient ? e.group : nil)
        }
    }

    /// The envelope level (0…1) of a continuous event `u` seconds after its start.
    static func envelope(_ e: Event, _ u: Double, _ c: ControlValues) -> Double {
        let attack = c.attack == 0 ? e.attackSeconds : EnvelopeTiming.seconds(e.attack + c.attack)
        let decay = e.sustained ? 0 : (c.decay == 0 ? e.decaySeconds : EnvelopeTiming.seconds(e.decay + c.decay))
        @inline(__always) func body(_ u: Double) -> Double {
            if u < attack { return u / attack }
            if e.sustained { return 1 }
            guard decay > 0 else { return 0 }
            return max(0, 1 - (u - attack) / decay)
        }
        if u < e.duration { return body(u) }
        let release = c.release == 0 ? e.releaseSeconds : EnvelopeTiming.seconds(e.release + c.release)
        let tail = u - e.duration
        guard tail < release else { return 0 }
        return body(e.duration) * (1 - tail / release)
    }

    /// Motor magnitudes at `offset`, through this pattern's profile.
    public func magnitudes(at offset: Double, external: ControlValues = .neutral) -> MotorMagnitudes {
        MotorMapping.magnitudes(for: frame(at: offset, external: external), profile: profile)
    }
}
