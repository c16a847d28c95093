import CRenderThread
import Evdev
import Glibc
import HapticCore
import NIOConcurrencyHelpers
import Synchronization

/// Identifies a pad within the daemon (stable across reconnects of the same pad).
public typealias PadID = Int

/// Something a pad's engine or device reported, as a Sendable value for whoever listens.
public enum LoopEvent: Equatable, Sendable {
    case playerEnded(pad: PadID, locality: Locality, player: PlayerID, end: PlayerEnd)
    case engineStopped(pad: PadID, locality: Locality, reason: HapticEngine.StoppedReason)
    case engineReset(pad: PadID, locality: Locality)
    /// A write failed; the pad's device was released. `disconnected`: the pad is gone (hot-plug will
    /// report it); otherwise the device failed and may be reopened.
    case deviceError(pad: PadID, message: String, disconnected: Bool)
    /// A write reached a pad (for --trace and the terminal view).
    case wrote(pad: PadID, time: Double, value: MotorMagnitudes)
}

/// How the render loop decides when to run.
public enum RenderMode: String, Sendable, CaseIterable {
    /// Wake only when some pad's output can change: at the next breakpoint of any player (an event
    /// starting, an envelope phase or pulse ending, a parameter, a command), and while a ramp plays,
    /// when the pad can take a value that differs. Nothing changes: no wakeup. (The default.)
    case event
    /// The reference it is measured against: tick every `period` while anything plays.
    case fixed
}

/// The real-time heart of the daemon: one lock owns every pad's engine, pipeline and sink; the loop's
/// own thread sleeps until the next absolute deadline and then, on that same thread, takes the lock
/// and renders, mixes, paces and writes them — no hand-off between the timer and the ioctl.
///
/// The thread blocks in `read` on a `timerfd` (CLOCK_MONOTONIC, absolute deadlines): the kernel
/// wakes it straight at the deadline, as `clock_nanosleep` would. Entry points that change the next
/// deadline re-program the timerfd (`timerfd_settime`, one system call under the lock) and need not
/// wake the thread: it sleeps on through a later deadline and wakes at an earlier one by itself. A
/// condition variable would have to wake the thread (a context switch) for every deadline a command
/// brings forward; libdispatch, which the loop used before, woke its manager thread (timerfd, epoll)
/// and then handed the handler to a worker thread: its firings were 70 µs late at the median where
/// this thread's are ~40 µs, an empty 4 ms timer cost 1.75 % of a core on the build machine, and
/// re-arming it from a command ~22 µs (docs/benchmarks.md).
///
/// - `event` mode (default): the timer is armed one-shot for the earliest time any pad's output can
///   change (`PadPipeline.nextWakeup(now:)`), so an event starts at its own time — its error is only
///   the timer's lateness, or for an onset from silence what is left after the thread woke
///   `onsetLead` early and waited awake — and a constant rumble costs no wakeups at all between its changes.
/// - `fixed` mode: while anything plays or a pacer has output pending, the timer fires every `period`
///   seconds at `start + k·period` (absolute deadlines on a fixed grid, no drift; missed ticks are
///   not replayed); otherwise it is armed for the next scheduled command, idle shutdown or refresh.
/// - In both, nothing to do means the timer is disarmed: zero wakeups while idle, and a command that
///   starts something renders and writes the first frame at once.
/// - `shutdown()` (and deinit) end the thread: it is joined, so no firing outlives the call.
public final class RenderLoop: @unchecked Sendable {
    // @unchecked Sendable: every stored property below `lock` is read and written only while `lock`
    // is held (every entry point takes it, the render thread's firing too); what crosses in or out is
    // Sendable. `thread` is itself thread-safe (RenderThread).
    /// The loop's own thread and its timerfd.
    private let thread: RenderThread
    /// Owns the loop's state. A lock rather than `queue.sync`: a serial queue hands itself to the
    /// next waiter in order, so two socket threads that each take it many times a second formed a
    /// convoy — each release woke the other thread, which had to be scheduled before either could
    /// go on, and under the soak test both sat idle for 3–4 ms while the kernel let other work run
    /// (docs/robustness.md §2). A mutex lets the thread that holds the CPU take it again.
    private let lock = NIOLock()
    public let clock: MonotonicClock
    public let mode: RenderMode
    /// Tick period in seconds in `fixed` mode (default 4 ms).
    public let period: Double
    /// `event` mode: how much earlier than an onset (`PadPipeline.nextWakeupIsOnset`) the thread
    /// wakes, to wait out the rest awake and render on time (`render.onset_lead`; 0: not at all).
    public let onsetLead: Double

