/// Decides what reaches a pad and when, from its profile: what the hardware does, kept apart from what
/// the pattern means.
///
/// - at most one write per `minimumUpdateInterval`;
/// - no write when the quantized value equals what the pad already has;
/// - while a write must wait, the per-motor peak of everything offered is kept and written when the
///   interval is over, so a transient shorter than the interval is still felt;
/// - pads that stop on their own get the current value again every `refreshInterval`;
/// - on profiles that `settle`, the last value of a burst is sent once more when the pad has had it
///   for one interval (repairs an update the kernel's ff-memless lost: docs/devices.md).
public struct Pacer: Sendable {
    public enum Write: Equatable, Sendable {
        case set(MotorMagnitudes)
        /// Send the current value again: for a pad that stops on its own, or once after a burst
        /// (`DeviceProfile.settles`; then it may be zero).
        case refresh(MotorMagnitudes)
    }

    public let profile: DeviceProfile
    /// What the pad was last given, and when.
    public private(set) var written = MotorMagnitudes.zero
    public private(set) var lastWriteTime: Double?
    /// The per-motor peak of everything offered since the last write.
    private var windowPeak: MotorMagnitudes?
    /// The latest value offered.
    private var latest = MotorMagnitudes.zero
    /// When the last value written is to be sent once more (`DeviceProfile.settles`).
    public private(set) var settleTime: Double?

    public init(profile: DeviceProfile) { self.profile = profile }

    /// Offers the mixed output at `now`; returns what to write now, if anything.
    ///
    /// At a write opportunity each motor gets the window's peak if that rose above what the pad has
    /// (a transient it has not felt yet), otherwise the latest value (so falls and stops are not
    /// delayed by a window).
    public mutating func offer(_ value: MotorMagnitudes, at now: Double) -> Write? {
        let q = quantized(value)
        latest = q
        let peak = windowPeak?.peak(with: q) ?? q
        guard canWrite(at: now) else {
            windowPeak = peak
            return nil
        }
        windowPeak = nil
        let out = MotorMagnitudes(
            strong: peak.strong > written.strong ? peak.strong : q.strong,
            weak: peak.weak > written.weak ? peak.weak : q.weak)
        if out != written {
            written = out
            lastWriteTime = now
            settleTime = profile.settles ? now + profile.minimumUpdateInterval : nil
            return .set(out)
        }
        if let settle = settleTime, now >= settle - 1e-6 {
            settleTime = nil
            lastWriteTime = now
            return .refresh(written)
        }
        if let refresh = profile.refreshInterval, !written.isZero, let last = lastWriteTime, now - last >= refresh - 1e-6 {
            lastWriteTime = now
            return .refresh(written)
        }
        return nil
    }

    /// Takes `value` into the peak of the current window without writing, when a write must wait at
    /// `now` (it went by while the pad could not be given anything). The event-driven loop offers the
    /// output just before a breakpoint this way: a dense tick would have offered it.
    public mutating func hold(_ value: MotorMagnitudes, at now: Double) {
        guard mustWait(at: now) else { return }
        let q = quantized(value)
        windowPeak = windowPeak?.peak(with: q) ?? q
    }

    /// What the pad will really play of `value` (the profile's quantization).
    public func quantized(_ value: MotorMagnitudes) -> MotorMagnitudes {
        profile.quantize(value)
    }

    /// The earliest time from `now` on at which a write is allowed.
    public func nextWriteTime(from now: Double) -> Double {
        guard let last = lastWriteTime else { return now }
        return max(now, last + profile.minimumUpdateInterval - 1e-6)
    }

    /// Forgets the pad's state (after a reconnect the pad starts from zero).
    public mutating func reset() {
        written = .zero
        lastWriteTime = nil
        windowPeak = nil
        latest = .zero
        settleTime = nil
    }

    /// Whether something offered has not reached the pad yet: the loop keeps ticking until it has.
    public var hasPendingOutput: Bool {
        if latest != written { return true }
        guard let peak = windowPeak else { return false }
        return peak.strong > written.strong || peak.weak > written.weak
    }

    /// When the pacer next needs to run even if the output does not change: the end of the interval
    /// when output is pending, the settling re-send, or the next refresh. nil: not until the output
    /// changes.
    public var nextDeadline: Double? {
        guard let last = lastWriteTime else { return hasPendingOutput ? 0 : nil }
        if hasPendingOutput { return last + profile.minimumUpdateInterval }
        if let settle = settleTime { return settle }
        if let refresh = profile.refreshInterval, !written.isZero { return last + refresh }
        return nil
    }

    /// Whether a write offered at `now` would have to wait for the interval.
    public func mustWait(at now: Double) -> Bool { !canWrite(at: now) }

    private func canWrite(at now: Double) -> Bool {
        guard let last = lastWriteTime else { return true }
        // A microsecond of slack so that a tick landing on the boundary counts as on time.
        return now - last >= profile.minimumUpdateInterval - 1e-6
    }
}
