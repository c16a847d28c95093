import CEvdev
import Glibc
import HapticCore

/// One open rumble pad, holding exactly one `FF_RUMBLE` effect that is created once and then updated
/// in place with the same id (never a new id per update: that is how other stacks run out of slots).
///
/// Not `Sendable`: it owns a file descriptor. The daemon confines each `RumbleDevice` to its render
/// queue and passes only `DeviceInfo` and `MotorMagnitudes` values across. Closing the descriptor —
/// explicitly, in `deinit`, or by the process dying — makes the kernel erase the effect and stop the
/// motors: that is the daemon's crash safety.
public final class RumbleDevice {
    public let info: DeviceInfo
    private var fd: Int32
    /// The kernel's id for our effect, once uploaded.
    public private(set) var effectID: Int16?
    public private(set) var isPlaying = false
    /// Whether the effect was ever played (`close()` silences only then).
    public private(set) var hasPlayed = false
    /// What the motors were last set to.
    public private(set) var current = MotorMagnitudes.zero
    /// Zero is written as zero magnitudes to the still-playing effect instead of a stop, so that the
    /// next value is an in-place update rather than a new play (`DeviceProfile.keepsEffectPlaying`:
    /// hid-nintendo, where a play costs an extra report on a 25 ms link). Set from the built-in
    /// profile that matches the pad; whoever picks another profile sets it from that one.
    public var keepsEffectPlaying: Bool