    private final class Pad {
        let pipeline: PadPipeline
        var sink: (any MotorSink)? {
            // Cast once here, not on every tick and command (a protocol cast asks the Swift runtime
            // for the conformance each time: ~300 instructions, three times per command).
            didSet { waveform = sink as? any WaveformTransport }
        }
        /// The pad's waveform transport, when its sink has one (a DualSense over Bluetooth or USB).
        private(set) var waveform: (any WaveformTransport)?
        /// Makes the engine of a locality, wired and configured like the pad's first.
        let makeEngine: (Locality) -> HapticEngine
        init(pipeline: PadPipeline, sink: any MotorSink, makeEngine: @escaping (Locality) -> HapticEngine) {
            self.pipeline = pipeline
            self.sink = sink
            self.waveform = sink as? any WaveformTransport
            self.makeEngine = makeEngine
        }
        var engines: [HapticEngine] { pipeline.engines.map(\.engine) }
        /// Whether the waveform stream renders the pad (then it is the pad's only renderer: no
        /// `tick()`, no catch-up).
        var streamsWaveform: Bool { waveform?.usesWaveform ?? false }
    }

    private var pads: [PadID: Pad] = [:] {
        didSet { order = pads.keys.sorted().map { ($0, pads[$0]!) } }
    }
    /// The pads in id order, kept up to date as they come and go (not re-sorted every tick).
    private var order: [(PadID, Pad)] = []
    /// Pads a `perform` body reached through its `PadAccess` (under `lock` only).
    fileprivate var touched: [PadID] = []
    /// The absolute deadline (CLOCK_MONOTONIC ns) the timer is armed for, and whether it is an onset
    /// the thread wakes `onsetLead` early for (event mode); nil when disarmed. While ticking
    /// (`fixed`), the first grid point (the thread computes the later ones).
    private var armed: (deadline: UInt64, onset: Bool)?
    private var ticking = false
    private var tickBase: UInt64 = 0
    private var tickIndex: UInt64 = 0
    private var eventHandler: (@Sendable (LoopEvent) -> Void)?
    private var hapticsHandler: (@Sendable (PadID, HapticsStatus) -> Void)?
    private var fires = 0
    /// Shut down: the thread has ended, nothing is armed again.
    private var stopped = false
    /// Timer firings that rendered (for the benchmark and tests).
    public var wakeups: Int { lock.withLock { fires } }
    private var onsetFires = 0
    /// Of those, the firings for an onset the thread woke `onsetLead` early for (tests, benchmark).
    public var onsetWakeups: Int { lock.withLock { onsetFires } }
    /// When the timerfd is set to fire (uptime seconds), if it is armed: the armed deadline, or
    /// `onsetLead` before it for an onset (tests). `timerfd_gettime` gives what is left, so this is
    /// the range between the clock's readings just before and just after it.
    public var timerExpiry: ClosedRange<Double>? { lock.withLock { thread.expiry() } }
    /// Hook for measuring each tick's render+mix+pace+write cost and lateness (benchmark).
    public var tickObserver: (@Sendable (_ lateness: Double, _ cost: Double) -> Void)?

    /// `realtime`: the real-time priority the loop's thread asks for (none by default; see
    /// `RealtimeRequest` and, for what it got, `realtime`). `onsetLead`: seconds, clamped to
    /// `onsetLeadRange` (0 by default: the thread wakes at the onset itself).
    public init(
        mode: RenderMode = .event, period: Double = 0.004, label: String = "hapticd.render", clock: MonotonicClock = MonotonicClock(),
        realtime request: RealtimeRequest = .none, onsetLead: Double = 0
    ) {
        precondition(period > 0 && period.isFinite)
        self.mode = mode
        self.period = period
        self.clock = clock
        let lead = onsetLead.isFinite ? min(max(onsetLead, Self.onsetLeadRange.lowerBound), Self.onsetLeadRange.upperBound) : 0
        self.onsetLead = lead
        thread = RenderThread(name: label, realtime: request, lead: MonotonicClock.nanoseconds(lead))
        thread.start(self)
    }

    /// Whether one CPU is online (read once): the write ahead yields after its write only then.
    static let oneCPU = sysconf(Int32(_SC_NPROCESSORS_ONLN)) == 1

    /// The onset lead's bounds (`render.onset_lead`): up to 2 ms awake per onset.
    public static let onsetLeadRange = 0.0...0.002

    /// What the loop's thread got when it asked for a real-time priority (set before `init` returns).
    public var realtime: RealtimeScheduling { thread.realtime }

    deinit { thread.stop() }

