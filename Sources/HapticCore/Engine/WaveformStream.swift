/// A pad's engines as a paced stream of waveform blocks (docs/rendering.md §13, "The stream"): what a
/// transport that takes fixed blocks of samples at a fixed rate — the DualSense's Bluetooth report
/// `0x32`, 32 stereo frames at 3 kHz every 10.67 ms — is given, and when.
///
/// **A grid behind the clock.** While the pad sounds, blocks lie on a grid from an origin:
/// block *k* covers `[origin + k·d, origin + (k+1)·d)` (d = `blockDuration`) and is rendered, by
/// `PadPipeline.renderWaveform`, once the clock has passed its end — so every command inside it
/// applies on its own sample, and the stream's latency is fixed: one block, plus however late the
/// caller runs. The caller wakes at `nextWakeup` (the next block's end) and calls `pass`, which
/// returns the blocks due: normally one. There are no gaps (every block of the grid is rendered, in
/// order) and no pile-up (a block is never rendered before its end, so the transport gets blocks at
/// the clock's own rate).
///
/// **Late.** A caller that ran late gets every block due, in order, up to `maximumCatchUp`; beyond
/// that the oldest are dropped (skipped without rendering, counted in `dropped`), so a stall never
/// turns into a burst that would sit in the device's buffer as latency for the rest of the stream.
///
/// **Start and stop.** Idle, a pass starts the grid when anything began since the last pass — looked
/// for before the engines are advanced to the clock, so that a pass held up past the end of a short
/// pulse still finds it — or plays now: its origin is the earliest start of a player that began
/// since (so a command's start is its first sample; at most `maximumCatchUp` blocks back, as a late
/// caller's), or one block back for one that plays on from before (the pad taken back from the
/// motors). The stream ends after
/// a block that was silent with nothing playing and no command due before the next block's end:
/// that silent block is the last one given (the device is told silence once), and the stream sleeps
/// — `nextWakeup` is then the engines' next change (a scheduled start), or nil.
///
/// **Commands.** The engine applies an immediate command at once (a stop, a pause, a seek), which
/// would cost the samples before it in the block not yet rendered. So before a command reaches the
/// pad, `catchUp` renders the stream up to now (a partial block, kept) from the engines as they were;
/// the command then takes effect on the sample at now, and the block is completed at its end.
///
/// The stream must be the pad's only renderer while it runs: nothing else may advance the pad's
/// engines past the samples it has rendered (`renderWaveform`'s note) — for a streaming pad the render
/// loop neither `tick()`s nor `catchUp()`s the pipeline, and calls the stream's `catchUp` before a
/// command. Pure: no clock of its own, no I/O; tests drive it with the manual clock.
public struct WaveformStream {
    /// One rendered block: its start on the engine clock, both sides' samples (−1…1), whether all are 0.
    public struct Block {
        public var index: Int
        public var start: Double
        public var left: [Double]
        public var right: [Double]
        public var isSilent: Bool
    }

    public let renderer: WaveformRenderer
    public let framesPerBlock: Int
    /// Blocks given at most by one `pass`; older ones due beyond it are dropped.
    public let maximumCatchUp: Int
    public var blockDuration: Double { Double(framesPerBlock) / renderer.sampleRate }

    /// The grid's origin while streaming; nil while idle.
    public private(set) var origin: Double?
    /// The block being rendered: its index on the grid (blocks before it are done: given or dropped).
    public private(set) var next = 0
    /// Since this stream was made: blocks rendered, blocks dropped (late), passes that gave more than
    /// one block (caught up), streams started.
    public private(set) var rendered = 0
    public private(set) var dropped = 0
    public private(set) var caughtUp = 0
    public private(set) var starts = 0
    private var state = WaveformPipelineState()
    /// The samples of block `next` rendered so far (before a command: `catchUp`).
    private var partialLeft: [Double] = [], partialRight: [Double] = []
    /// Whole blocks rendered and not yet given (a command's catch-up came after their end).
    private var ready: [Block] = []
    /// The last pass's time: a player that began since is the stream's to start with, even if it has
    /// ended by the next pass. After a `reset()`, what it was given: the motors' last render when the
    /// stream takes the pad from them (what began before it, they played); nil: nothing before.
    private var lookedAt: Double? = -.infinity

