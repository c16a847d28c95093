import HapticCore
import Testing

let a = MotorMagnitudes(strong: 10000, weak: 20000)
let b = MotorMagnitudes(strong: 30000, weak: 1000)

/// Whether the pacer gave the pad a new value (a re-send of the current one is not).
func isNewValue(_ w: Pacer.Write?) -> Bool {
    if case .set? = w { return true }
    return false
}

/// A slow pad at full resolution: the pacing mechanics without any driver's quantization.
let slowPad: DeviceProfile = {
    var p = DeviceProfile.generic
    p.minimumUpdateInterval = 0.060
    return p
}()

@Suite struct PacerTests {
    @Test func writesAtMostOncePerInterval() {
        var pacer = Pacer(profile: .generic)  // 10 ms
        #expect(pacer.offer(a, at: 0) == .set(a), "the first frame goes out at once")
        #expect(pacer.offer(b, at: 0.004) == nil)
        #expect(pacer.hasPendingOutput)
        #expect(pacer.nextDeadline == 0.010)
        #expect(pacer.offer(b, at: 0.008) == nil)
        #expect(pacer.offer(b, at: 0.012) == .set(b))
        #expect(!pacer.hasPendingOutput)
        #expect(pacer.nextDeadline == 0.012 + DeviceProfile.maximumHold, "nothing until the held value is re-sent")
        #expect(pacer.offer(.zero, at: 0.030) == .set(.zero))
        #expect(pacer.nextDeadline == nil, "zero is not held: nothing more")
    }

    /// No pad is trusted to hold a value forever (the evdev effect's length is 65.535 s): a value
    /// held for `maximumHold` is sent again, and again after that; a shorter `refreshInterval` wins.
    @Test func aValueHeldLongIsSentAgain() {
        var pacer = Pacer(profile: .generic)
        let hold = DeviceProfile.maximumHold
        #expect(pacer.offer(a, at: 0) == .set(a))
        #expect(pacer.offer(a, at: hold - 0.01) == nil)
        #expect(pacer.offer(a, at: hold) == .refresh(a))
        #expect(pacer.nextDeadline == 2 * hold)
        #expect(pacer.offer(a, at: 2 * hold) == .refresh(a))
        #expect(DeviceProfile.dualShock4.refreshPeriod == 2.0)
        var never = DeviceProfile.generic
        never.refreshInterval = 3600
        #expect(never.refreshPeriod == hold)
    }

    @Test func perProfileIntervals() {
        for profile in DeviceProfile.builtIn {
            var pacer = Pacer(profile: profile)
            _ = pacer.offer(a, at: 0)
            let i = profile.minimumUpdateInterval
            #expect(pacer.offer(b, at: i * 0.9) == nil, "\(profile.name)")
            #expect(pacer.offer(b, at: i) != nil, "\(profile.name)")
        }
    }

    @Test func noWriteWhenNothingChangedAfterQuantization() {
        var pacer = Pacer(profile: .dualSense)  // 8-bit
        #expect(pacer.offer(MotorMagnitudes(strong: 0x1234, weak: 0), at: 0) == .set(MotorMagnitudes(strong: 0x1212, weak: 0)))
        #expect(!isNewValue(pacer.offer(MotorMagnitudes(strong: 0x12FF, weak: 0), at: 0.1)), "the pad could not feel it")
        #expect(!pacer.hasPendingOutput)
        #expect(pacer.offer(MotorMagnitudes(strong: 0x1300, weak: 0), at: 0.2) == .set(MotorMagnitudes(strong: 0x1313, weak: 0)))
        var xbox = Pacer(profile: .xboxBluetooth)  // 0…100, rounded down as hid-microsoft does
        #expect(xbox.offer(MotorMagnitudes(strong: 32768, weak: 0), at: 0) == .set(MotorMagnitudes(strong: 32768, weak: 0)))
        #expect(!isNewValue(xbox.offer(MotorMagnitudes(strong: 33421, weak: 0), at: 0.1)), "still level 50")
        #expect(xbox.offer(MotorMagnitudes(strong: 33423, weak: 0), at: 0.2) == .set(MotorMagnitudes(strong: 33423, weak: 0)), "level 51")
    }