    /// Receives engine and device events (called under the loop's lock: keep it short, hop elsewhere).
    public func setEventHandler(_ handler: (@Sendable (LoopEvent) -> Void)?) {
        lock.withLock { eventHandler = handler }
    }

    /// Receives a pad's move between waveform haptics and rumble (a waveform transport that failed,
    /// or came back), under the loop's lock, like `setEventHandler`.
    public func setHapticsHandler(_ handler: (@Sendable (PadID, HapticsStatus) -> Void)?) {
        lock.withLock { hapticsHandler = handler }
    }

    // MARK: pads

    /// Adds a pad with a fresh engine (started) for `profile` in the `default` locality; the engines
    /// of other localities are made when first used (`PadAccess.engine(_:creating:)`), alike.
    public func addPad(_ id: PadID, sink: any MotorSink, profile: DeviceProfile, gain: Double = 1, configure: ((HapticEngine) -> Void)? = nil) {
        lock.withLock {
            // After shutdown no pad is driven: nothing would render its end or stop it again.
            guard !stopped else { return sink.release() }
            let clock = self.clock
            let makeEngine: (Locality) -> HapticEngine = { [weak self] locality in
                let engine = HapticEngine(profile: profile, clock: clock, route: locality.route(for: profile.actuators) ?? .both)
                engine.stoppedHandler = { reason in self?.emit(.engineStopped(pad: id, locality: locality, reason: reason)) }
                engine.resetHandler = { self?.emit(.engineReset(pad: id, locality: locality)) }
                engine.playerEnded = { player, end in self?.emit(.playerEnded(pad: id, locality: locality, player: player, end: end)) }
                configure?(engine)
                engine.start()
                return engine
            }
            let pipeline = PadPipeline(engine: makeEngine(.default))
            pipeline.gain = gain
            pads[id] = Pad(pipeline: pipeline, sink: sink, makeEngine: makeEngine)
        }
    }

    /// The pad is gone (unplugged): its engine stops with `gameControllerDisconnect`; the engine
    /// stays, without a sink, so that a re-attached pad can take it up again (`reattach`).
    public func detachPad(_ id: PadID) {
        lock.withLock {
            guard let pad = pads[id] else { return }
            pad.sink?.release()
            pad.sink = nil
            for engine in pad.engines { engine.deviceDisconnected() }
            pad.pipeline.resetOutput()
            rearm(renderedAt: clock.now)
        }
    }

    /// The pad came back: a new sink, and an engine reset (players re-created by their owners).
    /// `ready` runs under the loop's lock once the sink is in, before the engines reset: what makes
    /// the pad usable for commands, so that a client that answers the reset at once (starts its
    /// engine again, as Core Haptics code does) finds the pad there.
    public func reattachPad(_ id: PadID, sink: any MotorSink, ready: () -> Void = {}) {
        lock.withLock {
            guard !stopped, let pad = pads[id] else { return sink.release() }
            pad.sink?.release()
            pad.sink = sink
            pad.pipeline.resetOutput()
            ready()
            for engine in pad.engines {
                engine.reset()
                engine.start()
            }
        }
    }

    /// Destroys the pad's engine (`engineDestroyed`) and closes its device: motors stop.
    public func removePad(_ id: PadID) {
        lock.withLock {
            guard let pad = pads.removeValue(forKey: id) else { return }
            for engine in pad.engines { engine.destroy() }
            pad.sink?.release()
            rearm(renderedAt: clock.now)
        }
    }

    /// Stops every motor and closes every device (daemon shutdown).
    public func shutdown() {
        lock.withLock {
            let now = clock.now
            let sorted = pads.sorted(by: { $0.key < $1.key })
            // Every pad silenced first, then every device released: a release (erase, close) took
            // ~24 ms per pad in the VM, and the last pads waited for all the others' before.
            for (id, pad) in sorted {
                for engine in pad.engines { engine.stop() }
                // Straight to the device, past the pacer: shutdown does not wait for an interval.
                if let sink = pad.sink, (try? sink.apply(.set(.zero))) != nil { emit(.wrote(pad: id, time: now, value: .zero)) }
            }
            for (_, pad) in sorted { pad.sink?.release() }
            pads = [:]
            thread.disarm()
            armed = nil
            ticking = false
            stopped = true
        }
        // Outside the lock: the thread may be waiting for it to render one last firing.
        thread.stop()
    }

    public var padIDs: [PadID] { lock.withLock { order.map(\.0) } }

    // MARK: commands