    /// `framesPerBlock` frames at `sampleRate` per block (both at least 1); `maximumCatchUp` 1…64.
    public init(sampleRate: Double, framesPerBlock: Int, maximumCatchUp: Int = 3) {
        renderer = WaveformRenderer(sampleRate: sampleRate.isFinite && sampleRate > 0 ? sampleRate : 1)
        self.framesPerBlock = max(1, framesPerBlock)
        self.maximumCatchUp = min(max(maximumCatchUp, 1), 64)
    }

    public var isStreaming: Bool { origin != nil }

    /// One pass at `now` (the engine clock's time): the blocks whose end `now` has passed, oldest
    /// first (at most `maximumCatchUp`; older ones are dropped); then, idle, the engines advanced to
    /// now and the stream started when anything plays.
    public mutating func pass(_ pipeline: PadPipeline, now: Double) -> [Block] {
        guard now.isFinite else { return [] }
        if let o = origin {
            render(pipeline, through: blocksEnded(o, now) * framesPerBlock, now: now)
        }
        var out = ready
        ready = []
        if out.count > maximumCatchUp {
            dropped += out.count - maximumCatchUp
            out.removeFirst(out.count - maximumCatchUp)
        }
        if out.count > 1 { caughtUp += 1 }
        if origin == nil && !startIfBegan(pipeline, now: now) {
            // Nothing began since: the engines advanced to now, what plays on from before (the pad
            // taken back from the motors) starts the grid at most a block ago.
            for (_, e) in pipeline.engines { e.update(to: now) }
            if let onset = Self.onset(pipeline, before: now) { start(at: max(onset, now - blockDuration), now: now) }
        }
        lookedAt = now
        return out
    }

    /// How far back an onset found late starts the grid at most (seconds): a late caller's blocks on
    /// the DualSense's Bluetooth stream (3 × 10.67 ms). A stream given the blocks due since then at
    /// once carries them as latency until it ends; a longer reach would make a preempted pass cost
    /// the rest of a stream more than the pulse it saves.
    public static let lateOnsetReach = 0.032

    /// Idle: starts the grid at the earliest start of what began since the last pass — a player
    /// playing, a start due, a paused player's resume due — looked for before the engines are
    /// advanced to now (the render advances them from there): a pass or a command held up past the
    /// end of a short pulse would otherwise find it ended, and lose it. False: nothing began.
    private mutating func startIfBegan(_ pipeline: PadPipeline, now: Double) -> Bool {
        guard let since = lookedAt, let onset = Self.onset(pipeline, since: since, before: now) else { return false }
        start(at: max(onset, now - min(Double(maximumCatchUp) * blockDuration, Self.lateOnsetReach)), now: now)
        return true
    }

    private mutating func start(at onset: Double, now: Double) {
        origin = min(onset, now)
        next = 0
        state = WaveformPipelineState()
        starts += 1
    }

    /// Renders what the clock has passed, up to `now`, without giving it yet: before a command changes
    /// the pad's engines at `now`. The engine applies an immediate command at once, so the samples
    /// before it must be rendered first, from the engines as they were; the command then takes effect
    /// on the sample at `now`. (The render loop calls it where it would call `PadPipeline.catchUp()`.)
    /// Idle, what began since the last pass starts the stream first (the command would advance the
    /// engines past a pulse that began and ended since).
    public mutating func catchUp(_ pipeline: PadPipeline, now: Double) {
        guard now.isFinite else { return }
        if origin == nil { _ = startIfBegan(pipeline, now: now) }
        guard let o = origin else { return }
        let position = Int(min(((now - o) * renderer.sampleRate + 1e-6).rounded(.down), Double(Int32.max)))
        render(pipeline, through: position, now: now)
    }

    /// Blocks 0..<n of the grid at `o` have ended by `now` (1 ns of slack: a wake at a block's end is at its end).
    private func blocksEnded(_ o: Double, _ now: Double) -> Int {
        Int(min(max(((now - o) / blockDuration + 1e-9).rounded(.down), 0), Double(Int32.max)))
    }

