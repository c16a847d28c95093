/// One pad's pipeline without I/O: engines (one per locality in use: players → renderer → mixer,
/// each routed to its motors) → sum → gain → pacer. The render loop calls `tick()` and writes what
/// comes out to the device; tests call it with a manual clock. Not `Sendable`: it belongs to the
/// render loop (under its lock), like its engines.
public final class PadPipeline {
    /// The pad's engines, the `default` locality's first; others are added as they are used.
    public private(set) var engines: [(locality: Locality, engine: HapticEngine)]
    public private(set) var pacer: Pacer
    /// Software gain 0…1 applied to the mix before pacing (per-pad gain from config or `gain.set`).
    public var gain: Double = 1 {
        didSet { gain = min(max(gain.isFinite ? gain : 1, 0), 1) }
    }
    /// What players of lower priority are scaled by while a higher-priority one plays on the pad
    /// (policy `duck`; 1: everything mixes alike, 0: muted).
    public var duck: Double = 1 {
        didSet { duck = min(max(duck.isFinite ? duck : 1, 0), 1) }
    }
    /// The strongest either motor is ever driven, 0…1 of full scale, after mixing and gain (policy
    /// `max_strength`): a ceiling, not a scale.
    public var maxStrength: Double = 1 {
        didSet { maxStrength = min(max(maxStrength.isFinite ? maxStrength : 1, 0), 1) }
    }

    public init(engine: HapticEngine) {
        self.engines = [(.default, engine)]
        self.pacer = Pacer(profile: engine.profile)
    }

    /// The `default` locality's engine.
    public var engine: HapticEngine { engines[0].engine }

    public func engine(for locality: Locality) -> HapticEngine? {
        engines.first { $0.locality == locality }?.engine
    }

    /// Adds the engine of another locality; its output adds to the others' before the gain.
    public func add(_ engine: HapticEngine, for locality: Locality) {
        precondition(self.engine(for: locality) == nil, "one engine per locality")
        engines.append((locality, engine))
    }

    /// Every engine's output at `t`, summed per motor and clamped (Apple: localities' outputs add),
    /// with the pad's ducking: while a player of higher priority plays on any engine of the pad,
    /// players of lower priority are scaled by `duck`.
    func mix(at t: Double) -> MotorMagnitudes {
        var threshold: Int?
        if duck < 1 {
            for (_, e) in engines { if let p = e.playingPriority { threshold = max(threshold ?? p, p) } }
        }
        var m = engines[0].engine.output(at: t, duckBelow: threshold, duck: duck)
        for (_, e) in engines.dropFirst() { m = m.mixed(with: e.output(at: t, duckBelow: threshold, duck: duck)) }
        return m
    }

    /// Look-ahead steps at most per `nextWakeup(now:)` while ramping (bounds its cost).
    public static let maximumLookahead = 64
    /// How finely the moment a ramp's value changes is found.
    public static let rampResolution = 0.0005

    /// Consecutive timer wakes that changed nothing on the pad (event-driven loop).
    private var idleWakes = 0

    /// Renders the engine at its clock's time and returns what the pad should be given now, after
    /// catching up on what the loop slept through (`catchUp()`).
    ///
    /// `sampleBefore` (event-driven loop): the output just before now — the end of a ramp the loop
    /// slept through up to a breakpoint — goes into the pacer's peak hold too, as a dense tick would
    /// have offered it while a write had to wait. `timer`: the loop woke for this pad's own sake (not
    /// for a command), which `nextWakeup(now:)` learns from.
    /// `command`: the pass of a command (the render loop's, not its timer's), which may correct an
    /// onset (`Pacer.offer`); `adjusting`: of one that only changed players' dynamic parameters, whose
    /// output before it `sampleBeforeCommand()` kept.
    public func tick(sampleBefore: Bool = false, timer: Bool = false, command: Bool = false, adjusting: Bool = false) -> Pacer.Write? {
        defer { beforeCommand = nil }
        let now = engine.currentTime
        catchUp()
        sleptThrough = false
        if sampleBefore && pacer.mustWait(at: now) { pacer.hold(scaled(mix(at: now - 1e-6)), at: now) }
        for (_, e) in engines { e.update() }
        let write = pacer.offer(scaled(mix(at: now)), at: now, command: command, adjustedFrom: adjusting ? beforeCommand : nil)
        unoffered = false
        if write != nil || !timer {
            idleWakes = 0
        } else if !pacer.hasPendingOutput {
            idleWakes += 1
        }
        return write
    }