    /// Access to every pad's engine and pipeline inside `perform`; valid only during the call.
    public struct PadAccess {
        fileprivate let loop: RenderLoop
        public var padIDs: [PadID] { loop.order.map(\.0) }
        /// Every pad reached through here is marked, and only those get the render-and-pace pass
        /// after the body (`perform`).
        private func touch(_ id: PadID) -> RenderLoop.Pad? {
            guard let pad = loop.pads[id] else { return nil }
            if !loop.touched.contains(id) {
                loop.touched.append(id)
                // What the pad's output did since its last render goes to the pacer before the
                // command changes it (issue 26: a pulse the loop slept through is not lost). On a pad
                // the waveform stream renders, nothing but the stream may advance its engines.
                if let waveform = pad.waveform, waveform.usesWaveform {
                    // The stream renders up to now first: the command applies on the sample at now.
                    waveform.catchUp(pad.pipeline, now: loop.clock.now)
                } else {
                    pad.pipeline.catchUp()
                    pad.pipeline.sampleBeforeCommand()
                }
            }
            return pad
        }
        public func engine(_ id: PadID, _ locality: Locality = .default) -> HapticEngine? {
            touch(id)?.pipeline.engine(for: locality)
        }
        /// The pad's engine for `locality`, made (started, configured, wired) if it has none yet;
        /// nil for a locality the pad does not have (its profile's `actuators`).
        public func engine(_ id: PadID, creating locality: Locality) -> HapticEngine? {
            guard let pad = touch(id), locality.route(for: pad.pipeline.engine.profile.actuators) != nil else { return nil }
            if let e = pad.pipeline.engine(for: locality) { return e }
            let e = pad.makeEngine(locality)
            pad.pipeline.add(e, for: locality)
            return e
        }
        /// Readies the pad's device (`MotorSink.prepare`); false when there is nothing to do.
        public func prepareDevice(_ id: PadID) throws(DeviceError) -> Bool {
            guard let sink = touch(id)?.sink else { return false }
            return try sink.prepare()
        }
        /// Every engine of a pad, with its locality.
        public func engines(_ id: PadID) -> [(locality: Locality, engine: HapticEngine)] { touch(id)?.pipeline.engines ?? [] }
        public func pipeline(_ id: PadID) -> PadPipeline? { touch(id)?.pipeline }
        public func hasDevice(_ id: PadID) -> Bool { loop.pads[id]?.sink != nil }
        /// How the pad's haptics are played, for a pad with a waveform transport (nil: rumble only).
        public func haptics(_ id: PadID) -> HapticsStatus? { loop.pads[id]?.waveform?.currentStatus }
        /// The loop's clock, now.
        public var now: Double { loop.clock.now }

        /// Writes `output` — the mix the command about to run will make on the pad
        /// (`DaemonState.rumbleAhead`) — through the pacer now, ahead of the command's own render
        /// pass, which then finds the pad has it; true when it wrote. Not on a pad the waveform
        /// stream may render, and nothing when the pacer holds it. A device error is left to the
        /// command's pass, the pacer as it was: that pass meets it again and handles and reports it
        /// as every pass does (a retry that succeeds there reports nothing: the pad got its value).
        ///
        /// On a machine with one CPU online, the thread yields it once right after the write: the
        /// kernel's work that turns the write into the pad's report (ff-memless, the driver's output
        /// work; the reader of a hidraw or uhid node) can run nowhere else, and then runs before the
        /// write's event (the trace, the subscribers) and the command's parsing, handler and reply
        /// rather than after them — measured under an emulator with one CPU, where without it the
        /// report waited for the whole command (docs/benchmarks.md, "A rumble's first frame ahead of
        /// its player"). The loop's lock is held across the yield, so a busy machine could hold the
        /// render thread up for the yield's slice: not done where other CPUs can run that work.
        public func writeAhead(_ id: PadID, _ output: MotorMagnitudes) -> Bool {
            guard let pad = touch(id), pad.waveform == nil, let sink = pad.sink else { return false }
            let now = loop.clock.now
            let written = try? pad.pipeline.offerAhead(output) { w in
                // The benchmark's stages (`RequestProbe`): this write is the command's.
                RequestProbe.mark(.dispatched)
                RequestProbe.mark(.rendered)
                try sink.apply(w)
                RequestProbe.mark(.written)
            }
            guard case .set(let m)? = written else { return false }
            if RenderLoop.oneCPU { sched_yield() }
            loop.emit(.wrote(pad: id, time: now, value: m))
            return true
        }
    }

    /// Runs `body` under the loop's lock, then gives every pad one render-and-pace pass and re-arms the
    /// timer. The pass is what makes a "play now" write its first frame at once, and what makes a
    /// stop, cancel, destroy or engine stop reach the motors even though nothing plays any more.
    public func perform<T>(_ body: (PadAccess) throws -> T) rethrows -> T {
        try perform(ticking: true, body)
    }