    @Test func onOffMotorsAreWrittenOnlyWhenTheyTurnOnOrOff() {
        // DualShock 3: the weak motor is on from magnitude 256 (hid-sony keeps magnitude / 256).
        var ds3 = Pacer(profile: .dualShock3)
        #expect(ds3.offer(MotorMagnitudes(strong: 0x4000, weak: 255), at: 0) == .set(MotorMagnitudes(strong: 0x4040, weak: 0)))
        #expect(ds3.offer(MotorMagnitudes(strong: 0x4000, weak: 256), at: 0.1) == .set(MotorMagnitudes(strong: 0x4040, weak: 0xFFFF)))
        #expect(!isNewValue(ds3.offer(MotorMagnitudes(strong: 0x4000, weak: 60000), at: 0.2)), "on is on")
        // BigBen: any non-zero weak magnitude turns its motor on.
        var bigben = Pacer(profile: .bigben)
        #expect(bigben.offer(MotorMagnitudes(strong: 0, weak: 1), at: 0) == .set(MotorMagnitudes(strong: 0, weak: 0xFFFF)))
    }

    @Test func switchValuesWithinOneAmplitudeStepAreNotWritten() {
        var pacer = Pacer(profile: .switchProUSB)
        // 29600 and 30000 are the same hid-nintendo step (amplitude 460, magnitudes 29468…30120): the
        // pad could not feel the difference. 30400 is the next step (470).
        #expect(pacer.offer(MotorMagnitudes(strong: 29600, weak: 0), at: 0) == .set(MotorMagnitudes(strong: 30056, weak: 0)))
        #expect(!isNewValue(pacer.offer(MotorMagnitudes(strong: 30000, weak: 0), at: 0.08)))
        #expect(pacer.offer(MotorMagnitudes(strong: 30400, weak: 0), at: 0.16) == .set(MotorMagnitudes(strong: 30710, weak: 0)))
    }

    @Test func aTransientShorterThanTheIntervalIsNotLost() {
        var pacer = Pacer(profile: slowPad)  // 60 ms
        #expect(pacer.offer(a, at: 0) == .set(a))
        let spike = MotorMagnitudes(strong: 60000, weak: 50000)
        #expect(pacer.offer(spike, at: 0.010) == nil)
        #expect(pacer.offer(a, at: 0.030) == nil, "the spike is over before the pad may be written")
        #expect(pacer.offer(a, at: 0.060) == .set(spike), "its peak is written when the interval ends")
        #expect(pacer.hasPendingOutput, "and the current value is still to come")
        #expect(pacer.offer(a, at: 0.120) == .set(a))
    }

    @Test func fallsAndStopsFollowTheLatestValue() {
        var pacer = Pacer(profile: slowPad)
        _ = pacer.offer(b, at: 0)
        #expect(pacer.offer(MotorMagnitudes(strong: 10000, weak: 500), at: 0.01) == nil, "lower on both motors")
        #expect(pacer.offer(.zero, at: 0.02) == nil)
        // Issue 26: the fall is a value the pad never had; the stop may not replace it. It goes out
        // at the interval's end, the stop one interval later.
        #expect(pacer.offer(.zero, at: 0.06) == .set(MotorMagnitudes(strong: 10000, weak: 500)), "the fall is not lost to the stop")
        #expect(pacer.hasPendingOutput)
        #expect(pacer.offer(.zero, at: 0.12) == .set(.zero), "then the stop")
        // A stop is not delayed by values the pad already has, nor by values a newer one replaced.
        _ = pacer.offer(b, at: 1)
        #expect(pacer.offer(MotorMagnitudes(strong: 10000, weak: 500), at: 1.01) == nil)
        #expect(pacer.offer(b, at: 1.02) == nil, "back to what the pad has")
        #expect(pacer.offer(.zero, at: 1.03) == nil)
        #expect(pacer.offer(.zero, at: 1.06) == .set(.zero), "the fall was superseded by a newer value the pad had")
        _ = pacer.offer(b, at: 2)
        #expect(pacer.offer(.zero, at: 2.01) == nil)
        #expect(pacer.offer(.zero, at: 2.06) == .set(.zero), "nothing else came: the stop at the interval's end")
    }

