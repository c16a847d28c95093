import HapticCore
import Testing

/// Issue 26 §1, "nothing lost", on the manual clock: a non-zero value is never coalesced away in
/// favour of a later value before the pad has carried it. A pulse shorter than the pad's interval is
/// held for one interval (the minimum on-time); a ramp value is superseded only by a newer non-zero
/// value. Every built-in profile; single pulses of 10, 30 and 60 ms and ramps of an update every 16 ms;
/// both loops (event-driven as the render loop runs it, and the fixed 4 ms tick), with commands
/// arriving as the daemon's socket delivers them.
@Suite struct NothingLostTests {
    static let pulses = [0.010, 0.030, 0.060]

    /// Something that happens to the engine at a time: a command, as the daemon applies it.
    struct Command {
        var time: Double
        /// How long after the command its render pass comes, beyond the run's `commandCost` (the
        /// daemon's thread preempted between the two, as on a loaded machine).
        var passLate: Double = 0
        var apply: (HapticEngine) throws -> Void
    }

    enum Loop: CaseIterable { case event, fixed }

    /// Runs `commands` through a pad's pipeline as the render loop would: each command renders and
    /// paces at once (`perform`), and between commands the loop wakes by itself — `event`: at
    /// `nextWakeup(now:)` (+1 µs, as the loop arms it); `fixed`: every 4 ms from the start while
    /// anything plays or waits. Returns every new value written, with its time.
    /// `commandCost`: how long a command takes between its catch-up and its render pass (the clock
    /// moves meanwhile, as it does for the daemon: ~0.1 ms natively, 1–2 ms under TCG), half of it
    /// before the command reaches the engine (the handler's work after it touched the pad) and half
    /// after.
    static func run(_ profile: DeviceProfile, _ loop: Loop, _ commands: [Command], start: Double = 10, commandCost: Double = 0,
                    route: MotorRoute = .both) throws -> [(time: Double, value: MotorMagnitudes)]
    {
        let clock = ManualClock(start)
        let engine = HapticEngine(profile: profile, clock: clock, route: route)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        var writes: [(time: Double, value: MotorMagnitudes)] = []
        func record(_ w: Pacer.Write?) { if case .set(let m)? = w { writes.append((clock.now, m)) } }
        var pending = commands.sorted { $0.time < $1.time }
        var k = 1
        for _ in 0..<1_000_000 {
            let wake: Double?
            switch loop {
            case .event: wake = pipe.nextWakeup(now: clock.now).map { $0 + 1e-6 }
            case .fixed:
                if pipe.needsTicks {
                    while start + Double(k) * 0.004 <= clock.now { k += 1 }
                    wake = start + Double(k) * 0.004
                } else {
                    wake = pipe.nextWakeup
                }
            }
            if let c = pending.first, wake == nil || c.time <= wake! {
                pending.removeFirst()
                clock.now = max(clock.now, c.time)
                pipe.catchUp()  // as the render loop does when a command reaches the pad
                clock.now += commandCost / 2
                try c.apply(engine)
                clock.now += commandCost / 2 + c.passLate
                record(pipe.tick())
            } else if let w = wake {
                clock.now = max(clock.now, w)
                record(pipe.tick(sampleBefore: loop == .event, timer: true))
            } else {
                break
            }
        }
        return writes
    }

    /// A prime (a 1 ms rumble at `start`: the pacer writes it, then its zero, then — on settling
    /// profiles — re-sends the zero) and, `delay` after it, the pulse under test: a window where the
    /// pad is at rest and the pacer may be closed, at every phase of the interval.
    static func delays(_ profile: DeviceProfile) -> [Double] {
        let i = profile.minimumUpdateInterval
        return (0..<16).map { i + Double($0) * i / 8 }
    }

    static let strong = 0.8, weak = 0.6
    static var prime: Command { Command(time: 10) { e in try e.start(e.makeRumble(strong: 0.3, weak: 0.3, duration: 0.001)) } }

