/// Decides what reaches a pad and when, from its profile: what the hardware does, kept apart from what
/// the pattern means.
///
/// - at most one write per `minimumUpdateInterval` — but for an onset's corrections (below): at most
///   1 + `maximumOnsetCorrections` writes per interval;
/// - no write when the quantized value equals what the pad already has;
/// - while a write must wait, the per-motor peak of everything offered is kept and written when the
///   interval is over, so a transient shorter than the interval is still felt;
/// - nothing non-zero is lost: a non-zero value the pad has not carried is superseded only by a newer
///   non-zero value, never by a zero. When the output has fallen to zero by the time the pad may be
///   written, the newest non-zero value the window saw goes out first, and the zero an interval
///   later. Whatever is written stays on the pad for at least one interval (the minimum on-time: a
///   pulse shorter than the interval is felt for one interval, docs/rendering.md);
/// - pads that stop on their own get the current value again every `refreshInterval`, and every pad
///   a value it has held for `DeviceProfile.maximumHold` (`refreshPeriod`);
/// - on profiles that `settle`, the last value of a burst is sent once more when the pad has had it
///   for two intervals, a zero for one (repairs an update the kernel's ff-memless lost:
///   docs/devices.md). Two for a value: a stream of updates that come within two intervals of each
///   other (a game's frames) then has no re-send between its values to take the next one's slot
///   (docs/benchmarks.md). One for a zero: what follows a stop is a new effect, whenever the game
///   sends it, and the re-sent zero is out of its way sooner. A re-send is a write like any other:
///   the next value waits an interval after it (the link's need);
/// - an onset a command wrote from silence may be corrected at once by the commands that follow it
///   within `DeviceProfile.onsetCorrectionWindow` (half an interval), up to
///   `maximumOnsetCorrections` times: what a program sends right after a start — the intensity it
///   plays at, a second player — reaches the pad a round trip later rather than an interval later,
///   as Core Haptics renders the calls of one cycle together. A correction never lowers a motor
///   below what the pad has (what a program asked for keeps its minimum on-time: a stop, a weaker
///   rumble, a pulse that ended), unless the command only changed players' parameters and the
///   output just before it still had that level — then the drop is the parameters' (a start, then
///   its intensity, 0 too, or a sharpness that moves it to the other motor): the start's level
///   was no pulse anyone asked for. A correction keeps the window's rules (a peak it holds goes
///   out with it); one that silences the pad ends the onset. Only for a command's render pass (not
///   the pattern's own changes: a transient's pulse is not cut short), only on pads whose
///   interval is not a link's limit.
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
    /// Per motor, the newest non-zero value offered since the window opened (0: none) — what the pad
    /// is owed when the output has since fallen to zero, unless it already has it.
    private var owed = MotorMagnitudes.zero
    /// When the last value written is to be sent once more (`DeviceProfile.settles`).
    public private(set) var settleTime: Double?
    /// The last onset a command wrote from silence, and how many corrections it has had.
    private var onset: (time: Double, corrections: Int)?
    /// Corrections of one onset at most (a start, a second player's start, the two's parameters).
    public static let maximumOnsetCorrections = 3

    public init(profile: DeviceProfile) { self.profile = profile }

    /// Offers the mixed output at `now`; returns what to write now, if anything.
    ///
    /// At a write opportunity each motor gets the window's peak if that rose above what the pad has
    /// (a transient it has not felt yet); otherwise, when the output is zero now, the newest non-zero
    /// value of the window if the pad does not have it (a pulse or a ramp's last value the stop came
    /// too soon after: it is not lost, the stop follows an interval later); otherwise the latest
    /// value (so falls and new values are not delayed by a window).
    ///
    /// `command`: the render pass of a command (which may correct an onset, see above).
    /// `adjustedFrom`: for a command that only changed players' dynamic parameters (`sendParameters`,
    /// a curve), the output just before it: a correction may lower a motor where that output still
    /// had the pad's level (the parameters lowered it, not the end of a pulse).
    public mutating func offer(_ value: MotorMagnitudes, at now: Double, command: Bool = false, adjustedFrom: MotorMagnitudes? = nil) -> Write? {
        let q = quantized(value)
        latest = q
        owed = Self.newest(owed, q)
        let peak = windowPeak?.peak(with: q) ?? q
        // No motor below what the pad has, unless the parameters lowered it from there (with no
        // `adjustedFrom`, a floor of zero allows nothing lower).
        let correcting = command && q != written && correctsOnset(at: now)
            && MotorMagnitudes.allMotors(written, q, adjustedFrom.map(quantized) ?? .zero) { had, new, before in new >= had || before >= had }
        guard correcting || canWrite(at: now) else {
            windowPeak = peak
            return nil
        }
        windowPeak = nil
        let out = MotorMagnitudes(
            strong: Self.choose(peak: peak.strong, owed: owed.strong, latest: q.strong, written: written.strong),
            weak: Self.choose(peak: peak.weak, owed: owed.weak, latest: q.weak, written: written.weak),
            third: Self.choose(peak: peak.third, owed: owed.third, latest: q.third, written: written.third),
            fourth: Self.choose(peak: peak.fourth, owed: owed.fourth, latest: q.fourth, written: written.fourth))
        owed = .zero
        if out != written {
            if correcting {
                // Silenced: what starts next is a new onset, an interval on.
                if out.isZero { onset = nil } else { onset?.corrections += 1 }
            } else {
                onset = command && written.isZero && !out.isZero ? (now, 0) : nil
            }
            written = out
            lastWriteTime = now
            settleTime = profile.settles ? now + (out.isZero ? 1 : Self.settleDelay) * profile.minimumUpdateInterval : nil
            return .set(out)
        }
        if let settle = settleTime, now >= settle - 1e-6 {
            settleTime = nil
            lastWriteTime = now
            return .refresh(written)
        }
        if !written.isZero, let last = lastWriteTime, now - last >= profile.refreshPeriod - 1e-6 {
            lastWriteTime = now
            return .refresh(written)
        }
        return nil
    }

    /// Whether a command's value at `now` may correct the last onset at once (if it keeps the rules).
    public func correctsOnset(at now: Double) -> Bool {
        guard let onset, onset.corrections < Self.maximumOnsetCorrections else { return false }
        return now - onset.time < profile.onsetCorrectionWindow
    }

    /// One motor at a write opportunity: the window's peak if the pad has not felt it; else, when the
    /// output is zero now, the window's newest non-zero value if the pad does not have it; else the
    /// latest value. (A lower value that followed a peak goes with the peak: the pad felt more than
    /// it during its time.)
    static func choose(peak: UInt16, owed: UInt16, latest: UInt16, written: UInt16) -> UInt16 {
        if peak > written { return peak }
        if latest == 0 && owed != 0 && owed != written { return owed }
        return latest
    }

    /// Per motor, `b` where it is non-zero, else `a`.
    static func newest(_ a: MotorMagnitudes, _ b: MotorMagnitudes) -> MotorMagnitudes {
        MotorMagnitudes.zip(a, b) { $1 != 0 ? $1 : $0 }
    }

    /// `passed(value)`, when a write must wait at `now` (it went by while the pad could not be given
    /// anything). The event-driven loop offers the output just before a breakpoint this way: a dense
    /// tick would have offered it.
    public mutating func hold(_ value: MotorMagnitudes, at now: Double) {
        guard mustWait(at: now) else { return }
        passed(value)
    }

    /// Takes `value` into the current window (its peak, and what the pad is owed) without writing: a
    /// value the output took between two of the loop's renders (`PadPipeline.tick()` catches up on
    /// the breakpoints it slept through). The next write opportunity writes it as if it had been
    /// offered: a pulse that began and ended unseen is still felt.
    public mutating func passed(_ value: MotorMagnitudes) {
        let q = quantized(value)
        windowPeak = windowPeak?.peak(with: q) ?? q
        owed = Self.newest(owed, q)
    }

    /// What the pad will really play of `value` (the profile's quantization).
    public func quantized(_ value: MotorMagnitudes) -> MotorMagnitudes {
        profile.quantize(value)
    }

    /// The settling re-send of a non-zero value, in intervals after it (a zero's: one).
    public static let settleDelay = 2.0

    /// The earliest time from `now` on at which a write is allowed.
    public func nextWriteTime(from now: Double) -> Double {
        guard let open = opensAt else { return now }
        return max(now, open - 1e-6)
    }

    /// When the interval after the last write is over.
    private var opensAt: Double? { lastWriteTime.map { $0 + profile.minimumUpdateInterval } }

    /// Forgets the pad's state (after a reconnect the pad starts from zero).
    public mutating func reset() {
        written = .zero
        lastWriteTime = nil
        windowPeak = nil
        latest = .zero
        owed = .zero
        settleTime = nil
        onset = nil
    }

    /// Whether something offered has not reached the pad yet: the loop keeps ticking until it has.
    public var hasPendingOutput: Bool {
        if latest != written { return true }
        if MotorMagnitudes.any(owed, written, { $0 != 0 && $0 != $1 }) { return true }
        guard let peak = windowPeak else { return false }
        return MotorMagnitudes.any(peak, written, { $0 > $1 })
    }

    /// When the pacer next needs to run even if the output does not change: the end of the interval
    /// when output is pending, the settling re-send, or the next refresh. nil: not until the output
    /// changes.
    public var nextDeadline: Double? {
        guard let last = lastWriteTime, let open = opensAt else { return hasPendingOutput ? 0 : nil }
        if hasPendingOutput { return open }
        if let settle = settleTime { return settle }
        if !written.isZero { return last + profile.refreshPeriod }
        return nil
    }

    /// Whether a write offered at `now` would have to wait for the interval.
    public func mustWait(at now: Double) -> Bool { !canWrite(at: now) }

    private func canWrite(at now: Double) -> Bool {
        guard let open = opensAt else { return true }
        // A microsecond of slack so that a tick landing on the boundary counts as on time.
        return now >= open - 1e-6
    }
}
