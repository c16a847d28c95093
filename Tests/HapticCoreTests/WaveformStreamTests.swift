import HapticCore
import Testing

/// The waveform stream's pacing on the manual clock (issue 25, the DualSense's Bluetooth reports):
/// blocks on a grid behind the clock, one per block's end, no gaps, no pile-up, a bounded catch-up,
/// silence once after the end, then sleep.
@Suite struct WaveformStreamTests {
    let clock = ManualClock(10)

    func pipeline(_ localities: [Locality] = [.default]) -> PadPipeline {
        let make = { (l: Locality) -> HapticEngine in
            let e = HapticEngine(profile: .dualSenseBluetooth, clock: clock, route: l.route ?? .both)
            e.start()
            return e
        }
        let p = PadPipeline(engine: make(.default))
        for l in localities where l != .default { p.add(make(l), for: l) }
        return p
    }

    /// The DualSense's report: 32 frames at 3 kHz.
    func stream() -> WaveformStream { WaveformStream(sampleRate: 3_000, framesPerBlock: 32, maximumCatchUp: 3) }

    func tone(_ duration: Double, intensity: Double = 1, sharpness: Double = 0.5) -> HapticPattern {
        HapticPattern(elements: [.event(.continuous(at: 0, duration: duration, intensity: intensity, sharpness: sharpness))])
    }

    /// Runs the stream as the render loop does: wakes at each `nextWakeup` (plus `late`), passes, until
    /// it sleeps or `until`. Returns every block with the time it was given.
    func run(_ s: inout WaveformStream, _ pad: PadPipeline, until: Double, late: (Int) -> Double = { _ in 0 }) -> [(given: Double, block: WaveformStream.Block)] {
        var out: [(Double, WaveformStream.Block)] = []
        var wakes = 0
        while let w = s.nextWakeup(pad, now: clock.now), w <= until, wakes < 10_000 {
            clock.now = max(clock.now, w + late(wakes))
            wakes += 1
            for b in s.pass(pad, now: clock.now) { out.append((clock.now, b)) }
        }
        return out
    }

    @Test func aPlayStreamsBlocksOnAGridBehindTheClockWithoutGaps() throws {
        let pad = pipeline()
        var s = stream()
        #expect(s.blockDuration == 32.0 / 3_000)
        try pad.engine.start(pad.engine.makePlayer(tone(0.1)))
        // The command's own pass (the render loop's, right after it): the stream starts at the start.
        #expect(s.pass(pad, now: clock.now).isEmpty, "nothing is due before the first block's end")
        #expect(s.origin == 10)
        let blocks = run(&s, pad, until: 11)
        let d = s.blockDuration
        #expect(blocks.map(\.block.index) == Array(0..<blocks.count), "every block of the grid, in order")
        for (given, b) in blocks {
            #expect(b.start == 10 + Double(b.index) * d)
            #expect(given >= b.start + d - 1e-9, "never before its end (no pile-up)")
            #expect(given - (b.start + d) < 1e-6, "and at its end when the loop is on time: latency one block")
            #expect(b.left.count == 32 && b.right.count == 32)
        }
        // 0.1 s is 9.4 blocks: 10 that sound (the last partly), then one silent block, then sleep.
        let sounding = blocks.filter { !$0.block.isSilent }
        #expect(sounding.count == 10)
        #expect(blocks.count == 11 && blocks.last!.block.isSilent, "silence once")
        #expect(!s.isStreaming && s.nextWakeup(pad, now: clock.now) == nil, "then no wakeups at all")
        #expect(blocks[0].block.left[0] == 0 && blocks[0].block.left[1] != 0, "the tone starts on the first sample (its sine's 0)")
        #expect(s.rendered == 11 && s.dropped == 0 && s.caughtUp == 0 && s.starts == 1)
    }