    /// What the pacer makes of a rumble of `strong`/`weak` on `profile`.
    static func value(_ profile: DeviceProfile) -> MotorMagnitudes {
        profile.quantize(MotorMagnitudes(strong: UInt16((strong * 65535).rounded()), weak: UInt16((weak * 65535).rounded())))
    }

    /// The pulse `[s, s + d)` of value `v` reached the pad: the first write from `s` on that is not
    /// zero is `v`, made within one interval (plus the loop's `slack`) of `s`; the zero that follows
    /// comes no sooner than one interval after it (the minimum on-time) nor before the pulse's end;
    /// the pad ends at rest. Returns what is wrong, or nil.
    static func judge(
        _ writes: [(time: Double, value: MotorMagnitudes)], pulse s: Double, length d: Double, value v: MotorMagnitudes,
        _ profile: DeviceProfile, slack: Double
    ) -> String? {
        let i = profile.minimumUpdateInterval
        guard let k = writes.firstIndex(where: { $0.time >= s - 1e-9 && !$0.value.isZero }) else {
            return "never written (writes: \(writes.map { "\($0.time - s) \($0.value)" }))"
        }
        let w = writes[k]
        if w.value != v { return "wrote \(w.value), not \(v), at +\(w.time - s)" }
        if w.time > s + i + slack { return "written \(w.time - s) s after it began, more than an interval" }
        guard k + 1 < writes.count, writes[k + 1].value.isZero else {
            return "not followed by a stop (writes: \(writes.map { "\($0.time - s) \($0.value)" }))"
        }
        let held = writes[k + 1].time - w.time
        if held < i - 2e-6 { return "held \(held) s, less than the \(i) s interval" }
        if writes[k + 1].time < s + d - 2e-6 { return "stopped at +\(writes[k + 1].time - s), before its end" }
        if writes.last?.value.isZero != true { return "the pad is left at \(writes.last!.value)" }
        return nil
    }

    static func slack(_ loop: Loop) -> Double { loop == .event ? 1e-5 : 0.004 + 1e-5 }

    /// A rumble that ends by its own duration (the loop wakes for its end).
    @Test(arguments: DeviceProfile.builtIn)
    func aRumblePulseEndingByItselfReachesThePad(profile: DeviceProfile) throws {
        for loop in Loop.allCases {
            for d in Self.pulses {
                for delay in Self.delays(profile) {
                    let s = 10 + delay
                    let pulse = Command(time: s) { e in try e.start(e.makeRumble(strong: Self.strong, weak: Self.weak, duration: d)) }
                    let writes = try Self.run(profile, loop, [Self.prime, pulse])
                    if let wrong = Self.judge(writes, pulse: s, length: d, value: Self.value(profile), profile, slack: Self.slack(loop)) {
                        Issue.record("\(profile.name), \(loop) loop, \(Int(d * 1000)) ms rumble \(delay) s after the prime: \(wrong)")
                    }
                }
            }
        }
    }

