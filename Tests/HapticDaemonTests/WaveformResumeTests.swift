import HapticCore
import Hidraw
import Testing
@testable import HapticDaemon

/// The Bluetooth waveform sink taking the pad back from the motors, driven on the manual
/// clock as `RenderLoop.tick` drives it (the stream's pass first; not handled: the pipeline's tick,
/// written to the sink), with commands as `PadAccess.touch` makes them (the catch-up first).
@Suite(.serialized) struct WaveformResumeTests {
    /// A pulse that the motors' pacer held (the pad written less than an interval before), then the
    /// stream taken up again at the next pass (its back-off over): the resume writes the motors zero,
    /// forgets the pacer's pending output (`resetOutput`) and looks for what began since the motors'
    /// last *render* — but the pulse began before that render (another command's catch-up or pass
    /// while the pacer held it) and ended before the resuming pass: neither the motors nor the voice
    /// coils ever carry it.
    @Test(arguments: [false, true])
    func aPulseThePacerHeldIsNotLostWhenTheStreamIsTakenUpAgain(readOnlyTouch: Bool) throws {
        let fake = WaveformSinkTests.FakeNode(), second = WaveformSinkTests.FakeNode()
        let rumble = RecordingSink()
        let sink = DualSenseWaveformSink(node: fake.node(), rumble: rumble, vendor: 0x054C, product: 0x0CE6, backoff: 0.05) { _ throws(HidrawError) in
            second.node()
        }
        let clock = ManualClock(10)
        let engine = HapticEngine(profile: .dualSenseBluetoothWaveform, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        func render(timer: Bool) throws {
            let pass = sink.pass(pipe, now: clock.now)
            if pass.handled { return }
            if let w = pipe.tick(sampleBefore: true, timer: timer) { try sink.apply(w) }
        }
        func command(at t: Double, _ body: (HapticEngine) throws -> Void) throws {
            clock.now = t
            if sink.usesWaveform { sink.catchUp(pipe, now: t) } else { pipe.catchUp() }
            try body(engine)
            try render(timer: false)
        }
        // The node is busy: the first report of a 20 ms tone fails (10.0107) and the pad falls back to
        // its motors, the stream to be tried again at 10.061.
        fake.fill()
        try command(at: 10) { e in try e.start(e.makeRumble(strong: 0.3, weak: 0.3, duration: 0.020)) }
        clock.now = 10.011
        try render(timer: true)
        #expect(!sink.usesWaveform, "on the motors")
        clock.now = 10.021
        try render(timer: true)  // the tone's zero
        // A 1 ms rumble written at 10.053, then the 3 ms pulse under test at 10.055: the pacer holds it
        // (the pad was written 2 ms ago; its interval is 10 ms: the next write at 10.063).
        try command(at: 10.053) { e in try e.start(e.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001)) }
        try command(at: 10.055) { e in try e.start(e.makeRumble(strong: 0.9, weak: 0.9, duration: 0.003)) }
        // The event-driven loop sleeps until the pad may be written (10.063); a command touches the
        // pad in between: a `status` (catch-up, no render) or a `prepare` (catch-up, `keepAwake`, the
        // command's render pass, still on the motors: the back-off runs to 10.061).
        if readOnlyTouch {
            clock.now = 10.056
            pipe.catchUp()
        } else {
            try command(at: 10.056) { e in e.keepAwake(until: 15) }
        }
        clock.now = 10.063
        try render(timer: true)  // the pacer's deadline, past the back-off: the stream is taken up
        #expect(sink.usesWaveform, "the stream is taken up again")
        // Then the stream's own wakes, until it is idle.
        for _ in 0..<20 {
            guard let w = sink.nextWakeup(pipe, now: clock.now) else { break }
            clock.now = max(clock.now, w + 1e-6)
            try render(timer: true)
        }
        let strongWrites = rumble.writes.filter { if case .set(let m) = $0 { m.strong > 0xA000 } else { false } }
        let sounding = second.reports().compactMap { DualSenseBluetoothHaptics.decode($0) }.filter { $0.frames.contains { $0 != (0, 0) } }
        #expect(!strongWrites.isEmpty || !sounding.isEmpty,
                "the 0.9 pulse reaches the pad, on the motors or the voice coils (motor writes: \(rumble.writes), sounding reports: \(sounding.count))")
    }
}