    /// Offers `output` — the mix a command is about to make (`HapticEngine.rumbleOutput`) — to the
    /// pacer at now as the command's own render pass will (`tick(command: true)`), and gives `apply`
    /// what is to be written. The command's pass then finds the pad already has it and writes
    /// nothing more. If `apply` throws, the pacer is left as it was: the command's pass meets the
    /// device's error itself.
    public func offerAhead(_ output: MotorMagnitudes, _ apply: (Pacer.Write) throws -> Void) rethrows -> Pacer.Write? {
        let before = pacer
        guard let write = pacer.offer(scaled(output), at: engine.currentTime, command: true) else {
            pacer = before  // held: the command's own pass offers it
            return nil
        }
        do {
            try apply(write)
        } catch {
            pacer = before
            throw error
        }
        return write
    }

    /// The output at now just before a command changes the pad's engines (after `catchUp()`), while
    /// an onset may be corrected: what tells the parameters' drop from a pulse's own end (`Pacer`).
    public func sampleBeforeCommand() {
        let now = engine.currentTime
        beforeCommand = pacer.correctsOnset(at: now) ? scaled(mix(at: now)) : nil
    }
    private var beforeCommand: MotorMagnitudes?

    /// How late a command's render pass must come for it to walk what sounded since the command (a
    /// thread preempted between the two is out for milliseconds; a pass on time comes microseconds
    /// after). What begins and ends in less, between a command and a pass less late, is not walked.
    public static let heldUp = 0.001

    /// Breakpoints looked at per `tick()` at most (bounds its cost after a long sleep).
    public static let maximumCatchUp = 64
    /// Up to when the pacer has seen the output: the last render (`tick()`) or catch-up.
    public private(set) var renderedAt: Double?
    /// The last `nextWakeup(now:)`'s `now` and the engines' next change after it.
    private var lastReckoning: (at: Double, change: Double)?
    /// Whether the last `nextWakeup(now:)` put the wake after a breakpoint (the pacer's interval, the
    /// back-off): only then has the loop slept through something a render must catch up on. A loop
    /// that wakes at every breakpoint, or ticks densely, never sets it and pays nothing.
    private var sleptThrough = false
    /// The engines' `commandCount`s, summed, at the last `catchUp()`: another sum is a command since.
    private var seenCommands = 0
    /// A `catchUp()` saw a change of the output since the last `tick()` — it may have advanced the
    /// engines past it, a player's end among them — and no `tick()` has offered the output since: a
    /// command that only read the pad touched it (`engine.status`). The engines' next change is then
    /// no longer the time the pad's value changes; `nextWakeup(now:)` asks for a render as soon as
    /// the pacer may write, so that a re-arm for another pad's sake cannot leave the pad at its old
    /// value until a refresh.
    private var unoffered = false