    /// Issue 26: a non-zero value is superseded only by a newer non-zero one, per motor.
    @Test func aValueIsSupersededOnlyByANewerNonZeroValue() {
        var pacer = Pacer(profile: slowPad)
        _ = pacer.offer(MotorMagnitudes(strong: 40000, weak: 40000), at: 0)
        #expect(pacer.offer(MotorMagnitudes(strong: 30000, weak: 30000), at: 0.01) == nil)
        #expect(pacer.offer(MotorMagnitudes(strong: 20000, weak: 0), at: 0.02) == nil, "the weak motor stops")
        #expect(pacer.offer(MotorMagnitudes(strong: 10000, weak: 0), at: 0.03) == nil)
        #expect(pacer.offer(.zero, at: 0.04) == nil)
        // Strong: 30000 and 20000 were replaced by 10000, the newest. Weak: 30000 only by the zero.
        #expect(pacer.offer(.zero, at: 0.06) == .set(MotorMagnitudes(strong: 10000, weak: 30000)))
        #expect(pacer.offer(.zero, at: 0.12) == .set(.zero))
        #expect(!pacer.hasPendingOutput && pacer.nextDeadline == nil)
    }

    /// Issue 26: a value that went by between two renders (`passed`) is written at the next write
    /// opportunity and held there for one interval, even when the output is zero by then.
    @Test func aValueThatWentByUnseenIsWrittenAndHeldOneInterval() {
        for profile in DeviceProfile.builtIn {
            var pacer = Pacer(profile: profile)
            let i = profile.minimumUpdateInterval
            _ = pacer.offer(MotorMagnitudes(strong: 0x8000, weak: 0x8000), at: -i)
            #expect(pacer.offer(.zero, at: 0) == .set(.zero), "\(profile.name)")
            let pulse = pacer.quantized(MotorMagnitudes(strong: 50000, weak: 30000))
            pacer.passed(pulse)
            #expect(pacer.hasPendingOutput, "\(profile.name)")
            #expect(pacer.nextDeadline == i, "\(profile.name)")
            #expect(pacer.offer(.zero, at: i) == .set(pulse), "\(profile.name): written at the interval's end")
            #expect(pacer.offer(.zero, at: i * 1.5) == nil, "\(profile.name): held")
            #expect(pacer.offer(.zero, at: 2 * i) == .set(.zero), "\(profile.name): for one interval")
        }
    }

    @Test func padsThatStopOnTheirOwnAreRefreshed() {
        var profile = DeviceProfile.dualShock4  // refresh every 2 s
        profile.settles = false
        var pacer = Pacer(profile: profile)
        let q = MotorMagnitudes(strong: 0x4040, weak: 0x8080)
        #expect(pacer.offer(q, at: 0) == .set(q))
        #expect(pacer.nextDeadline == 2.0)
        #expect(pacer.offer(q, at: 1.0) == nil)
        #expect(pacer.offer(q, at: 2.0) == .refresh(q))
        #expect(pacer.offer(.zero, at: 2.5) == .set(.zero))
        #expect(pacer.nextDeadline == nil, "nothing to refresh while stopped")
        var generic = Pacer(profile: .generic)
        _ = generic.offer(q, at: 0)
        #expect(generic.offer(q, at: 10) == nil, "pads that keep going are not refreshed")
    }