    /// `perform`, with the render-and-pace pass only when `ticking` (commands that change no engine —
    /// ping, devices, subscribe, … — skip it).
    public func perform<T>(ticking: Bool, _ body: (PadAccess) throws -> T) rethrows -> T {
        try lock.withLock {
            var steps = Steps(loop: self)
            defer { steps.finish() }
            return try steps.perform(ticking: ticking, body)
        }
    }

    /// Several `perform`s under one taking of the loop's lock: each `Steps.perform` runs its body and
    /// render-and-pace pass exactly as `perform` would, in order, and the timer is re-armed once
    /// after the last. A connection's turn of requests takes the lock once rather than once per
    /// request: under the soak test's floods the hand-overs themselves — two socket threads passing
    /// the render queue back and forth, each a futex wake-up — were a quarter of the daemon's time
    /// (docs/robustness.md §2).
    public func performSteps<T>(_ body: (inout Steps) throws -> T) rethrows -> T {
        RequestProbe.mark(.lockRequested)
        defer { RequestProbe.mark(.unlocked) }
        return try lock.withLock {
            RequestProbe.mark(.locked)
            var steps = Steps(loop: self)
            defer { steps.finish() }
            return try body(&steps)
        }
    }

    /// The steps of one taking of the loop's lock (`performSteps`); valid only during the call.
    public struct Steps {
        fileprivate let loop: RenderLoop
        /// The clock's reading at the last step's render pass, if any step ticked.
        private var renderedAt: Double?

        fileprivate init(loop: RenderLoop) { self.loop = loop }

        /// One command: `body`, then — when `ticking` — the render-and-pace pass of the pads it reached.
        /// `adjusting`: the command only changed players' dynamic parameters (`Pacer.offer`).
        public mutating func perform<T>(ticking: Bool, adjusting: Bool = false, _ body: (PadAccess) throws -> T) rethrows -> T {
            loop.touched.removeAll(keepingCapacity: true)
            let result: T
            do {
                result = try body(PadAccess(loop: loop))
            } catch {
                // A command that fails may have changed a pad before it did (a `rumble` destroys the
                // connection's last one, then finds its locality unsupported): the pads it reached
                // get their pass all the same, or a motor could keep a value nothing plays.
                if ticking { render(adjusting: adjusting) }
                throw error
            }
            RequestProbe.mark(.dispatched)
            if ticking { render(adjusting: adjusting) }
            return result
        }

        /// The render-and-pace pass of the pads the step reached. Only those: the others' output
        /// cannot have changed, and rendering every pad's players per command would be most of a busy
        /// daemon's time under the soak test's far-future schedules (docs/robustness.md §2).
        private mutating func render(adjusting: Bool) {
            let now = loop.clock.now
            for (id, pad) in loop.order where loop.touched.contains(id) { loop.tick(id, pad, now: now, adjusting: adjusting) }
            renderedAt = now
        }

        /// A plain rumble's first frame, written ahead of its command (`PadAccess.writeAhead`): `body`
        /// with access to the pads, no render pass (the command's own comes after it).
        public mutating func ahead<T>(_ body: (PadAccess) -> T) -> T {
            loop.touched.removeAll(keepingCapacity: true)
            return body(PadAccess(loop: loop))
        }

        /// The timer, re-armed for what the steps changed (nothing fires while the lock is held).
        fileprivate mutating func finish() {
            guard let now = renderedAt else { return }
            renderedAt = nil
            loop.rearm(renderedAt: now)
            RequestProbe.mark(.rearmed)
        }
    }

    /// Runs `body` with one pad's engine and pipeline (see `perform`); nil when there is no such pad.
    public func withPad<T>(_ id: PadID, _ body: (HapticEngine, PadPipeline) throws -> T) rethrows -> T? {
        try perform { access in
            guard let pipeline = access.pipeline(id) else { return nil }
            return try body(pipeline.engine, pipeline)
        }
    }

    /// `fixed` mode: whether the timer is ticking periodically (something plays or waits for a pad).
    public var isTicking: Bool { lock.withLock { ticking } }
    /// The absolute time (uptime seconds) the timer is armed for, if it is.
    public var armedTime: Double? { lock.withLock { armed.map { Double($0.deadline) / 1e9 } } }
    /// Whether the timer is armed at all.
    public var isArmed: Bool { lock.withLock { armed != nil } }

    // MARK: the loop

    fileprivate func emit(_ event: LoopEvent) {
        eventHandler?(event)
    }