    /// A pulse whose command's render pass comes after the pulse has ended — the daemon's thread
    /// preempted between the command and its pass, as on a loaded machine (a 10 ms pulse lost that
    /// way in a CI run of the VM's ds4-usb): the pulse still reaches the pad, at that pass or when the
    /// pad may next be written, for one interval. A rumble and a pattern's own short event, with
    /// commands that take no time and ones that take 1 ms (the clock moving before the command
    /// reaches the engine, as the handler works).
    @Test(arguments: DeviceProfile.builtIn)
    func aPulseWhosePassComesAfterItsEndReachesThePad(profile: DeviceProfile) throws {
        let i = profile.minimumUpdateInterval
        for loop in Loop.allCases {
            for d in Self.pulses {
                for cost in [0, 0.001] {
                    for late in [d + 0.002, d + i, 2 * d + 0.015] {
                        let s = 10 + 2 * i + 0.001
                        let rumble = Command(time: s, passLate: late) { e in
                            try e.start(e.makeRumble(strong: Self.strong, weak: Self.weak, duration: d))
                        }
                        let event = HapticPattern(elements: [.event(.continuous(at: 0, duration: d, intensity: 1, sharpness: 0))])
                        let pattern = Command(time: s, passLate: late) { e in try e.start(e.makePlayer(event)) }
                        for (what, pulse) in [("rumble", rumble), ("pattern", pattern)] {
                            let writes = try Self.run(profile, loop, [Self.prime, pulse], commandCost: cost)
                            let after = writes.filter { $0.time >= s }
                            let label = "\(profile.name), \(loop) loop, \(Int(d * 1000)) ms \(what), command \(cost) s, its pass \(late) s late"
                            guard let k = after.firstIndex(where: { !$0.value.isZero }) else {
                                Issue.record("\(label): never written (writes: \(after.map { "\($0.time - s) \($0.value)" }))")
                                continue
                            }
                            let pass = s + cost + late
                            #expect(after[k].time >= pass - 1e-9 && after[k].time <= pass + i + Self.slack(loop),
                                    "\(label): written at the pass, or when the pad may next be written (+\(after[k].time - pass))")
                            if what == "rumble" { #expect(after[k].value == Self.value(profile), "\(label): its value") }
                            #expect(k + 1 < after.count && after[k + 1].value.isZero && after[k + 1].time - after[k].time >= i - 2e-6,
                                    "\(label): held an interval, then stopped")
                        }
                    }
                }
            }
        }
    }

    /// A command that does not advance the engine (`sendParameters`, an in-place rumble) after
    /// other players' scheduled stops fell due but before the loop applied them (between two fixed
    /// ticks; the command's catch-up stopped short of them, both motors running then), its pass held
    /// up past the end of the 8 ms pulse it made: the walk from the command first applies what was
    /// due before it (else a stale stop, still the engines' next change, ended the walk before it
    /// began).
    @Test(arguments: DeviceProfile.builtIn)
    func aPulseAfterUnappliedDueStopsStillReachesThePad(profile: DeviceProfile) throws {
        for loop in Loop.allCases {
            let s = 10.1005  // between two fixed ticks (10.100, 10.104)
            let tone = HapticPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0))])
            let pulse = HapticPattern(elements: [.event(.continuous(at: 0, duration: s + 0.010 - 10, intensity: 1, sharpness: 0))])
            nonisolated(unsafe) var made: PlayerID?
            let setUp = Command(time: 10) { e in
                // A rumble on both motors until s + 5 ms, two silent players stopped at s + 0.8 and
                // s + 1.2 ms, and one made audible for 8 ms by a parameter at s + 2 ms.
                try e.start(e.makeRumble(strong: 0.3, weak: 0.3, duration: s + 0.005 - 10))
                for stop in [s + 0.0008, s + 0.0012] {
                    let silent = e.makePlayer(tone, advanced: true)
                    try e.sendParameters([(.hapticIntensityControl, 0)], to: silent)
                    try e.start(silent)
                    try e.stop(silent, at: .at(stop))
                }
                made = e.makePlayer(pulse, advanced: true)
                try e.sendParameters([(.hapticIntensityControl, 0)], to: made!)
                try e.start(made!)
            }
            let raise = Command(time: s + 0.002, passLate: 0.013) { e in try e.sendParameters([(.hapticIntensityControl, 1)], to: made!) }
            let writes = try Self.run(profile, loop, [setUp, raise])
            let label = "\(profile.name), \(loop) loop"
            let before = try #require(writes.last { $0.time < s }, "\(label): the rumble, written").value
            #expect(writes.contains { $0.time >= s + 0.002 && $0.value.strong > before.strong },
                    "\(label): the 8 ms pulse reaches the pad over the rumble (writes: \(writes.map { "\($0.time - s) \($0.value)" }))")
            #expect(writes.last?.value.isZero == true, "\(label): then rest")
        }
    }

    /// A rumble stopped by a command (`rumble` 0/0: the player is destroyed), as a game stops it.
    @Test(arguments: DeviceProfile.builtIn)
    func aRumblePulseStoppedByACommandReachesThePad(profile: DeviceProfile) throws {
        for loop in Loop.allCases {
            for d in Self.pulses {
                for delay in Self.delays(profile) {
                    let s = 10 + delay
                    nonisolated(unsafe) var id: PlayerID?
                    let play = Command(time: s) { e in
                        id = try e.makeRumble(strong: Self.strong, weak: Self.weak, duration: 5)
                        try e.start(id!)
                    }
                    let stop = Command(time: s + d) { e in try e.destroyPlayer(id!) }
                    let writes = try Self.run(profile, loop, [Self.prime, play, stop])
                    if let wrong = Self.judge(writes, pulse: s, length: d, value: Self.value(profile), profile, slack: Self.slack(loop)) {
                        Issue.record("\(profile.name), \(loop) loop, \(Int(d * 1000)) ms rumble stopped by a command \(delay) s after the prime: \(wrong)")
                    }
                }
            }
        }
    }

    /// A pulse inside a pattern: no command marks it, and it may begin and end while the loop sleeps
    /// until the pacer's interval is over: a loop that woke only at the interval's end would miss it.
    @Test(arguments: DeviceProfile.builtIn)
    func aPatternsOwnPulseReachesThePadWhileTheLoopSleeps(profile: DeviceProfile) throws {
        for loop in Loop.allCases {
            for d in Self.pulses {
                for delay in Self.delays(profile) {
                    let pattern = HapticPattern(elements: [
                        .event(.continuous(at: 0, duration: 0.001, intensity: 0.3, sharpness: 0)),
                        .event(.continuous(at: delay, duration: d, intensity: 0.8, sharpness: 0)),
                    ])
                    // The pulse's value, as the pacer will quantize it: the render at its middle.
                    let probeClock = ManualClock(10)
                    let probe = HapticEngine(profile: profile, clock: probeClock)
                    probe.start()
                    try probe.start(probe.makePlayer(pattern))
                    probeClock.now = 10 + delay + d / 2
                    let v = profile.quantize(probe.render())
                    #expect(!v.isZero)
                    let writes = try Self.run(profile, loop, [Command(time: 10) { e in try e.start(e.makePlayer(pattern)) }])
                    if let wrong = Self.judge(writes, pulse: 10 + delay, length: d, value: v, profile, slack: Self.slack(loop)) {
                        Issue.record("\(profile.name), \(loop) loop, \(Int(d * 1000)) ms pulse \(delay) s into a pattern: \(wrong)")
                    }
                }
            }
        }
    }

    /// A game's ramp: a new `rumble` every 16 ms (each replaces the one before), then 0/0. Every
    /// write is a value of the ramp, in order; a value not written was replaced by the next before
    /// the pacer could write anything (no write fell between the two commands); the last value is
    /// written, before the stop. Where the interval is shorter than 16 ms, that is every value.
    @Test(arguments: DeviceProfile.builtIn)
    func aRampValueIsSupersededOnlyByANewerNonZeroValue(profile: DeviceProfile) throws {
        let steps = 31
        for loop in Loop.allCases {
            for (rising, inPlace) in [(true, false), (false, false), (true, true), (false, true)] {
                for phase in [0.0, 0.003, 0.0071, 0.0113] {
                    let start = 10 + phase
                    nonisolated(unsafe) var current: PlayerID?
                    var commands: [Command] = []
                    var values: [MotorMagnitudes] = []
                    for k in 0..<steps {
                        let x = 0.2 + 0.7 * Double(rising ? k : steps - 1 - k) / Double(steps - 1)
                        let m = MotorMagnitudes(strong: UInt16((x * 65535).rounded()), weak: UInt16((x * 65535).rounded()))
                        values.append(profile.quantize(m))
                        commands.append(Command(time: start + Double(k) * 0.016) { e in
                            // The daemon changes a playing rumble in place; a new player each time
                            // is the other way a value reaches the pacer.
                            if inPlace, let id = current, try e.updateRumble(id, strong: x, weak: x, duration: 5) { return }
                            if let id = current { try e.destroyPlayer(id) }
                            current = try e.makeRumble(strong: x, weak: x, duration: 5)
                            try e.start(current!)
                        })
                    }
                    commands.append(Command(time: start + Double(steps) * 0.016) { e in
                        if let id = current { try e.destroyPlayer(id) }
                        current = nil
                    })
                    let writes = try Self.run(profile, loop, commands)
                    let label = "\(profile.name), \(loop) loop, \(rising ? "rising" : "falling") ramp at +\(phase)\(inPlace ? ", in place" : "")"
                    #expect(writes.last?.value.isZero == true, "\(label): ends at rest")
                    // Every write but the final stop is a ramp value, in order.
                    var index = 0
                    for w in writes.dropLast() {
                        guard let j = values[index...].firstIndex(of: w.value) else {
                            Issue.record("\(label): wrote \(w.value) at +\(w.time - start), not the ramp's next values")
                            break
                        }
                        index = j
                    }
                    var missed = 0
                    for k in 0..<steps where k == 0 || values[k] != values[k - 1] {
                        let from = commands[k].time
                        let to = k + 1 < steps ? commands[k + 1].time : .infinity
                        let written = writes.contains { $0.time >= from && $0.time < to + 1 && $0.value == values[k] }
                        guard !written else { continue }
                        missed += 1
                        if k == steps - 1 {
                            Issue.record("\(label): the last value was lost to the stop")
                        } else if writes.contains(where: { $0.time >= from && $0.time < to }) {
                            Issue.record("\(label): value \(k) was not written, though the pad was written before the next came")
                        }
                    }
                    if profile.minimumUpdateInterval < 0.016 {
                        #expect(missed == 0, "\(label): \(missed) values not written")
                    }
                }
            }
        }
    }

    /// A pattern with a 2 ms pulse 2 ms in.
    static let shortPulse = HapticPattern(elements: [.event(.continuous(at: 0.002, duration: 0.002, intensity: 0.8, sharpness: 0))])

    /// A pad at 10 s given `shortPulse` by a command, and rendered then (silent: the pulse is to come).
    static func shortPulseRendered() throws -> (ManualClock, PadPipeline) {
        let clock = ManualClock(10)
        let engine = HapticEngine(profile: .generic, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        pipe.catchUp()
        try engine.start(engine.makePlayer(Self.shortPulse))
        #expect(pipe.tick() == nil, "silent until 2 ms in")
        return (clock, pipe)
    }

    /// Several commands under one lock re-arm every pad at the last one's time: a pad drawn by an
    /// earlier step, whose pulse began and ended between its own pass and that time, still gets the
    /// pulse at the next wake (the walk from its own pass).
    @Test func aPadRearmedAfterALaterStepStillWalksFromItsOwnPass() throws {
        let (clock, pipe) = try Self.shortPulseRendered()
        clock.now = 10.010  // the last step's time: the pulse has come and gone
        let wake = try #require(pipe.nextWakeup(now: clock.now))
        clock.now = max(clock.now, wake)
        let write = pipe.tick(sampleBefore: true, timer: true)
        #expect(write.map { if case .set(let m) = $0 { !m.isZero } else { false } } == true, "the pulse, at the first wake: \(String(describing: write))")
    }

    /// A pad at 10 s on an 8 ms profile given a 1 ms prime (written at once: the pad may not be
    /// written again before 10.008) and a 2 ms pulse at 10.004 by one pattern; the loop told when to
    /// wake (the pacer's next opportunity, past the pulse).
    static func primeThenPulse() throws -> (ManualClock, PadPipeline, wake: Double) {
        let clock = ManualClock(10)
        let engine = HapticEngine(profile: .dualShock3, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        pipe.catchUp()
        try engine.start(engine.makePlayer(HapticPattern(elements: [
            .event(.continuous(at: 0, duration: 0.001, intensity: 0.3, sharpness: 0)),
            .event(.continuous(at: 0.004, duration: 0.002, intensity: 0.8, sharpness: 0)),
        ])))
        #expect(pipe.tick().map { if case .set(let m) = $0 { !m.isZero } else { false } } == true, "the prime, at once")
        let wake = try #require(pipe.nextWakeup(now: clock.now))
        #expect(wake >= 10.008 - 1e-6, "the pad's next write opportunity, past the pulse")
        return (clock, pipe, wake)
    }

    /// A command that only reads the pad (`status`) between the loop's deferral of a breakpoint and
    /// the wake: the wake still walks what it slept through (the read's catch-up ends nothing).
    @Test func aReadBetweenADeferralAndItsWakeDoesNotLoseThePulse() throws {
        let (clock, pipe, wake) = try Self.primeThenPulse()
        clock.now = 10.003
        pipe.catchUp()  // a read-only command touched the pad: no render, no re-arm
        clock.now = wake + 1e-6
        let write = pipe.tick(sampleBefore: true, timer: true)
        #expect(write.map { if case .set(let m) = $0 { m.strong > 0x4000 } else { false } } == true, "the 2 ms pulse: \(String(describing: write))")
    }

    /// A read of the pad (`engine.status`: its catch-up, no render) after a player's end the timer
    /// has not rendered yet, then a re-arm for another pad's sake (a command there, the same lock):
    /// the pad is due at once and its next render writes the zero. The catch-up ended the player, so
    /// the engines have no next change; the wake was the pacer's refresh of the old value 30 s on
    /// (the soak test found a motor left running that way).
    @Test(arguments: [DeviceProfile.generic, .dualShock4])
    func aReadAfterAnEndThenAReArmStillWritesTheZero(profile: DeviceProfile) throws {
        let clock = ManualClock(10)
        let engine = HapticEngine(profile: profile, clock: clock)
        engine.start()
        let pipe = PadPipeline(engine: engine)
        pipe.catchUp()
        try engine.start(engine.makePlayer(HapticPattern(elements: [.event(.continuous(at: 0, duration: 0.05, intensity: 0.5, sharpness: 0))])))
        let on = try #require(pipe.tick(command: true))
        #expect(on != .set(.zero), "the rumble, at once")
        let end = try #require(pipe.nextWakeup(now: clock.now))
        #expect(abs(end - 10.05) < 1e-6, "armed for its end")
        clock.now = 10.06  // the timer is late: a socket thread has the lock first
        pipe.catchUp()  // a read-only command touched the pad
        #expect(!engine.isPlaying, "the read's catch-up ended the player")
        #expect(pipe.needsTicks, "a fixed tick keeps ticking until a render offers the zero")
        clock.now = 10.061  // another pad's command re-arms every pad
        let wake = try #require(pipe.nextWakeup(now: clock.now), "a wake for the pad")
        #expect(wake <= clock.now, "due at once, not at the refresh: \(wake)")
        clock.now = max(clock.now, wake)
        #expect(pipe.tick(sampleBefore: true, timer: true) == .set(.zero))
        #expect(pipe.nextWakeup(now: clock.now).map { $0 > clock.now + 1 } ?? true, "nothing more to do")
        #expect(!pipe.needsTicks)
    }

    /// A timer that fires late — past the breakpoint it was armed for and past the next one, the end
    /// of a short pulse — or a pad touched again under one lock after its pass was held up: the
    /// render walks what went by unseen.
    @Test(arguments: [false, true])
    func aLateWakePastTwoBreakpointsWalksThem(retouched: Bool) throws {
        let (clock, pipe) = try Self.shortPulseRendered()
        if !retouched {
            #expect(pipe.nextWakeup(now: clock.now) == 10.002, "armed for the pulse's start: nothing deferred")
        }
        clock.now = 10.010  // the pulse (10.002–10.004) has come and gone
        if retouched { pipe.catchUp() }  // a later step under the same lock reaches the pad
        let write = pipe.tick(sampleBefore: true, timer: !retouched)
        #expect(write.map { if case .set(let m) = $0 { !m.isZero } else { false } } == true, "the pulse: \(String(describing: write))")
    }

    /// What sounded while the pad was not the pipeline's (the waveform stream played it, then handed
    /// the pad back to the motors: `resetOutput`) is not walked on the motors' first pass.
    @Test func aResetOutputForgetsWhatSoundedBeforeIt() throws {
        let (clock, pipe) = try Self.shortPulseRendered()
        clock.now = 10.1
        _ = pipe.nextWakeup(now: clock.now)  // behind its render: a walk is due
        pipe.resetOutput()  // the stream had the pad meanwhile
        #expect(pipe.tick() == nil, "nothing from 0.1 s ago")
    }

    /// An intensity-control ramp on a playing pattern (the Xbox trigger ramp of the VM's hidraw
    /// benchmark, on one motor): each step's value reaches the pad in order, and no write is stronger
    /// than the step in force — a walk that evaluated the output before a `sendParameters` (whose
    /// controls are pruned by then) once wrote the pattern's full strength at the first step.
    @Test(arguments: DeviceProfile.builtIn)
    func anIntensityControlRampNeverOvershootsItsStep(profile: DeviceProfile) throws {
        let steps = (1...30).map { 0.02 * Double($0) }
        let pattern = HapticPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0))])
        for loop in Loop.allCases {
            nonisolated(unsafe) var id: PlayerID?
            var commands = [Command(time: 10) { e in
                id = e.makePlayer(pattern, advanced: true)
                try e.sendParameters([(.hapticIntensityControl, 0.01)], to: id!)
                try e.start(id!)
            }]
            for (k, level) in steps.enumerated() {
                commands.append(Command(time: 10.1 + 0.016 * Double(k)) { e in try e.sendParameters([(.hapticIntensityControl, level)], to: id!) })
            }
            // On one motor (as the triggers' ramp leaves the handles at rest): a motor at zero is
            // where a walk between renders takes place.
            let writes = try Self.run(profile, loop, commands, commandCost: 0.001, route: .strongOnly)
            // The strongest the ramp makes the pad: its top step, as the engine renders it.
            let probeClock = ManualClock(10)
            let probe = HapticEngine(profile: profile, clock: probeClock, route: .strongOnly)
            probe.start()
            let top = probe.makePlayer(pattern, advanced: true)
            try probe.sendParameters([(.hapticIntensityControl, steps.last!)], to: top)
            try probe.start(top)
            probeClock.now = 10.5
            let ceiling = profile.quantize(probe.render())
            let during = writes.filter { $0.time < 10.1 + 0.016 * Double(steps.count) }
            for (a, b) in zip(during, during.dropFirst()) where b.value.strong < a.value.strong {
                Issue.record("\(profile.name), \(loop) loop: \(b.value) at +\(b.time - 10.1) s after \(a.value): the ramp went down")
            }
            for w in during where w.value.strong > ceiling.strong {
                Issue.record("\(profile.name), \(loop) loop: \(w.value) at +\(w.time - 10.1) s is above the ramp's top \(ceiling)")
            }
            #expect(writes.contains { $0.value.strong == ceiling.strong }, "\(profile.name), \(loop) loop: the ramp reaches its top")
        }
    }
}