    /// ff-memless can lose an in-place update (its timer may send the old values); a settling profile
    /// sends the last value of a burst once more, two intervals after it was written — a zero one.
    @Test func theLastValueOfABurstIsSentOnceMore() {
        var settling = DeviceProfile.dualSense  // played values do not settle, so it is set here
        settling.minimumUpdateInterval = 0.008
        settling.settles = true
        var pacer = Pacer(profile: settling)
        #expect(pacer.offer(a, at: 0) == .set(pacer.quantized(a)))
        #expect(pacer.nextDeadline == 0.016)
        #expect(pacer.offer(a, at: 0.004) == nil)
        #expect(pacer.offer(b, at: 0.008) == .set(pacer.quantized(b)), "a change moves the re-send")
        #expect(pacer.offer(b, at: 0.016) == nil)
        #expect(pacer.offer(b, at: 0.024) == .refresh(pacer.quantized(b)))
        #expect(pacer.nextDeadline == 0.024 + DeviceProfile.maximumHold, "once (then only the hold's re-send)")
        #expect(pacer.offer(b, at: 1) == nil)
        #expect(pacer.offer(.zero, at: 1.1) == .set(.zero))
        #expect(pacer.offer(.zero, at: 1.108) == .refresh(.zero), "zero too, one interval after it: where it is uploaded, the device sends it again")
        var generic = Pacer(profile: .generic)
        _ = generic.offer(a, at: 0)
        #expect(generic.nextDeadline == DeviceProfile.maximumHold && generic.offer(a, at: 1) == nil, "profiles that do not settle do not")
    }

    /// The re-send waits two intervals: updates that come within two intervals of each other (a
    /// 60 fps game on a 10 ms profile) have none between them, and at 30 fps the re-send falls where
    /// the next value still finds the link free — each value goes out when it comes. After a
    /// re-send the next value waits an interval, as after any write.
    @Test func theReSendDoesNotHoldBackAGamesStream() {
        var settling = DeviceProfile.dualSense
        settling.minimumUpdateInterval = 0.010
        settling.settles = true
        for period in [0.016, 1.0 / 30] {
            var pacer = Pacer(profile: settling)
            var writes: [(Double, Pacer.Write)] = []
            var t = 0.0
            for k in 0..<20 {
                let v = MotorMagnitudes(strong: UInt16(10_000 + 2_000 * k), weak: UInt16(10_000 + 2_000 * k))
                // The loop offers at each command and at each of the pacer's deadlines before the next.
                if let w = pacer.offer(v, at: t) { writes.append((t, w)) }
                let next = t + period
                while let d = pacer.nextDeadline, d < next - 1e-9 {
                    if let w = pacer.offer(v, at: max(d, t)) { writes.append((max(d, t), w)) }
                    if pacer.nextDeadline == d { break }
                }
                t = next
            }
            let sets = writes.filter { if case .set = $0.1 { true } else { false } }
            #expect(sets.count == 20, "\(period): every value written when it came: \(writes)")
            for (k, w) in sets.enumerated() { #expect(abs(w.0 - Double(k) * period) < 1e-9, "\(period): value \(k) at \(w.0)") }
            let resends = writes.count - sets.count
            #expect(resends == (period < 0.020 ? 0 : 20), "\(period): \(resends) re-sends, one after each value")
        }
        var pacer = Pacer(profile: settling)
        _ = pacer.offer(a, at: 0)
        #expect(pacer.offer(a, at: 0.020) == .refresh(pacer.quantized(a)))
        #expect(pacer.offer(b, at: 0.025) == nil)
        #expect(pacer.nextDeadline == 0.030, "an interval after the re-send")
        #expect(pacer.offer(b, at: 0.030) == .set(pacer.quantized(b)))
    }
}

@Suite struct PadPipelineTests {
    @Test func gainScalesAndTheLoopIsToldWhenToTick() throws {
        let clock = ManualClock()
        let engine = HapticEngine(clock: clock)
        let pipeline = PadPipeline(engine: engine)
        #expect(!pipeline.needsTicks)
        #expect(pipeline.nextWakeup == nil, "idle: no wakeups at all")
        engine.start()
        pipeline.gain = 0.5
        let p = engine.makePlayer(strongPattern(duration: 0.1))
        try engine.start(p)
        #expect(pipeline.needsTicks)
        #expect(pipeline.tick() == .set(MotorMagnitudes(strong: 32767, weak: 0)))
        clock.now = 0.105
        #expect(pipeline.tick() == .set(.zero))
        #expect(!pipeline.needsTicks)
        #expect(pipeline.nextWakeup == nil)
    }