    /// The breakpoints between the last render and `now` that no render saw — the loop slept through
    /// them, waiting for the pacer's interval or woken late — go into the pacer's window: the output
    /// just before each (the end of a segment: a ramp's top) and just after it (a pulse's start), the
    /// engines advanced to it in turn. A pulse that began and ended while the pad could not be
    /// written is then still written when it can be (`Pacer.passed`); a dense tick would have seen
    /// it. At most `maximumCatchUp` breakpoints, and only where a motor's output is zero now (else a
    /// newer non-zero value supersedes what went by, and the pacer's rule lets it).
    ///
    /// `tick()` does this first; whoever changes an engine of the pad by a command must call it before
    /// (the render loop does, when a command reaches the pad): the breakpoints before now belong to
    /// the engines as they were, and a command applies at now. Walked:
    /// - after `nextWakeup(now:)` deferred a breakpoint (the event-driven loop; until the next
    ///   `tick()`, so that a command that only reads the pad does not end it);
    /// - after a command, from the command on (`HapticEngine.lastCommandTime`: the output before it is
    ///   not what it was, and what was due before it is applied first), when the pass comes `heldUp`
    ///   or more after it: a command's render pass held up past the end of a short pulse the command
    ///   began would otherwise see only the zero after it;
    /// - when two breakpoints since the last render lie before now: a wake on time sees the one it
    ///   woke for, a second went by unseen — a timer that fired late, or a pad touched again under one
    ///   lock after its pass was held up. A dense tick sees what it needs by itself otherwise.
    public func catchUp() {
        let now = engine.currentTime
        defer { renderedAt = max(renderedAt ?? now, now) }
        var commanded = -Double.infinity, count = 0
        for (_, e) in engines {
            commanded = max(commanded, e.lastCommandTime)
            count &+= e.commandCount
        }
        let command = count != seenCommands
        seenCommands = count
        guard var t = renderedAt, t < now else { return }
        if command {
            t = max(t, commanded)
            // The pass right after its command — nearly always — has nothing to walk, and skips the
            // look-up of the engines' next change before the pad's write.
            guard now - t >= Self.heldUp else { return }
            unoffered = true
            for (_, e) in engines { e.update(to: t) }
        }
        func next(after t: Double) -> Double {
            // A breakpoint at `t` itself (an element ending where the next begins) is `t`'s.
            let b = nextChange(at: t).time
            return b <= t ? nextChange(at: t + 1e-6).time : b
        }
        // Nothing changed between the last render and now (after a command, nearly always): no walk,
        // and no mix to find that out (the engines cache their next change).
        let first = next(after: t)
        guard first.isFinite, first > t, first < now else { return }
        unoffered = true
        let late = !command && !sleptThrough
        if late {
            // The breakpoint the loop woke for, at its own time; the walk is from there, and only if
            // another one went by before now.
            for (_, e) in engines { e.update(to: first) }
            let second = next(after: first)
            guard second.isFinite, second > first, second < now else { return }
        }
        // A value between renders is lost to the pacer only where the output is zero by now (a newer
        // non-zero value supersedes it): with every motor the pad has running, the walk — a mix per
        // breakpoint, dozens of them under a busy mix — is not needed.
        let probe = scaled(mix(at: now))
        let channels = engine.profile.actuators.channels
        func silent(_ channel: UInt8, _ value: UInt16) -> Bool { channels & channel != 0 && value == 0 }
        // The probe mixes the engines as they were last advanced: a command due by now (a
        // scheduled stop) is not in it, and may have silenced what it finds running.
        let due = engines.contains { ($0.engine.nextWakeup ?? .infinity) <= now }
        guard due || silent(MotorRoute.strongChannel, probe.strong) || silent(MotorRoute.weakChannel, probe.weak)
            || silent(MotorRoute.thirdChannel, probe.third) || silent(MotorRoute.fourthChannel, probe.fourth)
        else { return }
        if late {
            if first + 1e-6 < now { pacer.passed(scaled(mix(at: first + 1e-6))) }
            t = first
        }
        for _ in 0..<Self.maximumCatchUp {
            let b = next(after: t)
            guard b.isFinite, b > t, b < now else { return }
            if b - 1e-6 > t { pacer.passed(scaled(mix(at: b - 1e-6))) }
            for (_, e) in engines { e.update(to: b) }
            // Just after it, as the loop wakes 1 µs after a breakpoint: at its very instant an event
            // may not have begun to sound.
            if b + 1e-6 < now { pacer.passed(scaled(mix(at: b + 1e-6))) }
            t = b
        }
    }

    /// Every engine's next change after `t`, merged.
    private func nextChange(at t: Double) -> NextChange {
        var change = engine.nextChange(at: t)
        for (_, e) in engines.dropFirst() { change.merge(e.nextChange(at: t)) }
        return change
    }

    /// The pad's gain, then its ceiling.
    func scaled(_ m: MotorMagnitudes) -> MotorMagnitudes {
        var out = m
        if gain < 1 { out = m.scaled(by: gain) }
        if maxStrength < 1 {
            let ceiling = UInt16(maxStrength * 65535)
            out = out.map { min($0, ceiling) }
        }
        return out
    }