    /// Renders the stream's samples up to sample `position` of the grid: whole blocks go to `ready`,
    /// the rest of the last one stays partial. Blocks that ended more than `maximumCatchUp` before
    /// `position` and were not begun are skipped (dropped). A silent block with nothing playing and no
    /// command due before the next block's end (or `now`'s) ends the stream.
    private mutating func render(_ pipeline: PadPipeline, through position: Int, now: Double) {
        guard let o = origin else { return }
        let f = framesPerBlock, rate = renderer.sampleRate, d = blockDuration
        let ended = position / f
        if ended - next > maximumCatchUp {
            let skip = ended - maximumCatchUp - next
            dropped += skip
            next += skip
            partialLeft = []
            partialRight = []
        }
        while next * f + partialLeft.count < position {
            let from = next * f + partialLeft.count
            let to = min(position, (next + 1) * f)
            let (l, r) = pipeline.renderWaveform(from: o + Double(from) / rate, count: to - from, renderer: renderer, state: &state)
            partialLeft += l
            partialRight += r
            guard partialLeft.count == f else { continue }
            let silent = partialLeft.allSatisfy { $0 == 0 } && partialRight.allSatisfy { $0 == 0 }
            let start = o + Double(next) * d
            ready.append(Block(index: next, start: start, left: partialLeft, right: partialRight, isSilent: silent))
            if ready.count > maximumCatchUp {
                // Rendered by catch-ups while the loop was late: only the newest are given.
                ready.removeFirst()
                dropped += 1
            }
            partialLeft = []
            partialRight = []
            next += 1
            rendered += 1
            if silent && !Self.sounds(pipeline, before: max(start + 2 * d, now + d)) {
                origin = nil
                state = WaveformPipelineState()
                return
            }
        }
    }

    /// When `pass` must next run: the end of the next block while streaming; idle, the engines' next
    /// change (a scheduled command, an idle shutdown), or nil.
    public func nextWakeup(_ pipeline: PadPipeline, now: Double) -> Double? {
        if !ready.isEmpty { return now }
        if let o = origin { return o + Double(next + 1) * blockDuration }
        var wake: Double?
        for (_, e) in pipeline.engines {
            let t = e.nextChange(at: now).time
            if t.isFinite { wake = min(wake ?? t, t) }
        }
        return wake
    }

    /// Ends the stream at once (the transport went away, the pad was reset): the next pass starts anew,
    /// with what began since `lookingSince` (nil: only what plays then).
    public mutating func reset(lookingSince: Double? = nil) {
        lookedAt = lookingSince
        origin = nil
        next = 0
        state = WaveformPipelineState()
        partialLeft = []
        partialRight = []
        ready = []
    }

    /// Whether anything plays on the pad, or a command is due before `t`.
    public static func sounds(_ pipeline: PadPipeline, before t: Double) -> Bool {
        for (_, e) in pipeline.engines where e.isRunning {
            for p in e.playersInOrder {
                if p.isPlaying { return true }
                if let first = p.pending.first, first.time < t { return true }
            }
        }
        return false
    }

    /// The earliest start at or after `since` of a player playing, or of a start or resume due by
    /// `now`, as the engines were last advanced (some may have run out by `now`); nil: none.
    static func onset(_ pipeline: PadPipeline, since: Double, before now: Double) -> Double? {
        var onset: Double?
        for (_, e) in pipeline.engines where e.isRunning && !e.isMutedForHaptics {
            for p in e.playersInOrder {
                if case .playing(let time, _) = p.phase, time >= since { onset = min(onset ?? time, time) }
                // Pending commands are in time order: the first start (or a paused player's resume)
                // due by now, if any.
                for due in p.pending {
                    guard due.time <= now else { break }
                    let starts = due.command == .start || due.command == .resume && { if case .paused = p.phase { true } else { false } }()
                    guard starts else { continue }
                    if due.time >= since { onset = min(onset ?? due.time, due.time) }
                    break
                }
            }
        }
        return onset.map { min($0, now) }
    }

    /// The earliest start among the players playing at `now` (nil: nothing plays).
    static func onset(_ pipeline: PadPipeline, before now: Double) -> Double? {
        var onset: Double?
        for (_, e) in pipeline.engines where e.isRunning && !e.isMutedForHaptics {
            for p in e.playersInOrder {
                guard case .playing(let time, _) = p.phase else { continue }
                onset = min(onset ?? time, time)
            }
        }
        return onset.map { min($0, now) }
    }
}