    @Test func theFinalZeroIsWrittenEvenWhenItMustWait() throws {
        let clock = ManualClock()
        let engine = HapticEngine(profile: slowPad, clock: clock)
        let pipeline = PadPipeline(engine: engine)
        engine.start()
        try engine.start(engine.makePlayer(strongPattern(duration: 0.01)))
        #expect(pipeline.tick() != nil)
        clock.now = 0.02
        #expect(pipeline.tick() == nil, "stopped, but the pad may not be written yet")
        #expect(pipeline.needsTicks, "so the loop keeps ticking")
        clock.now = 0.06
        #expect(pipeline.tick() == .set(.zero))
        #expect(!pipeline.needsTicks)
    }
}

/// An onset a command wrote from silence, corrected at once by the commands right after it (a start,
/// then the intensity it plays at, a second player's start): within half an interval, up to three
/// times, only by commands, never below the pad's level but by the start's own parameters, only on
/// pads whose interval is the driver's.
@Suite struct OnsetCorrectionTests {
    /// `a` with more on both motors (a second player's start).
    let more = MotorMagnitudes(strong: 30000, weak: 25000)

    @Test func aCommandRightAfterAnOnsetFromSilenceIsWrittenAtOnce() {
        var pacer = Pacer(profile: .generic)  // 10 ms: corrections within 5 ms
        #expect(DeviceProfile.generic.onsetCorrectionWindow == 0.005)
        #expect(pacer.offer(a, at: 0, command: true) == .set(a))
        #expect(pacer.offer(more, at: 0.0002, command: true) == .set(more), "a second start, a round trip later")
        var lowered = Pacer(profile: .generic)
        #expect(lowered.offer(a, at: 0, command: true) == .set(a))
        #expect(lowered.offer(b, at: 0.0002, command: true, adjustedFrom: a) == .set(b), "the start's intensity, a round trip later")
        #expect(pacer.nextWriteTime(from: 0.0002) >= 0.0102 - 1e-6, "and the interval runs from the correction")
        // The same change from the pattern itself (a timer's pass) waits: a transient's pulse is not cut.
        var timer = Pacer(profile: .generic)
        #expect(timer.offer(a, at: 0, command: true) == .set(a))
        #expect(timer.offer(more, at: 0.0002) == nil)
    }

    @Test func onlyWithinHalfAnIntervalAndOnlyToANonZeroValue() {
        var late = Pacer(profile: .generic)
        #expect(late.offer(a, at: 0, command: true) == .set(a))
        #expect(late.offer(more, at: 0.006, command: true) == nil, "after half an interval the pad waits for its interval")
        #expect(late.offer(more, at: 0.010, command: true) == .set(more))
        var stop = Pacer(profile: .generic)
        #expect(stop.offer(a, at: 0, command: true) == .set(a))
        #expect(stop.offer(.zero, at: 0.0002, command: true) == nil, "a stop keeps the minimum on-time")
        #expect(stop.offer(.zero, at: 0.010) == .set(.zero))
        // Nor one motor: the strong one's onset is felt for its interval, the weak one's comes with it.
        var handOver = Pacer(profile: .generic)
        #expect(handOver.offer(MotorMagnitudes(strong: 65535, weak: 0), at: 0, command: true) != nil)
        #expect(handOver.offer(MotorMagnitudes(strong: 0, weak: 19661), at: 0.0002, command: true) == nil)
        #expect(handOver.offer(MotorMagnitudes(strong: 0, weak: 19661), at: 0.010) == .set(MotorMagnitudes(strong: 0, weak: 19661)))
    }