    /// Opens the node read-write and checks that it advertises `FF_RUMBLE`.
    public init(path: String) throws(DeviceError) {
        let fd = try syscall(.open, path) { open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        do throws(DeviceError) {
            let info = try probe(fd: fd, path: path)
            guard info.hasRumble else { throw DeviceError(kind: .notRumble, operation: .open, path: path) }
            self.info = info
            self.fd = fd
            let profile = info.profile()
            keepsEffectPlaying = profile.keepsEffectPlaying
            updateMethod = profile.updateMethod
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }

    deinit { close() }

    public var isOpen: Bool { fd >= 0 }

    /// How each non-zero value reaches the driver (`DeviceProfile.updateMethod`): `.play` uploads and
    /// plays it (ff-memless sends a play at once: one report, the effect having a length),
    /// `.inPlace` uploads it into the playing effect (one report, on ff-memless's next jiffy). Set
    /// from the built-in profile that matches the pad, like `keepsEffectPlaying`.
    ///
    /// Changed while an effect is uploaded, the effect keeps the old method's length until its next
    /// upload (`effectLength(for:)`): from a played effect (65.5 s) to in place, an idle effect kept
    /// playing zeros would end by itself unseen. So the next non-zero value after a change is played,
    /// whatever the method: uploaded with the new length and started again.
    public var updateMethod: DeviceProfile.UpdateMethod {
        didSet { if updateMethod != oldValue && effectID != nil { replayNext = true } }
    }
    /// The method changed with an effect uploaded: the next non-zero value is played (above).
    public private(set) var replayNext = false

    /// The played effect's `replay.length`: 65.535 s, the longest there is (SDL's too), not 0
    /// ("until stopped"). ff-memless schedules its timer for a playing effect's next event: with no
    /// length that is the play itself, the current jiffy, so the timer runs on the next tick and
    /// hands the driver the same values once more — every play became two reports. With a length the
    /// next event is the effect's end: a play is one report, sent at once (VM, `40-drivers` `METHOD`
    /// lines: hid-playstation, hid-sony and hid-microsoft at 4–16 ms, one report per value, 0.2–0.7
    /// ms to the pad; docs/devices.md). A play or an upload starts the length again; a value held
    /// longer is re-sent by the pacer every `DeviceProfile.maximumHold` (30 s), before it ends.
    public static let effectLengthMilliseconds: UInt16 = 0xFFFF

    /// `replay.length` for a device's method: `effectLengthMilliseconds` where every value is played
    /// (each play restarts it), 0 where values are updated in place. An in-place profile plays its
    /// effect only to start it and, with `keepsEffectPlaying`, keeps it playing zeros while idle,
    /// which nothing re-sends: with a length the effect would end by itself behind the device's back
    /// (`isPlaying` still true), and the next value, an in-place upload of an effect that is no longer
    /// started, would reach nobody — the VM's Switch Pro stayed silent that way after 65 s idle.
    public static func effectLength(for method: DeviceProfile.UpdateMethod) -> UInt16 {
        method == .play ? effectLengthMilliseconds : 0
    }

    /// One system call of `set`: an upload of the effect, a play or a stop.
    public enum Step: Equatable, Sendable {
        case upload(MotorMagnitudes)
        case play
        case stop
    }

    /// What `set(m)` does, given the device's state: the decision as data (unit-tested without a pad).
    ///
    /// Non-zero: upload the effect (in place after the first time), then play it
    /// - always with `.play` — ff-memless sends a play at once, where it would defer an in-place
    ///   update to its next jiffy;
    /// - with `.inPlace`, when it was stopped, or when the motors were at rest (the effect playing the
    ///   zeros of a settling re-send) — but not with `keepsEffectPlaying`.
    /// Zero: stop the effect (with `keepsEffectPlaying`, upload zero magnitudes to it).
    ///
    /// Why `.inPlace` still plays from rest: ff-memless defers an in-place update of a playing effect
    /// to its timer (the next jiffy; under load, later), and a stop that comes before that timer only
    /// clears the effect: nothing is sent, and the update is lost. A short pulse — a value, then its
    /// stop one pacing interval later — would never reach the pad (a 10 ms pulse on the BigBen pad,
    /// written as an update, is never reported in the VM). On hid-nintendo the update stays in place
    /// (its profile: the ring and its resends, docs/devices.md).
    public static func steps(
        for m: MotorMagnitudes, current: MotorMagnitudes, isPlaying: Bool,
        method: DeviceProfile.UpdateMethod, keepsEffectPlaying: Bool
    ) -> [Step] {
        if m.isZero { return keepsEffectPlaying && isPlaying ? inPlace(.zero) : [.stop] }
        let play = switch method {
        case .play: true
        case .inPlace: !isPlaying || (current.isZero && !keepsEffectPlaying)
        }
        return play ? [.upload(m), .play] : inPlace(m)
    }

    /// An update of a playing effect with nothing played after it: the same upload twice.
    ///
    /// The kernel's `input_ff_upload` calls the driver's upload *before* it stores the new effect;
    /// ff-memless's upload of a started effect arms its timer for the next jiffy and re-enables
    /// interrupts. A tick that lands in between (a tick that came while interrupts were off is taken
    /// right there) runs the timer on the *old* effect: the driver gets the old values, the effect
    /// counts as playing, and the new values, stored a moment later, are sent by nobody — until the
    /// next upload or play. A click (a value, then zero one interval later) was lost that way about
    /// once in ten on hid-nintendo under TCG (VM `40-drivers`, and the test's own bare in-place
    /// updates). The second upload finds the first one's values stored: whichever way its own timer
    /// falls, it sends the new values; when the first timer has not fired yet (almost always) it only
    /// re-arms it, so the driver still gets one value, not two.
    static func inPlace(_ m: MotorMagnitudes) -> [Step] { [.upload(m), .upload(m)] }

    /// Sets both motors: `steps(for:…)`, done.
    public func set(_ m: MotorMagnitudes) throws(DeviceError) {
        try requireOpen(.upload)
        // After a method change a non-zero value starts the effect again (`updateMethod`).
        let playing = isPlaying && !(replayNext && !m.isZero)
        try perform(Self.steps(for: m, current: current, isPlaying: playing, method: updateMethod, keepsEffectPlaying: keepsEffectPlaying))
        if !m.isZero { replayNext = false }
    }

    /// Carries out `set`'s, `refresh`'s or `close`'s steps, in order; the first failure ends them.
    private func perform(_ steps: [Step]) throws(DeviceError) {
        for step in steps {
            switch step {
            case .upload(let v): try upload(v)
            case .stop: try stop()
            case .play:
                try writeEvent(code: UInt16(bitPattern: effectID!), value: 1, operation: .play)
                isPlaying = true
                hasPlayed = true
            }
        }
    }

    /// Uploads the effect, silent, if it is not yet: the first `set` then only updates it in place
    /// and plays it. Returns whether it uploaded.
    @discardableResult
    public func prepare() throws(DeviceError) -> Bool {
        try requireOpen(.upload)
        guard effectID == nil else { return false }
        try upload(.zero)
        return true
    }

    /// Stops the motors (the effect stays uploaded for the next `set`).
    public func stop() throws(DeviceError) {
        try requireOpen(.stop)
        current = .zero
        guard isPlaying, let id = effectID else { return }
        isPlaying = false
        try writeEvent(code: UInt16(bitPattern: id), value: 0, operation: .stop)
    }

    /// Sends the current magnitudes again (pads that stop on their own, a value held for
    /// `DeviceProfile.maximumHold`; the settling re-send): an in-place upload of the same values,
    /// which ff-memless turns into one report — and with `updateMethod` `.play` a play after it
    /// (one report too, at once), so that the effect is playing
    /// again at once: after an in-place upload it is "started but not playing" until ff-memless's
    /// next jiffy, and a stop in that window is lost (docs/devices.md); played profiles do not settle,
    /// so nothing would repair it.
    ///
    /// Zero (the settling re-send after a stop): where zero was uploaded (`keepsEffectPlaying`), it is
    /// uploaded again. Otherwise the effect was stopped, and ff-memless drops a stop that comes while
    /// an update of the effect waits for its timer (the effect is then started but not yet playing:
    /// nothing is sent, and the pad keeps the old values); so zero magnitudes are uploaded to the
    /// stopped effect and played, which ff-memless sends at once. The effect then plays silence until
    /// the next `set`, which updates it in place and — from rest — plays it again.
    public func refresh() throws(DeviceError) {
        try requireOpen(.play)
        guard effectID != nil else { return }
        try perform(Self.refreshSteps(current: current, isPlaying: isPlaying, method: updateMethod, keepsEffectPlaying: keepsEffectPlaying))
    }

    /// What `refresh()` does with an uploaded effect, given the device's state (the decision as data).
    public static func refreshSteps(
        current: MotorMagnitudes, isPlaying: Bool, method: DeviceProfile.UpdateMethod, keepsEffectPlaying: Bool
    ) -> [Step] {
        if current.isZero {
            if keepsEffectPlaying && isPlaying { return inPlace(.zero) }
            return isPlaying ? [] : [.upload(.zero), .play]
        }
        return !isPlaying || method == .play ? [.upload(current), .play] : inPlace(current)
    }

    /// The pad's global force-feedback gain, 0…0xFFFF, where it advertises `FF_GAIN`.
    public func setGain(_ gain: UInt16) throws(DeviceError) {
        try requireOpen(.gain)
        guard info.supportsGain else { throw DeviceError(kind: .unsupported("the device has no FF_GAIN"), operation: .gain, path: info.path) }
        try writeEvent(code: UInt16(FF_GAIN), value: Int32(gain), operation: .gain)
    }

    /// What `close()` sends before it erases the effect (the decision as data).
    ///
    /// A stop alone is not enough: ff-memless defers an in-place upload of a playing effect to its
    /// next jiffy and leaves the effect "started but not playing" until then; a stop in that window
    /// only clears the effect, nothing reaches the driver, and the pad keeps its last values — with
    /// hid-nintendo, which re-sends its last packet, a Switch Pro went on rumbling after hapticd's
    /// SIGTERM (shutdown writes zero in place, then closes at once). Nor does the erase on close
    /// help: the kernel's erase is that same stop. So an effect that has ever played gets zero
    /// magnitudes uploaded and played — ff-memless sends a play at once, whatever the effect's state
    /// — and then the stop (now of a playing effect: sent at once too). A never-played effect has
    /// nothing to silence.
    public static func closeSteps(hasPlayed: Bool) -> [Step] {
        hasPlayed ? [.upload(.zero), .play, .stop] : []
    }

    /// Silences the motors (`closeSteps`), erases the effect and closes the node. Failures because
    /// the pad is already gone are expected and not reported; others are returned, never thrown:
    /// closing always closes.
    @discardableResult
    public func close() -> [DeviceError] {
        guard fd >= 0 else { return [] }
        var problems: [DeviceError] = []
        if let id = effectID {
            do { try perform(Self.closeSteps(hasPlayed: hasPlayed)) } catch { problems.append(error) }
            isPlaying = false
            current = .zero
            do { try syscall(.erase, info.path) { hapticd_ioctl_int(fd, hapticd_eviocrmff(), Int32(id)) } } catch {
                problems.append(error)
            }
            effectID = nil
        }
        _ = Glibc.close(fd)
        fd = -1
        return problems.filter { $0.kind != .disconnected }
    }

    private func requireOpen(_ operation: Operation) throws(DeviceError) {
        if fd < 0 { throw DeviceError(kind: .closed, operation: operation, path: info.path) }
    }

    private func upload(_ m: MotorMagnitudes) throws(DeviceError) {
        var effect = ff_effect()
        effect.type = UInt16(FF_RUMBLE)
        effect.id = effectID ?? -1
        effect.direction = 0
        effect.trigger = ff_trigger(button: 0, interval: 0)
        effect.replay = ff_replay(length: Self.effectLength(for: updateMethod), delay: 0)
        effect.u.rumble = ff_rumble_effect(strong_magnitude: m.strong, weak_magnitude: m.weak)
        try syscall(.upload, info.path) { hapticd_ioctl_ptr(fd, hapticd_eviocsff(), &effect) }
        effectID = effect.id
        current = m
    }

    private func writeEvent(code: UInt16, value: Int32, operation: Operation) throws(DeviceError) {
        var event = input_event()
        event.type = UInt16(EV_FF)
        event.code = code
        event.value = value
        let size = MemoryLayout<input_event>.size
        let written = try syscall(operation, info.path) { withUnsafePointer(to: &event) { write(fd, $0, size) } }
        if written != size { throw DeviceError(kind: .system(.ioError), operation: operation, path: info.path) }
    }
}