    @Test func aLateLoopCatchesUpAtMostTheBoundAndDropsTheRest() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(1)))
        _ = s.pass(pad, now: clock.now)
        let d = s.blockDuration
        // On time for two blocks.
        clock.now = 10 + 2 * d
        #expect(s.pass(pad, now: clock.now).map(\.index) == [0, 1], "two due: both (within the bound), in order")
        #expect(s.caughtUp == 1 && s.dropped == 0)
        // Stalled for 2.5 blocks: the 2 due come, the half waits for its end.
        clock.now = 10 + 4.5 * d
        #expect(s.pass(pad, now: clock.now).map(\.index) == [2, 3])
        // Stalled for 6 blocks: the 3 newest come, the 3 oldest are dropped (not rendered).
        clock.now = 10 + 10.5 * d
        let late = s.pass(pad, now: clock.now)
        #expect(late.map(\.index) == [7, 8, 9], "the newest blocks, so that the latency stays one block")
        #expect(s.dropped == 3 && s.caughtUp == 3)
        #expect(late.allSatisfy { !$0.isSilent }, "a dropped span is skipped, the tone goes on")
        // Back on time: one block per wake, on the same grid.
        #expect(s.nextWakeup(pad, now: clock.now) == 10 + 11 * d)
        clock.now = 10 + 11 * d
        #expect(s.pass(pad, now: clock.now).map(\.index) == [10])
    }

    @Test func aStopSilencesFromItsSampleThenTheStreamSleeps() throws {
        let pad = pipeline()
        var s = stream()
        let id = pad.engine.makePlayer(tone(5))
        try pad.engine.start(id)
        _ = s.pass(pad, now: clock.now)
        let d = s.blockDuration
        var blocks = run(&s, pad, until: 10 + 5 * d).map(\.block)
        #expect(blocks.count == 5 && blocks.allSatisfy { !$0.isSilent })
        // A stop 16 samples into block 5 (a command between wakes: the loop's clock is past it).
        clock.now = 10 + 5 * d + 16.0 / 3_000
        s.catchUp(pad, now: clock.now)  // as the render loop does before a command reaches the pad
        try pad.engine.stop(id)
        blocks = run(&s, pad, until: 11).map(\.block)
        #expect(blocks.count == 2, "the block with the stop, then one silent block")
        let cut = blocks[0]
        #expect(cut.left[..<16].contains { $0 != 0 } && cut.left[17...].allSatisfy { $0 == 0 }, "silent from the stop's own sample")
        #expect(blocks[1].isSilent && !s.isStreaming)
        #expect(s.nextWakeup(pad, now: clock.now) == nil)
    }

    @Test func aScheduledStartWakesTheStreamAtItsTime() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(0.05)), at: .at(10.5))
        #expect(s.pass(pad, now: clock.now).isEmpty && !s.isStreaming, "nothing plays yet: no stream")
        #expect(s.nextWakeup(pad, now: clock.now) == 10.5, "the engines' next change: the start")
        // The loop wakes a little late: the grid starts at the start, not at the wake.
        clock.now = 10.5 + 0.0002
        _ = s.pass(pad, now: clock.now)
        #expect(s.origin == 10.5)
        let blocks = run(&s, pad, until: 11).map(\.block)
        #expect(blocks.first?.start == 10.5 && blocks.first?.left[1] != 0)
        #expect(blocks.filter { !$0.isSilent }.count == 5 && blocks.last!.isSilent)
    }

    @Test func aCommandInsideAStreamTakesEffectOnItsSample() throws {
        let pad = pipeline([.leftHandle, .rightHandle])
        var s = stream()
        let left = try #require(pad.engine(for: .leftHandle)), right = try #require(pad.engine(for: .rightHandle))
        try left.start(left.makePlayer(tone(0.2)))
        _ = s.pass(pad, now: clock.now)
        let d = s.blockDuration
        _ = run(&s, pad, until: 10 + 3 * d)
        // The right handle starts 10 samples into block 3, commanded between wakes.
        clock.now = 10 + 3 * d + 10.0 / 3_000
        s.catchUp(pad, now: clock.now)
        try right.start(right.makePlayer(tone(0.2)), at: .at(clock.now))
        let b = try #require(run(&s, pad, until: 10 + 4 * d).first?.block)
        #expect(b.index == 3)
        #expect(b.right[...10].allSatisfy { $0 == 0 } && b.right[11...].contains { $0 != 0 }, "the right side from its sample on")
        #expect(b.left.contains { $0 != 0 }, "the left side sounds throughout")
    }

    @Test func aCatchUpAfterABlocksEndKeepsItForThePassAndTheGrid() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(1)))
        _ = s.pass(pad, now: clock.now)
        let d = s.blockDuration
        // A command 1.5 blocks in, before the timer's pass for block 0 (late): block 0 and half of block 1.
        clock.now = 10 + 1.5 * d
        s.catchUp(pad, now: clock.now)
        #expect(s.next == 1 && s.nextWakeup(pad, now: clock.now) == clock.now, "block 0 is ready: the pass is due now")
        #expect(s.pass(pad, now: clock.now).map(\.index) == [0])
        #expect(s.nextWakeup(pad, now: clock.now) == 10 + 2 * d)
        clock.now = 10 + 2 * d
        let b = try #require(s.pass(pad, now: clock.now).first)
        #expect(b.index == 1 && b.left.count == 32)
        // The same samples as an uninterrupted stream.
        let other = pipeline()
        var t = stream()
        clock.now = 10
        try other.engine.start(other.engine.makePlayer(tone(1)))
        _ = t.pass(other, now: 10)
        clock.now = 10 + 2 * d
        let reference = t.pass(other, now: clock.now)
        #expect(reference.count == 2 && zip(reference[1].left, b.left).allSatisfy { abs($0 - $1) < 1e-12 })
    }

    @Test func catchUpsWhileTheLoopIsLateHoldAtMostTheBound() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(1)))
        _ = s.pass(pad, now: clock.now)
        let d = s.blockDuration
        // Reads every half block for 10 blocks, and no pass (the loop's thread held up).
        for k in 1...20 {
            clock.now = 10 + Double(k) * d / 2
            s.catchUp(pad, now: clock.now)
        }
        #expect(s.pass(pad, now: clock.now).map(\.index) == [7, 8, 9], "the newest three")
        #expect(s.dropped == 7 && s.rendered == 10)
    }

    /// A short pulse whose command's pass comes after it has ended (the daemon's thread preempted
    /// between the two; issue 26: nothing lost): the idle stream still starts at its start and
    /// gives it, as the blocks of a late caller. Started by a command, and by a scheduled start the
    /// loop woke for late.
    @Test(arguments: [false, true])
    func aPulseThatEndedBeforeTheIdleStreamsPassIsStillStreamed(scheduled: Bool) throws {
        let pad = pipeline()
        var s = stream()
        let id = pad.engine.makePlayer(tone(0.005))
        try pad.engine.start(id, at: scheduled ? .at(10.1) : .immediately)
        let onset = scheduled ? 10.1 : 10.0
        if scheduled { #expect(s.pass(pad, now: clock.now).isEmpty && !s.isStreaming) }
        clock.now = onset + 0.015  // the pass: 10 ms after the pulse's end
        _ = s.pass(pad, now: clock.now)
        #expect(s.origin == onset, "the grid starts at the pulse's start")
        let blocks = run(&s, pad, until: onset + 1).map(\.block)
        let sounding = blocks.filter { !$0.isSilent }
        #expect(sounding.first?.start == onset && sounding.first?.left[1] != 0, "the pulse, from its first sample: \(blocks.map(\.isSilent))")
        #expect(sounding.count == 1 && blocks.last!.isSilent && !s.isStreaming, "then silence once, and sleep")
    }

    /// A pulse found late starts the grid no further back than `lateOnsetReach`, whatever the
    /// stream's catch-up bound (the USB stream's is 64 blocks, 320 ms): the blocks of a late start are
    /// latency for the rest of the stream.
    @Test func aLateOnsetReachesBackNoFurtherThanTheBound() throws {
        let pad = pipeline()
        var s = WaveformStream(sampleRate: 48_000, framesPerBlock: 240, maximumCatchUp: 64)
        try pad.engine.start(pad.engine.makePlayer(tone(1)))
        clock.now = 10.2  // its pass, 200 ms late
        _ = s.pass(pad, now: clock.now)
        #expect(s.origin == 10.2 - WaveformStream.lateOnsetReach)
    }

    /// A command on an idle streaming pad after a short pulse's scheduled start fell due and before
    /// the late pass: the command's catch-up starts the stream at the pulse first (the command would
    /// advance the engine past it).
    @Test func aCommandOnAnIdleStreamAfterAnUnseenPulseStartsItFirst() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(0.005)), at: .at(10.1))
        _ = s.pass(pad, now: clock.now)
        clock.now = 10.108  // the loop is late; a command comes first
        s.catchUp(pad, now: clock.now)
        try pad.engine.start(pad.engine.makePlayer(tone(0.002, intensity: 0.1)))
        #expect(s.origin == 10.1, "the grid starts at the scheduled pulse")
        let blocks = run(&s, pad, until: 11).map(\.block)
        #expect(blocks.first?.start == 10.1 && blocks.first?.left[1] != 0, "from its first sample")
    }

    /// A resume due on a player that is not paused changes nothing, and starts no stream.
    @Test func aResumeOfAPlayerNotPausedStartsNoStream() throws {
        let pad = pipeline()
        var s = stream()
        let id = pad.engine.makePlayer(tone(1), advanced: true)
        try pad.engine.resume(id, at: .at(10.1))
        clock.now = 10.2
        #expect(s.pass(pad, now: clock.now).isEmpty)
        #expect(!s.isStreaming && s.starts == 0)
    }

    /// The stream taking the pad from the motors (`reset(lookingSince:)` the motors' last render) starts
    /// with what began since, even if it has ended by then; not with what began before.
    @Test func aResetLooksSinceWhatTheMotorsRendered() throws {
        let pad = pipeline()
        var s = stream()
        try pad.engine.start(pad.engine.makePlayer(tone(1)))  // the motors played this one
        clock.now = 10.5
        try pad.engine.start(pad.engine.makePlayer(tone(0.004)))  // and this one began since their render
        clock.now = 10.51
        s.reset(lookingSince: 10.4)
        _ = s.pass(pad, now: clock.now)
        #expect(s.origin == 10.5, "the pulse that began since the motors' render, not the tone before it")
    }

    @Test func nothingPlaysNothingStreams() {
        let pad = pipeline()
        var s = stream()
        for k in 0..<10 {
            clock.now = 10 + Double(k)
            #expect(s.pass(pad, now: clock.now).isEmpty)
        }
        #expect(!s.isStreaming && s.starts == 0 && s.nextWakeup(pad, now: clock.now) == nil)
    }
}