    private func tick(_ id: PadID, _ pad: Pad, now: Double, timer: Bool = false, adjusting: Bool = false) {
        if let waveform = pad.waveform {
            // The stream first: while it runs it is the pad's only renderer. A failed report hands
            // the pad to the motors at once (this same pass); a retry may hand it back.
            let pass = waveform.pass(pad.pipeline, now: now)
            if let changed = pass.changed { hapticsHandler?(id, changed) }
            if pass.handled { return }
        }
        guard let write = pad.pipeline.tick(sampleBefore: mode == .event, timer: timer, command: !timer, adjusting: adjusting) else { return }
        guard let sink = pad.sink else { return }
        if !timer { RequestProbe.mark(.rendered) }
        defer { if !timer { RequestProbe.mark(.written) } }
        do {
            try sink.apply(write)
            if case .set(let m) = write { emit(.wrote(pad: id, time: now, value: m)) }
        } catch {
            emit(.deviceError(pad: id, message: error.description, disconnected: error.kind == .disconnected))
            pad.sink?.release()
            pad.sink = nil
            // Every engine of the pad (each locality's), not just the default one: their players have
            // no device to play on either, and their owners hear it (stopped handler, finished).
            for engine in pad.engines {
                if error.kind == .disconnected { engine.deviceDisconnected() } else { engine.systemError() }
            }
            pad.pipeline.resetOutput()
        }
    }

    /// The render thread's timerfd expired: render and write, on this thread, if a deadline is due.
    /// An expiry can be stale — a command re-armed the timerfd between the thread's wakeup and its
    /// taking the lock — so the deadline is checked against the clock, not assumed.
    fileprivate func timerExpired() {
        lock.withLock {
            guard !stopped else { return }
            let startNs = MonotonicClock.nowNanoseconds
            // The deadline this firing is for: while ticking, the last grid point reached (missed
            // ones are not replayed); otherwise the one-shot's.
            let deadline: UInt64
            if ticking && mode == .fixed {
                let periodNs = MonotonicClock.nanoseconds(period)
                guard startNs >= tickBase, (startNs - tickBase) / periodNs > tickIndex else { return }
                tickIndex = (startNs - tickBase) / periodNs
                deadline = tickBase + tickIndex * periodNs
            } else {
                guard let (armedAt, onset) = armed else { return }  // disarmed since it expired
                guard startNs >= armedAt else {
                    // Re-armed for later since it expired: the timerfd holds that deadline already.
                    // (Set again all the same: a one-shot that fired a hair early must not be lost.)
                    thread.arm(at: armedAt, onset: onset)
                    return
                }
                // A one-shot is spent once it fired: whatever comes next is armed again, even for
                // the same deadline.
                armed = nil
                if onset { onsetFires += 1 }
                deadline = armedAt
            }
            fire(startNs: startNs, deadline: deadline)
        }
    }

    private func fire(startNs: UInt64, deadline: UInt64) {
        fires += 1
        let lateness = Double(Int64(bitPattern: startNs &- deadline)) / 1e9
        let now = Double(startNs) / 1e9
        for (id, pad) in order { tick(id, pad, now: now, timer: true) }
        rearm(renderedAt: now)
        if let observer = tickObserver {
            observer(lateness, Double(MonotonicClock.nowNanoseconds - startNs) / 1e9)
        }
    }

    /// Arms the timer for what comes next. `event`: a one-shot for the earliest wakeup any pad asks
    /// for (1 µs past it, so that rounding never wakes the loop just before a breakpoint), or nothing.
    /// `fixed`: see `rearmFixed`.
    ///
    /// `now` is the time the pads were just rendered at, not a later reading of the clock: the
    /// engines' state is that of `now`, and a breakpoint between the two must not be skipped.
    private func rearm(renderedAt now: Double) {
        guard mode == .event else { return rearmFixed() }
        var next: Double?
        var onset = false
        for (_, pad) in order {
            let streams = pad.streamsWaveform
            let wake = streams ? pad.waveform!.nextWakeup(pad.pipeline, now: now) : pad.pipeline.nextWakeup(now: now)
            guard let w = wake else { continue }
            // An onset of any pad due first makes the wake an onset (a streamed pad's are its blocks).
            let isOnset = !streams && pad.pipeline.nextWakeupIsOnset
            if next == nil || w < next! {
                next = w
                onset = isOnset
            } else if w == next! {
                onset = onset || isOnset
            }
        }
        if let next {
            arm(max(MonotonicClock.nanoseconds(next) &+ 1_000, MonotonicClock.nowNanoseconds), onset: onset && onsetLead > 0)
        } else if armed != nil {
            thread.disarm()
            armed = nil
        }
    }