    @Test func anOnsetIsFromSilenceAndHasAtMostThreeCorrections() {
        var pacer = Pacer(profile: .generic)
        #expect(pacer.offer(a, at: 0, command: true) == .set(a))
        var values: [MotorMagnitudes] = []
        for k in 1...5 {
            let v = MotorMagnitudes(strong: UInt16(10000 + 1000 * k), weak: 20000)
            if case .set(let w)? = pacer.offer(v, at: 0.0001 * Double(k), command: true) { values.append(w) }
        }
        #expect(values.count == Pacer.maximumOnsetCorrections, "\(values)")
        // A change of a value already playing is no onset: it waits for the interval.
        var playing = Pacer(profile: .generic)
        #expect(playing.offer(a, at: 0) == .set(a))
        #expect(playing.offer(b, at: 0.010, command: true) == .set(b))
        #expect(playing.offer(a, at: 0.0102, command: true) == nil)
    }

    /// A player's own parameters right after its start set the level it plays at: they may lower or
    /// silence a motor the onset turned on (a start, then its intensity to 0, or a sharpness that
    /// moves it to the other motor) — where the output just before them still had the pad's level.
    @Test func theStartsOwnParametersMayLowerAMotor() {
        let full = MotorMagnitudes(strong: 46340, weak: 46340)
        var moved = Pacer(profile: .generic)
        #expect(moved.offer(full, at: 0, command: true) == .set(full))
        #expect(moved.offer(MotorMagnitudes(strong: 0, weak: 45874), at: 0.0003, command: true, adjustedFrom: full)
            == .set(MotorMagnitudes(strong: 0, weak: 45874)))
        var silenced = Pacer(profile: .generic)
        #expect(silenced.offer(full, at: 0, command: true) == .set(full))
        #expect(silenced.offer(.zero, at: 0.0003, command: true, adjustedFrom: full) == .set(.zero))
        // Not from the pattern itself, nor after the window, nor by another command.
        var later = Pacer(profile: .generic)
        #expect(later.offer(full, at: 0, command: true) == .set(full))
        #expect(later.offer(.zero, at: 0.0003, adjustedFrom: full) == nil)
        #expect(later.offer(.zero, at: 0.006, command: true, adjustedFrom: full) == nil)
        var other = Pacer(profile: .generic)
        #expect(other.offer(full, at: 0, command: true) == .set(full))
        #expect(other.offer(MotorMagnitudes(strong: 8000, weak: 46340), at: 0.004, command: true) == nil, "a weaker value keeps the interval")
    }

    /// Parameters sent when the pulse had already ended by itself (another player's, another
    /// connection's) did not lower it: the pulse keeps its interval (a review's case).
    @Test func parametersDoNotCutAPulseThatEndedByItself() {
        let pulse = MotorMagnitudes(strong: 52428, weak: 39321)
        var pacer = Pacer(profile: .generic)
        #expect(pacer.offer(pulse, at: 11, command: true) == .set(pulse))
        #expect(pacer.offer(.zero, at: 11.002) == nil, "the 2 ms pulse's end waits")
        #expect(pacer.offer(.zero, at: 11.003, command: true, adjustedFrom: .zero) == nil, "the parameters changed nothing")
        #expect(pacer.offer(.zero, at: 11.010) == .set(.zero))
    }

