import RealModule

/// Renders a pattern as audio-rate waveforms for voice-coil actuators (the DualSense's two), rather
/// than as motor strengths: Core Haptics' sharpness becomes a real frequency and a transient a real
/// click (docs/rendering.md, "Waveforms").
///
/// - **Continuous events** drive one carrier per pattern whose frequency follows the sounding
///   events' sharpness, `carrierFrequency(sharpness:)` = 40·8^sharpness Hz (40 Hz dull … 320 Hz
///   sharp, evenly spaced in pitch), and whose amplitude is the events' summed intensity with their
///   envelopes (attack, decay, release), dynamic parameters and curves: exactly the intensity and
///   sharpness the motor renderer uses (`CompiledPattern.frame`), taken every `controlInterval` (on a
///   grid fixed to the pattern's samples) with amplitude and frequency interpolated between, and the
///   phase carried across blocks so the carrier never clicks.
/// - **Transients** are shaped pulses placed on the sample where the event starts: `cycles` periods
///   of a sine at `transientFrequency(sharpness:)` = 80·4^sharpness Hz (80 … 320 Hz) under a Hann
///   window, so a sharp tap is short and bright and a dull one longer and deeper; amplitude = the
///   event's intensity with the intensity control.
/// - Sums clip softly (`softClip`): linear up to 0.8, then a tanh knee to ±1.
///
/// Pure and deterministic: render a block of `count` samples from any offset and the samples are the
/// same as in one long render (the renderer keeps no state but the carrier's phase, passed in and out).
public struct WaveformRenderer: Sendable {
    public let sampleRate: Double
    /// How often the continuous signal's envelope is evaluated (seconds; interpolated between).
    public let controlInterval: Double
    /// Periods in a transient's pulse.
    public static let cycles = 2.0

    public init(sampleRate: Double, controlInterval: Double = 0.001) {
        self.sampleRate = sampleRate.isFinite ? min(max(sampleRate, 1_000), 192_000) : 48_000
        self.controlInterval = controlInterval.isFinite ? min(max(controlInterval, 1 / self.sampleRate), 0.01) : 0.001
    }

    public static func carrierFrequency(sharpness: Double) -> Double { 40 * Double.exp2(3 * clamp01(sharpness)) }
    public static func transientFrequency(sharpness: Double) -> Double { 80 * Double.exp2(2 * clamp01(sharpness)) }

    /// The running phase of a pattern's carrier (0 ≤ phase < 1, in cycles).
    public struct State: Equatable, Sendable {
        public var phase = 0.0
        public init() {}
    }

