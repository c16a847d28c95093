/// One pad's pipeline without I/O: engine (players → renderer → mixer) → gain → pacer. The render
/// loop calls `tick()` and writes what comes out to the device; tests call it with a manual clock.
/// Not `Sendable`: it belongs to the render queue, like its engine.
public final class PadPipeline {
    public let engine: HapticEngine
    public private(set) var pacer: Pacer
    /// Software gain 0…1 applied to the mix before pacing (per-pad gain from config or `gain.set`).
    public var gain: Double = 1 {
        didSet { gain = min(max(gain.isFinite ? gain : 1, 0), 1) }
    }

    public init(engine: HapticEngine) {
        self.engine = engine
        self.pacer = Pacer(profile: engine.profile)
    }

    /// Renders the engine at its clock's time and returns what the pad should be given now.
    public func tick() -> Pacer.Write? {
        var m = engine.render()
        if gain < 1 {
            m = MotorMagnitudes(strong: UInt16(Double(m.strong) * gain), weak: UInt16(Double(m.weak) * gain))
        }
        return pacer.offer(m, at: engine.currentTime)
    }

    /// Whether the loop must keep ticking: something plays, or output waits for the pad.
    public var needsTicks: Bool { engine.isPlaying || pacer.hasPendingOutput }

    /// While not ticking: when to wake up next (a scheduled command, the idle shutdown, a refresh).
    public var nextWakeup: Double? {
        switch (engine.nextWakeup, pacer.nextDeadline) {
        case (let a?, let b?): min(a, b)
        case (let a?, nil): a
        case (nil, let b?): b
        case (nil, nil): nil
        }
    }

    /// The pad reconnected or was reset: its motors start from zero.
    public func resetOutput() { pacer.reset() }
}