    /// Event-driven: when the loop must next run for this pad, seen right after a `tick()` at `now`.
    /// The engine's next breakpoint — but not before the pad can take a value (the pacer's next write
    /// opportunity): a change that falls while the pacer must wait is seen when it may write, and the
    /// engine applies any command at its own time stamp all the same, and the next `tick()` catches up
    /// on the breakpoints slept through, so no pulse ends unseen. Then the pacer's deadlines (output
    /// waiting for the interval, a refresh), and — while a ramp plays — the first time the pad can
    /// take a value that differs from what it has. nil: not until a command arrives.
    ///
    /// When two timer wakes in a row changed nothing (breakpoints are not reaching the pad: a mix
    /// saturated at full scale, say), breakpoints are looked at no more than once per update interval
    /// until one does; a single such wake changes nothing, so onsets keep their own time. A ramp is
    /// still followed step by step: its next step is a time the pad's value does change.
    public func nextWakeup(now: Double) -> Double? {
        let change = nextChange(at: now)
        var wake = max(change.time, pacer.nextWriteTime(from: now))
        if idleWakes >= 2 { wake = max(wake, now + pacer.profile.minimumUpdateInterval) }
        if let d = pacer.nextDeadline { wake = min(wake, max(d, now)) }
        if change.ramping, let step = nextRampStep(now: now, before: wake) { wake = min(wake, step) }
        // A pad last rendered before `now` with a breakpoint in between: several commands under one
        // lock (`RenderLoop.performSteps`) re-arm every pad at the last one's time, and what sounded
        // on a pad an earlier step drew, since its own pass, is still to be walked — at once.
        // (The next change after the render is known when the last wakeup was reckoned right at it —
        // a pad a command did not reach — and reckoned again only for a pad an earlier step drew.)
        var behind = false
        if let r = renderedAt, r < now {
            let since = lastReckoning.flatMap { $0.at == r ? $0.change : nil } ?? nextChange(at: r).time
            behind = since < now
        }
        if behind { wake = min(wake, now) }
        if unoffered { wake = min(wake, pacer.nextWriteTime(from: now)) }
        sleptThrough = change.time < wake || behind
        lastReckoning = (now, change.time)
        // An onset: the pad is silent and the wake is a breakpoint at its own time (not a pacer's
        // deadline, a ramp's step or a catch-up), where an event may start to sound — a scheduled
        // start among them, which no look at the mix ahead can see (the engine applies it when it
        // gets there). A breakpoint that leaves the pad silent (a player's end, a muted pad) is
        // taken for one too: its wait is wasted, and after two such wakes in a row the pad is
        // looked at once per interval (`idleWakes`), which bounds it.
        nextWakeupIsOnset = wake == change.time && !behind && pacer.written.isZero && wake.isFinite
        return wake.isFinite ? wake : nil
    }

    /// Whether the last `nextWakeup(now:)` is an onset: the pad silent, the wake a breakpoint at its
    /// own time. The render loop may wake a little early for it and wait out the rest awake
    /// (`render.onset_lead`), so that the sound starts on time rather than a timer's lateness after.
    public private(set) var nextWakeupIsOnset = false

    /// While a ramp plays, the first time before `limit` at which the pad can be given a value that
    /// differs from what it has: looked for at the pad's update interval from its next write
    /// opportunity, then narrowed by bisection. Nil when nothing differs before `limit`; after
    /// `maximumLookahead` steps without a difference, the last step (to look again from there).
    func nextRampStep(now: Double, before limit: Double) -> Double? {
        let interval = max(pacer.profile.minimumUpdateInterval, Self.rampResolution)
        let ready = pacer.nextWriteTime(from: now)
        let have = pacer.written
        func differs(_ t: Double) -> Bool { pacer.quantized(scaled(mix(at: t))) != have }
        var previous = now
        var t = ready > now ? ready : now + interval
        for _ in 0..<Self.maximumLookahead {
            guard t < limit else { return nil }
            if differs(t) {
                var lo = max(previous, ready)
                var hi = t
                while hi - lo > Self.rampResolution {
                    let mid = (lo + hi) / 2
                    if differs(mid) { hi = mid } else { lo = mid }
                }
                return hi
            }
            previous = t
            t += interval
        }
        return t
    }

    /// Fixed tick (the reference mode): whether the loop must keep ticking — something plays, or
    /// output waits for the pad.
    public var needsTicks: Bool { engines.contains { $0.engine.isPlaying } || pacer.hasPendingOutput || unoffered }

    /// Fixed tick, while not ticking: when to wake up next (a scheduled command, the idle shutdown, a
    /// refresh).
    public var nextWakeup: Double? {
        let times = engines.compactMap(\.engine.nextWakeup) + [pacer.nextDeadline].compactMap { $0 }
        return times.min()
    }

    /// The pad reconnected or was reset: its motors start from zero.
    public func resetOutput() {
        pacer.reset()
        // What sounded while the pad was not the pipeline's (the waveform stream played it) is not
        // the motors' to catch up on.
        renderedAt = nil
        sleptThrough = false
        unoffered = false
    }
}