    /// A correction keeps what the window holds: the pattern's own burst between the onset and the
    /// correction goes out with it, not lost (a review's case).
    @Test func aCorrectionKeepsTheWindowsPeak() {
        let base = MotorMagnitudes(strong: 20000, weak: 0)
        var pacer = Pacer(profile: .generic)
        #expect(pacer.offer(base, at: 0, command: true) == .set(base))
        #expect(pacer.offer(MotorMagnitudes(strong: 20000, weak: 40000), at: 0.001) == nil)
        #expect(pacer.offer(base, at: 0.002) == nil)
        #expect(pacer.offer(MotorMagnitudes(strong: 15000, weak: 0), at: 0.003, command: true, adjustedFrom: base)
            == .set(MotorMagnitudes(strong: 15000, weak: 40000)), "the burst's peak with the lowered level")
    }

    /// An onset, silenced and started again and again by commands: a correction that silences the
    /// pad ends the onset, so the pad gets about one write an interval, not four (a review's case).
    @Test func aSilencedOnsetIsOver() {
        var pacer = Pacer(profile: .generic)
        let a = MotorMagnitudes(strong: 30000, weak: 30000)
        var n = 0, t = 0.0
        while t < 0.1 {
            if pacer.offer(a, at: t, command: true) != nil { n += 1 }
            if pacer.offer(.zero, at: t + 0.0001, command: true, adjustedFrom: a) != nil { n += 1 }
            if pacer.offer(a, at: t + 0.0002, command: true) != nil { n += 1 }
            if pacer.offer(.zero, at: t + 0.0003, command: true, adjustedFrom: a) != nil { n += 1 }
            t += 0.0101
        }
        #expect(n <= 20, "\(n) writes in 100 ms on a 10 ms pad")
    }

    /// The same through the pipeline: a 2 ms rumble from silence, then parameters to another
    /// player that change nothing: the rumble is held its interval (a review's case; before the
    /// output before the command was looked at, it was cut at 3 ms).
    @Test func anotherPlayersParametersDoNotCutAShortRumble() throws {
        let clock = ManualClock(10)
        let engine = HapticEngine(profile: .generic, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        let idle = engine.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 0))]), advanced: true)
        try engine.start(idle)
        _ = pipe.tick(timer: true)
        var writes: [(Double, MotorMagnitudes)] = []
        func record(_ w: Pacer.Write?) { if case .set(let m)? = w { writes.append((clock.now, m)) } }
        clock.now = 11
        pipe.catchUp()
        pipe.sampleBeforeCommand()
        try engine.start(engine.makeRumble(strong: 0.8, weak: 0.6, duration: 0.002))
        record(pipe.tick(command: true))
        clock.now = 11.002 + 1e-6
        record(pipe.tick(sampleBefore: true, timer: true))
        clock.now = 11.003
        pipe.catchUp()
        pipe.sampleBeforeCommand()
        try engine.sendParameters([(.hapticIntensityControl, 1)], to: idle)
        record(pipe.tick(sampleBefore: true, command: true, adjusting: true))
        for k in 1...10 {
            clock.now = 11.003 + Double(k) * 0.002
            record(pipe.tick(sampleBefore: true, timer: true))
        }
        guard let on = writes.first(where: { !$0.1.isZero }), let off = writes.first(where: { $0.1.isZero }) else {
            Issue.record("\(writes)")
            return
        }
        #expect(off.0 - on.0 >= 0.010 - 1e-6, "held \(off.0 - on.0) s: \(writes)")
    }

    /// Where the interval is a link's or a driver's own limit, no report is added.
    @Test func padsPacedByTheirLinkAreNotCorrected() {
        for profile in DeviceProfile.builtIn + DeviceProfile.hidrawBuiltIn {
            #expect((profile.onsetCorrectionWindow > 0) == (profile.minimumUpdateInterval <= 0.016), "\(profile.name)")
        }
        #expect(DeviceProfile.switchProBluetoothHD.onsetCorrectionWindow == 0)
        var pacer = Pacer(profile: .switchProBluetoothHD)
        #expect(pacer.offer(a, at: 0, command: true) != nil)
        #expect(pacer.offer(b, at: 0.0002, command: true) == nil)
    }
}
