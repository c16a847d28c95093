/// When an output can next change by itself, and whether it is changing right now.
///
/// A pattern's output is piecewise in time: events start and end, envelopes pass from attack to hold,
/// decay and release, transient pulses end, parameters take effect, curves pass from one control point
/// to the next. Between two such breakpoints the output is either constant or a ramp (an attack,
/// decay or release, or a sloped curve segment). The render loop sleeps until the next breakpoint, and
/// while something ramps, until the pad can take a value that differs (docs/rendering.md §9).
public struct NextChange: Equatable, Sendable {
    /// The earliest time at which the output's formula may change; +∞: not by itself.
    public var time: Double
    /// Whether the output is changing continuously now.
    public var ramping: Bool

    public init(time: Double, ramping: Bool) {
        self.time = time
        self.ramping = ramping
    }

    public static let never = NextChange(time: .infinity, ramping: false)

    public mutating func merge(_ other: NextChange) {
        time = min(time, other.time)
        ramping = ramping || other.ramping
    }

    public mutating func merge(time t: Double) { time = min(time, t) }
}

extension ParameterCurve {
    /// After `offset` (relative to the curve's start): the next control point's offset, and whether
    /// the curve is on a sloped segment at `offset`. Before the first point and after the last the
    /// curve holds a value.
    func nextChange(afterOffset offset: Double) -> (next: Double, sloped: Bool) {
        let points = controlPoints
        var lo = 0
        var hi = points.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid].time <= offset { lo = mid + 1 } else { hi = mid }
        }
        guard lo < points.count else { return (.infinity, false) }
        let sloped = lo > 0 && points[lo].value != points[lo - 1].value
        return (points[lo].time, sloped)
    }
}

extension ControlTimeline {
    /// After `t`: the next entry's start or the governing curve's next control point, and whether a
    /// curve is sloping at `t`.
    public func nextChange(after t: Double) -> NextChange {
        let k = startsThrough(t)
        var result = NextChange(time: k < starts.count ? starts[k] : .infinity, ramping: false)
        if k > 0, case .curve(let c) = entries[k - 1] {
            let (next, sloped) = c.nextChange(afterOffset: t - origins[k - 1])
            result.merge(time: origins[k - 1] + next)
            result.ramping = sloped
        }
        return result
    }
}

extension ControlTimelines {
    public func nextChange(after t: Double) -> NextChange {
        var r = intensity.nextChange(after: t)
        r.merge(sharpness.nextChange(after: t))
        r.merge(attack.nextChange(after: t))
        r.merge(decay.nextChange(after: t))
        r.merge(release.nextChange(after: t))
        return r
    }
}

extension CompiledPattern {
    /// In pattern time, after `offset`: the next breakpoint of the output (an event start, an envelope
    /// phase or pulse end, a pattern parameter or curve point, the pattern's end), whether it is
    /// ramping at `offset`, and whether anything sounds there. `external` are the controls a player
    /// applies at this instant (they shape pulse lengths and envelope phases).
    public func nextChange(after offset: Double, external: ControlValues = .neutral) -> (change: NextChange, sounding: Bool) {
        var result = NextChange.never
        if offset < duration { result.merge(time: duration) }
        // The next event to start.
        let next = eventsStarted(by: offset)
        if next < events.count { result.merge(time: events[next].start) }
        // The pattern's own controls.
        var controlsRamping = false
        if !controls.isEmpty {
            let c = controls.nextChange(after: offset)
            result.merge(time: c.time)
            controlsRamping = c.ramping
        }
        // Every event that may be sounding: where its envelope or pulse goes next.
        var sounding = false
        forEachCandidate(at: offset, external: external) { e, u, c in
            if e.isTransient {
                let s = min(max(e.sharpness + c.sharpness, 0), 1)
                let pulse = profile.pulseLength(sharpness: s, decayControl: c.decay)
                guard u < pulse else { return }
                result.merge(time: e.start + pulse)
                sounding = true
                return
            }
            let attack = c.attack == 0 ? e.attackSeconds : EnvelopeTiming.seconds(e.attack + c.attack)
            let decay = e.sustained ? 0 : (c.decay == 0 ? e.decaySeconds : EnvelopeTiming.seconds(e.decay + c.decay))
            let release = c.release == 0 ? e.releaseSeconds : EnvelopeTiming.seconds(e.release + c.release)
            let level = Self.envelope(e, u, c)
            var ramps = false
            if u < e.duration {
                if u < attack {
                    result.merge(time: e.start + attack)
                    ramps = e.intensity > 0
                } else if !e.sustained && decay > 0 && u < attack + decay {
                    result.merge(time: e.start + attack + decay)
                    ramps = e.intensity > 0
                }
                result.merge(time: e.start + e.duration)
                if e.envelope >= 0 {
                    // A `.haptic` clip's own envelope: its next breakpoint, and a ramp on a sloped
                    // segment (of the sharpness only where the clip is heard).
                    let envelope = envelopes[Int(e.envelope)]
                    let (ni, intensitySlopes) = PiecewiseLinear.nextBreakpoint(envelope.intensity, after: u)
                    let (ns, sharpnessSlopes) = PiecewiseLinear.nextBreakpoint(envelope.sharpness, after: u)
                    result.merge(time: e.start + ni)
                    result.merge(time: e.start + ns)
                    if level > 0 && (intensitySlopes || (sharpnessSlopes && envelope.intensity(atOffset: u) > 0)) { ramps = true }
                }
            } else if u < e.duration + release {
                result.merge(time: e.start + e.duration + release)
                ramps = level > 0
            }
            if level > 0 || ramps { sounding = true }
            if ramps && c.intensity > 0 { result.ramping = true }
        }
        if sounding && controlsRamping { result.ramping = true }
        return (result, sounding)
    }
}
