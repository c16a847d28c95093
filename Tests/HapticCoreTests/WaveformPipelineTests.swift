import HapticCore
import Testing

/// A pad's engines as voice-coil waveforms, on the manual clock (issue 25 §2): commands and events on
/// their own sample, localities to their side, players summed and clipped softly under the ceiling.
@Suite struct WaveformPipelineTests {
    let clock = ManualClock(0)
    let renderer = WaveformRenderer(sampleRate: 48_000)

    func pipeline(_ localities: [Locality] = [.default]) -> PadPipeline {
        let make = { (l: Locality) -> HapticEngine in
            let e = HapticEngine(profile: .dualSense, clock: clock, route: l.route ?? .both)
            e.start()
            return e
        }
        let p = PadPipeline(engine: make(.default))
        for l in localities where l != .default { p.add(make(l), for: l) }
        return p
    }

    /// A continuous event from 0 for 1 s, sharpness 0.5 (a 113 Hz carrier).
    let tone = HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.8, sharpness: 0.5))])

    @Test func aCommandTakesEffectOnItsOwnSample() throws {
        let pad = pipeline()
        let click = HapticPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 1))])
        let id = pad.engine.makePlayer(click)
        try pad.engine.start(id, at: .at(0.0025))  // sample 120 at 48 kHz
        clock.now = 0.006  // the block's end has passed
        var state = WaveformPipelineState()
        let (left, right) = pad.renderWaveform(from: 0, count: 240, renderer: renderer, state: &state)
        #expect(left[..<121].allSatisfy { $0 == 0 }, "nothing before the start (the pulse's window is 0 on its first sample)")
        let first = try #require(left.firstIndex { $0 != 0 })
        #expect(first == 121)
        #expect(left == right, "the default locality drives both actuators")
    }

    @Test func handlesDriveTheirOwnSide() throws {
        let pad = pipeline([.leftHandle, .rightHandle])
        let l = try #require(pad.engine(for: .leftHandle)), r = try #require(pad.engine(for: .rightHandle))
        try l.start(l.makePlayer(tone))
        clock.now = 0.02
        var state = WaveformPipelineState()
        var out = pad.renderWaveform(from: 0, count: 480, renderer: renderer, state: &state)
        #expect(out.left.contains { abs($0) > 0.5 } && out.right.allSatisfy { $0 == 0 })
        try r.start(r.makePlayer(tone))
        clock.now = 0.04
        out = pad.renderWaveform(from: 0.02, count: 480, renderer: renderer, state: &state)
        #expect(out.left.contains { abs($0) > 0.5 } && out.right.contains { abs($0) > 0.5 })
    }

    @Test func blocksOfAnySizeGiveTheSameSamples() throws {
        func render(_ sizes: [Int]) throws -> [Double] {
            let clock = ManualClock(0)
            let e = HapticEngine(profile: .dualSense, clock: clock, route: .both)
            e.start()
            let pad = PadPipeline(engine: e)
            let pattern = HapticPattern(elements: [
                .event(.continuous(at: 0, duration: 0.05, intensity: 0.6, sharpness: 0.2)),
                .event(.transient(at: 0.013, intensity: 0.9, sharpness: 0.7)),
            ])
            try e.start(e.makePlayer(pattern))
            clock.now = 1
            var state = WaveformPipelineState(), out: [Double] = [], t = 0.0
            for n in sizes {
                out += pad.renderWaveform(from: t, count: n, renderer: renderer, state: &state).left
                t += Double(n) / 48_000
            }
            return out
        }
        let whole = try render([2400]), pieces = try render([240, 17, 983, 1160])
        #expect(whole.count == pieces.count)
        #expect(zip(whole, pieces).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(whole.contains { abs($0) > 0.3 })
    }

    @Test func silencedPlayersAreSilent() throws {
        let pad = pipeline()
        let id = pad.engine.makePlayer(tone)
        try pad.engine.start(id)
        try pad.engine.setPolicyGain(id, 0)
        clock.now = 0.01
        var state = WaveformPipelineState()
        #expect(pad.renderWaveform(from: 0, count: 240, renderer: renderer, state: &state).left.allSatisfy { $0 == 0 })
        try pad.engine.setPolicyGain(id, 1)
        try pad.engine.setMuted(id, true)
        #expect(pad.renderWaveform(from: 0.005, count: 240, renderer: renderer, state: &state).left.allSatisfy { $0 == 0 })
    }

    @Test func aRumblePlaysItsMotorsAsTheDullAndSharpCarriers() throws {
        let pad = pipeline()
        try pad.engine.start(pad.engine.makeRumble(strong: 1, weak: 0, duration: 1))
        clock.now = 0.2
        var state = WaveformPipelineState()
        let (left, right) = pad.renderWaveform(from: 0, count: 4800, renderer: renderer, state: &state)  // 0.1 s
        let crossings = zip(left, left.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        #expect((7...9).contains(crossings), "40 Hz: 8 sign changes in 0.1 s, got \(crossings)")
        #expect(right.allSatisfy { $0 == 0 }, "no weak magnitude: the right actuator rests")
        #expect(left.map(abs).max()! > 0.7)
    }

    @Test func sumsClipSoftlyUnderTheCeiling() throws {
        let pad = pipeline()
        let loud = HapticPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0))])
        for _ in 0..<3 { try pad.engine.start(pad.engine.makePlayer(loud)) }
        clock.now = 0.2
        var state = WaveformPipelineState()
        let loudest = pad.renderWaveform(from: 0, count: 4800, renderer: renderer, state: &state).left.map(abs).max()!
        #expect(loudest <= 1 && loudest > 0.95, "three players at full intensity: clipped softly near 1 (\(loudest))")
        pad.maxStrength = 0.5
        let capped = pad.renderWaveform(from: 0.1, count: 4800, renderer: renderer, state: &state).left.map(abs).max()!
        #expect(capped <= 0.5 && capped > 0.45)
    }
}
