/// A pad's engines rendered as two voice-coil waveforms, left and right (docs/rendering.md §13,
/// "Voice-coil waveforms"): what a DualSense's actuators play, where `PadPipeline.tick()` gives a
/// rumble pad's motors.
///
/// **Rendered behind the clock**: a block `[t, t + count/rate)` is rendered once the clock has passed
/// its end, so every command that applies inside it is known, and takes effect on its own sample:
/// the engines are advanced to each command's time (`HapticEngine.update(to:)`) and the block is
/// split there. The stream adds a fixed latency (this block, then the device's buffer) and nothing
/// moves inside it: event and command timing are sample-accurate — provided nothing else advanced
/// the engines past the block's start first. A start at time t is exact even then (a playing player's
/// offset is linear from its anchor); a stop or pause already applied loses the block's samples
/// before it. The daemon's stream (`WaveformStream`) is therefore the pad's only renderer, and renders
/// up to now before a command reaches the pad (`WaveformStream.catchUp`).
///
/// Per player: its pattern through `WaveformRenderer` from its offset at the segment's start, with
/// its controls (sent parameters and curves, as of the segment's start), its policy gain, the pad's
/// ducking and gain; at a playback rate `r` the pattern runs `r` times as fast, carriers included (as
/// a tape would). A `rumble` player (fixed strong and weak magnitudes) plays its strong magnitude as
/// the dull carrier on the left and its weak one as the sharp carrier on the right — the motors it
/// names. Localities route to sides: `leftHandle` left, `rightHandle` right, every other locality both.
/// Each side's sum is soft-clipped, then held under the pad's ceiling (`maxStrength`).
public struct WaveformPipelineState {
    var phases: [ObjectIdentifier: WaveformRenderer.State] = [:]
    var fixedPhases: [ObjectIdentifier: (left: Double, right: Double)] = [:]

    public init() {}
}

extension PadPipeline {
    /// Renders `count` samples of both sides from engine time `t` (whose end the clock has passed:
    /// the engines are advanced to it). `state` carries each player's carrier phase to the next block.
    public func renderWaveform(
        from t: Double, count: Int, renderer: WaveformRenderer, state: inout WaveformPipelineState
    ) -> (left: [Double], right: [Double]) {
        let n = max(0, count)
        var left = [Double](repeating: 0, count: n), right = [Double](repeating: 0, count: n)
        let rate = renderer.sampleRate
        guard n > 0, t.isFinite, rate > 0 else { return (left, right) }
        var done = 0
        var alive = Set<ObjectIdentifier>()
        while done < n {
            let segmentStart = t + Double(done) / rate
            for (_, e) in engines { e.update(to: segmentStart) }
            // The segment runs to the next command any player has pending, or to a loop's wrap.
            var end = n
            func limit(at time: Double) {
                let k = Int(((time - t) * rate).rounded(.up))
                if k > done { end = min(end, k) }
            }
            var threshold: Int?
            if duck < 1 {
                for (_, e) in engines { if let p = e.playingPriority { threshold = max(threshold ?? p, p) } }
            }
            for (_, e) in engines {
                for p in e.playersInOrder {
                    if let first = p.pending.first { limit(at: first.time) }
                    if p.isPlaying, p.loopEnabled, p.rate > 0 {
                        let o = p.offset(at: segmentStart)
                        limit(at: segmentStart + (p.loopLength - o) / p.rate)
                    }
                }
            }
            let length = end - done
            for (locality, e) in engines where e.isRunning && !e.isMutedForHaptics {
                let sides = Self.sides(locality)
                for p in e.playersInOrder where p.isPlaying && !p.isMuted {
                    var g = p.policyGain * gain
                    if let threshold, p.priority < threshold { g *= duck }
                    guard g > 0 else { continue }
                    let key = ObjectIdentifier(p)
                    alive.insert(key)
                    let offset = p.offset(at: segmentStart)
                    let external = p.controls.isEmpty ? ControlValues.neutral : p.controls.values(at: segmentStart)
                    if let fixed = p.fixedOutput {
                        renderFixed(fixed, p, offset: offset, external: external, gain: g, start: done, count: length, rate: rate,
                                    sides: sides, phase: &state.fixedPhases[key, default: (0, 0)], left: &left, right: &right)
                        continue
                    }
                    let r = p.rate == 1 ? renderer : WaveformRenderer(sampleRate: rate / max(p.rate, 1e-6), controlInterval: renderer.controlInterval)
                    var block = [Double](repeating: 0, count: length)
                    r.render(p.compiled, from: offset, count: length, into: &block, external: external, gain: g, state: &state.phases[key, default: .init()])
                    for k in 0..<length {
                        if sides.left { left[done + k] += block[k] }
                        if sides.right { right[done + k] += block[k] }
                    }
                }
            }
            done = end
        }
        for (_, e) in engines { e.update(to: t + Double(n) / rate) }
        state.phases = state.phases.filter { alive.contains($0.key) }
        state.fixedPhases = state.fixedPhases.filter { alive.contains($0.key) }
        let ceiling = maxStrength
        for k in 0..<n {
            left[k] = ceiling * WaveformRenderer.softClip(left[k] / max(ceiling, 1e-9))
            right[k] = ceiling * WaveformRenderer.softClip(right[k] / max(ceiling, 1e-9))
            if ceiling <= 0 { left[k] = 0; right[k] = 0 }
        }
        return (left, right)
    }

    /// Which sides a locality's engine drives.
    static func sides(_ locality: Locality) -> (left: Bool, right: Bool) {
        switch locality {
        case .leftHandle: (true, false)
        case .rightHandle: (false, true)
        default: (true, true)
        }
    }

    /// A `rumble` player: its strong magnitude as the dull carrier (40 Hz), its weak one as the sharp
    /// carrier (320 Hz), each scaled by the pattern's intensity (its envelope and intensity control).
    private func renderFixed(
        _ fixed: MotorMagnitudes, _ p: PlayerState, offset: Double, external: ControlValues, gain: Double, start: Int, count: Int,
        rate: Double, sides: (left: Bool, right: Bool), phase: inout (left: Double, right: Double), left: inout [Double], right: inout [Double]
    ) {
        let intensity = min(max(p.compiled.frame(at: offset, external: external).intensity, 0), 1) * gain
        let strong = Double(fixed.strong) / 65535 * intensity, weak = Double(fixed.weak) / 65535 * intensity
        let fl = WaveformRenderer.carrierFrequency(sharpness: 0) / rate, fr = WaveformRenderer.carrierFrequency(sharpness: 1) / rate
        for k in 0..<count {
            let l = strong * WaveformRenderer.sine(phase.left), r = weak * WaveformRenderer.sine(phase.right)
            // A rumble is the handle motors' pair: on a one-sided engine only its side plays.
            if sides.left { left[start + k] += sides.right ? l : l + r }
            if sides.right { right[start + k] += sides.left ? r : l + r }
            phase.left = (phase.left + fl).truncatingRemainder(dividingBy: 1)
            phase.right = (phase.right + fr).truncatingRemainder(dividingBy: 1)
        }
    }
}