    /// While anything plays or waits for a pad: one repeating timer on the grid
    /// `tickBase + k·period` (the timerfd's interval keeps repeats on the original grid: no drift; it
    /// is set once, not per tick, which is what keeps a tick cheap). Otherwise a one-shot for the earliest
    /// wakeup any pad asks for, or nothing at all.
    private func rearmFixed() {
        if order.contains(where: { $0.1.pipeline.needsTicks || $0.1.waveform?.isStreaming == true }) {
            if !ticking {
                ticking = true
                let periodNs = MonotonicClock.nanoseconds(period)
                tickBase = MonotonicClock.nowNanoseconds
                tickIndex = 0
                armed = (tickBase + periodNs, false)
                if !stopped { thread.arm(at: tickBase + periodNs, every: periodNs) }
            }
            return
        }
        let wasTicking = ticking
        ticking = false
        var next: Double?
        for (_, pad) in order {
            if let w = pad.pipeline.nextWakeup { next = min(next ?? w, w) }
        }
        if let next {
            arm(max(MonotonicClock.nanoseconds(next), MonotonicClock.nowNanoseconds), force: wasTicking)
        } else if armed != nil || wasTicking {
            thread.disarm()
            armed = nil
        }
    }

    private func arm(_ deadline: UInt64, force: Bool = false, onset: Bool = false) {
        if let a = armed, a.deadline == deadline, a.onset == onset, !force { return }
        armed = (deadline, onset)
        if !stopped { thread.arm(at: deadline, onset: onset) }
    }
}

/// The render loop's thread: it blocks in `read` on a timerfd until the deadline the loop armed, then
/// calls the loop (`timerExpired`), which takes the loop's lock and renders and writes — the thread
/// the kernel woke is the one that writes.
///
/// The thread does not keep the loop alive: it holds it unretained, and the loop's deinit ends the
/// thread and joins it before the loop's memory goes (a firing that began just before runs to its
/// end while deinit waits). So a loop nobody holds is deinitialised as before, never on its own
/// thread, and its thread is gone when deinit returns. The thread holds this object strongly, so the
/// timerfd stays open until both are done with it.
private final class RenderThread: @unchecked Sendable {
    // @unchecked Sendable: `fd` and `name` never change; `loop` is written once, before the thread
    // starts (pthread_create orders it); `handle` is written and read under `started`'s lock;
    // `stopping` and `started` are locks; `realtime` is written by the thread before it signals
    // `started` and read only after `start` waited for that. `timerfd_settime` may be called from any thread.
    private let fd: Int32
    private let name: String
    /// Valid while the thread runs: the loop's deinit joins the thread before it returns. (So
    /// nothing the loop calls under its lock — an event handler, a sink — may drop the last
    /// reference to the loop: no entry point may, as its caller holds one.)
    private var loop: Unmanaged<RenderLoop>?
    private var handle: pthread_t?
    private let stopping = ManagedFlag()
    /// 1 once the thread runs under its name.
    private let started = ConditionLock(value: 0)
    private let request: RealtimeRequest
    /// Written by the thread before it signals `started`, read after (`started`'s lock orders it).
    private(set) var realtime = RealtimeScheduling.notAsked
    /// How much earlier than an onset the timerfd fires (ns; never changes).
    private let lead: UInt64
    /// The onset the thread waits for awake once the timerfd fired (CLOCK_MONOTONIC ns); 0: none.
    /// Set by `arm` from any thread, read by the thread (an atomic: `arm` runs under the loop's
    /// lock, which the thread does not hold while it waits).
    private let onsetDeadline = Atomic<UInt64>(0)