    /// Adds `count` samples of `pattern`, starting `offset` seconds into it, to `output` (starting at
    /// `output[start]`), with `external` controls and a gain. `state` carries the carrier's phase to
    /// the next block.
    public func render(
        _ pattern: CompiledPattern, from offset: Double, count: Int, into output: inout [Double], at start: Int = 0,
        external: ControlValues = .neutral, gain: Double = 1, state: inout State
    ) {
        let n = max(0, min(count, output.count - max(0, start)))
        guard n > 0, offset.isFinite, gain.isFinite, gain > 0 else { return }
        let dt = 1 / sampleRate
        let end = offset + Double(n) * dt

        // Continuous: the envelope at control points on a grid fixed to the pattern's own sample
        // positions (so a block boundary changes nothing), interpolated between them; the carrier's
        // phase accumulated sample by sample.
        let step = max(1, Int((controlInterval * sampleRate).rounded()))
        let base = Int((offset * sampleRate).rounded())
        func at(_ sample: Int) -> (Double, Double) { continuous(pattern, at: Double(sample) / sampleRate, external) }
        var i = 0
        while i < n {
            let g0 = (base + i).floorDiv(step) * step
            let g1 = g0 + step
            let j = min(n, g1 - base)
            let (a0, s0) = at(g0)
            let (a1, s1) = at(g1)
            let f0 = Self.carrierFrequency(sharpness: s0), f1 = Self.carrierFrequency(sharpness: s1)
            for k in i..<j {
                let w = Double(base + k - g0) / Double(step)
                let a = a0 + (a1 - a0) * w
                let f = f0 + (f1 - f0) * w
                if a > 0 { output[start + k] += gain * a * Self.sine(state.phase) }
                state.phase = advance(state.phase, by: f * dt)
            }
            i = j
        }

        // Transients: pulses that overlap this block, on the sample they start at.
        let longest = Self.cycles / Self.transientFrequency(sharpness: 0)
        var e = pattern.eventsStarted(by: end) - 1
        while e >= 0 && pattern.prefixLatestEnd[e] + longest >= offset {
            let event = pattern.events[e]
            e -= 1
            guard event.isTransient, event.start + longest >= offset else { continue }
            let c = pattern.controls.isEmpty ? external : pattern.controls.values(at: event.start).combined(with: external)
            let sharpness = Self.clamp01(event.sharpness + c.sharpness)
            let f = Self.transientFrequency(sharpness: sharpness)
            let length = Self.cycles / f
            let amplitude = Self.clamp01(event.intensity * c.intensity)
            guard amplitude > 0, event.start + length > offset else { continue }
            let first = max(0, Int(((event.start - offset) * sampleRate).rounded(.up)))
            let last = min(n - 1, Int(((event.start + length - offset) * sampleRate).rounded(.down)))
            guard first <= last else { continue }
            for k in first...last {
                let u = offset + Double(k) * dt - event.start
                guard u >= 0, u < length else { continue }
                let window = 0.5 - 0.5 * Self.cosine(u / length)
                output[start + k] += gain * amplitude * window * Self.sine(f * u)
            }
        }
    }

    /// The continuous events' amplitude and sharpness at `offset` (transients excluded).
    func continuous(_ pattern: CompiledPattern, at offset: Double, _ external: ControlValues) -> (Double, Double) {
        var sum = 0.0, weighted = 0.0
        pattern.forEachContribution(at: offset, external: external, continuousOnly: true) { contribution, sharpness, _ in
            sum += contribution
            weighted += contribution * sharpness
        }
        guard sum > 0 else { return (0, 0) }
        return (min(sum, 1), Self.clamp01(weighted / sum))
    }

    func advance(_ phase: Double, by cycles: Double) -> Double {
        let p = phase + cycles
        return p - p.rounded(.down)
    }

    /// A soft clip: linear to ±0.8, then a tanh knee to ±1.
    public static func softClip(_ x: Double) -> Double {
        guard x.isFinite else { return x.isNaN ? 0 : (x > 0 ? 1 : -1) }
        let knee = 0.8
        let m = abs(x)
        guard m > knee else { return x }
        let y = knee + (1 - knee) * Double.tanh((m - knee) / (1 - knee))
        return x < 0 ? -y : y
    }

    /// sin(2π·cycles).
    static func sine(_ cycles: Double) -> Double { Double.sin(2 * Double.pi * cycles) }
    /// cos(2π·cycles).
    static func cosine(_ cycles: Double) -> Double { Double.cos(2 * Double.pi * cycles) }
    static func clamp01(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }
}

/// Stereo actuator output: which side each locality drives.
extension Int {
    /// Division rounding toward −∞.
    fileprivate func floorDiv(_ d: Int) -> Int { self >= 0 ? self / d : -((-self + d - 1) / d) }
}

extension Locality {
    /// (left, right) gains of the voice-coil actuators for this locality: both for the whole-pad
    /// localities, one side for a handle; triggers have no voice coil (nil).
    public var actuatorGains: (left: Double, right: Double)? {
        switch self {
        case .default, .all, .handles: (1, 1)
        case .leftHandle: (1, 0)
        case .rightHandle: (0, 1)
        case .triggers, .leftTrigger, .rightTrigger: nil
        }
    }
}