    init(name: String, realtime: RealtimeRequest, lead: UInt64) {
        fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC))
        precondition(fd >= 0, "timerfd_create failed: errno \(errno)")
        self.name = name
        request = realtime
        self.lead = lead
    }

    deinit { close(fd) }

    func start(_ loop: RenderLoop) {
        self.loop = Unmanaged.passUnretained(loop)
        var t = pthread_t()
        let rc = pthread_create(&t, nil, { arg in
            let thread = Unmanaged<RenderThread>.fromOpaque(arg!).takeRetainedValue()
            thread.run()
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
        precondition(rc == 0, "pthread_create failed: \(rc)")
        started.lock()
        handle = t
        started.unlock()
        // The loop exists once its thread does (named: top -H, perf and the tests see it).
        started.lock(whenValue: 1)
        started.unlock()
    }

    private func run() {
        // The name shows in top -H, perf and /proc (at most 15 bytes).
        _ = String(decoding: name.utf8.prefix(15), as: UTF8.self).withCString { hapticd_set_thread_name($0) }
        // The priority libdispatch gave the user-interactive queue the loop ran on before (-4), or
        // better: the highest RLIMIT_NICE grants without privileges. Under the service (Nice=-5,
        // LimitNICE=-5) that is -5, whichever thread — a default-QoS worker at 0, say — made the
        // loop; with no such limit (a shell, the tests) nothing changes. Linux: this thread only.
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(__RLIMIT_NICE.rawValue), &limit) == 0 {
            let highest = max(-20, 20 - Int32(clamping: limit.rlim_cur))
            if highest < getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) {
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, highest)
            }
        }
        realtime = RealtimeScheduling.take(request)
        started.lock()
        started.unlock(withValue: 1)
        var expirations: UInt64 = 0
        while !stopping.isSet {
            let n = read(fd, &expirations, MemoryLayout<UInt64>.size)
            if stopping.isSet { return }
            if n < 0 {
                guard errno == EINTR else { preconditionFailure("read on the render loop's timerfd failed: errno \(errno)") }
                continue
            }
            waitForOnset()
            // Not retained: a retain here could make this thread the one that drops the last
            // reference, and run the loop's deinit — which joins this thread — on it.
            loop?._withUnsafeGuaranteedRef { $0.timerExpired() }
        }
    }

    /// One-shot at `deadline` (CLOCK_MONOTONIC ns), or every `period` ns from it (the kernel keeps
    /// the grid). Replaces whatever was armed. `onset` (a one-shot): the timerfd fires `lead`
    /// earlier, and the thread waits awake until `deadline` before it calls the loop.
    func arm(at deadline: UInt64, every period: UInt64 = 0, onset: Bool = false) {
        let early = onset && period == 0 && lead > 0
        onsetDeadline.store(early ? deadline : 0, ordering: .releasing)
        let fire = early && deadline > lead ? deadline - lead : deadline
        var spec = itimerspec(it_interval: Self.timespec(period), it_value: Self.timespec(max(fire, 1)))
        timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// When the timerfd fires next (uptime seconds, between the clock's readings around the
    /// call), nil when disarmed.
    func expiry() -> ClosedRange<Double>? {
        var spec = itimerspec()
        let before = MonotonicClock.nowNanoseconds
        guard timerfd_gettime(fd, &spec) == 0, spec.it_value.tv_sec != 0 || spec.it_value.tv_nsec != 0 else { return nil }
        let after = MonotonicClock.nowNanoseconds
        let left = Double(spec.it_value.tv_sec) + Double(spec.it_value.tv_nsec) / 1e9
        return (Double(before) / 1e9 + left)...(Double(after) / 1e9 + left)
    }

    func disarm() {
        onsetDeadline.store(0, ordering: .releasing)
        var spec = itimerspec()
        timerfd_settime(fd, 0, &spec, nil)
    }

    /// The timerfd fired for an onset (`lead` early): waits awake — reading the clock, no system
    /// call — until the onset's time, so that it renders on time whatever the wake's lateness up to
    /// `lead`. At most `lead` (plus a margin for a deadline moved a little) and not at all when the
    /// loop re-armed for something else meanwhile (a later deadline wakes the thread again; an
    /// earlier one is due). The loop, not this wait, decides whether anything is due.
    private func waitForOnset() {
        let first = onsetDeadline.load(ordering: .acquiring)
        guard first != 0 else { return }
        let started = MonotonicClock.nowNanoseconds
        let giveUp = started &+ lead &+ 50_000
        while true {
            let deadline = onsetDeadline.load(ordering: .acquiring)
            let now = MonotonicClock.nowNanoseconds
            if deadline == 0 || now >= deadline || now >= giveUp || deadline - now > lead { return }
        }
    }

    /// Ends the thread and waits for it (unless called on it — from an event handler, say — which
    /// cannot wait for itself: it then ends after the current firing). Idempotent.
    func stop() {
        guard stopping.set() else { return }
        arm(at: 1)  // long past: the read returns at once
        started.lock()
        let handle = self.handle
        started.unlock()
        guard let handle else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    private static func timespec(_ ns: UInt64) -> Glibc.timespec {
        Glibc.timespec(tv_sec: Int(ns / 1_000_000_000), tv_nsec: Int(ns % 1_000_000_000))
    }
}

/// A flag set once, read from any thread (a mutex: read once per wakeup, never contended).
private final class ManagedFlag: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only under `lock`.
    private let lock = NIOLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    /// Sets it; false if it was set already.
    func set() -> Bool { lock.withLock { defer { value = true }; return !value } }
}
