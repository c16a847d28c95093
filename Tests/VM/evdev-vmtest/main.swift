// Runs inside the qemu VM (scripts/vm-test.sh) against fakepad, a uinput FF_RUMBLE pad whose log is
// the ground truth: every upload, play, stop, erase and gain it received, time-stamped.
//
// Usage: evdev-vmtest PAD_LOG PAD_PID
import Evdev
import Glibc
import HapticCore
import VMTestSupport

let args = CommandLine.arguments
guard args.count == 3, let padPID = Int32(args[2]) else {
    print("usage: evdev-vmtest PAD_LOG PAD_PID")
    exit(2)
}
let padLog = args[1]
let log = PadLog(path: padLog)

// 1. Discovery finds the rumble pad and skips the device with effect slots but no FF_RUMBLE.
let scan = DeviceDiscovery.scan()
let pads = scan.devices.filter { $0.name == "hapticd-test-pad" }
check(pads.count == 1, "discovery finds the uinput rumble pad", "\(scan.devices)")
check(!scan.devices.contains { $0.name == "hapticd-test-nonrumble" }, "discovery ignores the pad without FF_RUMBLE")
if let other = (0..<32).lazy.compactMap({ try? DeviceDiscovery.inspect("/dev/input/event\($0)") }).first(where: { $0.name == "hapticd-test-nonrumble" }) {
    check(other.effectSlots == 16 && !other.hasRumble, "the skipped device has effect slots but not the FF_RUMBLE bit", "\(other)")
} else {
    check(false, "the non-rumble device exists")
}
guard let pad = pads.first else {
    check(false, "a rumble pad to test")
    finish("evdev-vmtest")
}
check(pad.effectSlots == 16 && pad.supportsGain && pad.bus == 0x03 && pad.usbID == "045e:02ea", "the pad's identity and capabilities are read", "\(pad)")
check(pad.profile().name == "xbox-one-usb", "the pad gets its profile by bus and vendor:product")

// 2. Repeated updates reuse one effect id; magnitudes arrive exactly as sent.
do {
    let device = try RumbleDevice(path: pad.path)
    var start = log.read().count
    let sent = (1...10).map { MotorMagnitudes(strong: UInt16($0 * 6000), weak: UInt16(65535 - $0 * 5000)) }
    for m in sent { try device.set(m) }
    var entries = log.wait(from: start, count: device.updateMethod == .play ? 20 : 11)
    let uploads = entries.filter { $0.event == "UPLOAD" }
    check(uploads.count == 10, "ten updates are ten uploads", "\(entries)")
    check(Set(uploads.map { $0.fields["id"]! }).count == 1 && uploads.first?.fields["id"] == String(device.effectID!),
          "every update reuses the one effect id", "\(uploads)")
    check(uploads.dropFirst().allSatisfy { $0.fields["old"] == $0.fields["id"] }, "updates after the first replace the same effect in place")
    check(uploads.map { MotorMagnitudes(strong: UInt16($0.fields["strong"]!)!, weak: UInt16($0.fields["weak"]!)!) } == sent,
          "magnitudes arrive exactly as sent, in order")
    check(uploads.allSatisfy { $0.fields["length"] == String(RumbleDevice.effectLength(for: device.updateMethod)) },
          "the effect's length is its method's: 65535 ms played (a play is then one report in ff-memless; the pacer re-sends a held value), 0 in place", "\(uploads)")
    // How each update reaches the driver is the profile's `updateMethod` (issue 26 §2): xbox-one-usb's
    // values are played (ff-memless sends a play at once), an in-place profile's only started once.
    let plays = entries.filter { $0.event == "PLAY" }.map { $0.fields["value"]! }
    check(device.updateMethod == .play ? plays == Array(repeating: "1", count: 10) : plays == ["1"],
          "the effect is played with every update (updateMethod play), never re-created", "\(entries)")
    check(motorRunning(entries), "the motor is running")

    // 3. Gain.
    start = log.read().count
    try device.setGain(0x8000)
    entries = log.wait(from: start, count: 1)
    check(entries.first?.event == "GAIN" && entries.first?.fields["value"] == "32768", "gain arrives as FF_GAIN", "\(entries)")

    // 4. Zero stops the motor; stop and close leave it stopped and erase the effect.
    start = log.read().count
    try device.set(.zero)
    entries = log.wait(from: start, count: 1)
    check(entries.first?.event == "PLAY" && entries.first?.fields["value"] == "0", "setting zero stops the effect", "\(entries)")
    try device.set(MotorMagnitudes(strong: 1000, weak: 2000))
    try device.stop()
    start = log.read().count
    try device.set(MotorMagnitudes(strong: 3000, weak: 4000))
    let problems = device.close()
    check(problems.isEmpty, "close reports no problem", "\(problems)")
    entries = log.wait(from: start, count: 6)
    // close: zeros uploaded and played (ff-memless sends that at once, whatever the effect's state),
    // then the stop; the kernel adds a stop of its own before it forwards the erase.
    let stopsBeforeErase = entries.dropFirst(4).dropLast()
    check(entries.count >= 6 && entries[0].event == "UPLOAD" && entries[1].event == "PLAY" && entries[1].fields["value"] == "1"
            && entries[2].event == "UPLOAD" && entries[2].fields["strong"] == "0" && entries[2].fields["weak"] == "0"
            && entries[3].event == "PLAY" && entries[3].fields["value"] == "1"
            && !stopsBeforeErase.isEmpty && stopsBeforeErase.allSatisfy { $0.event == "PLAY" && $0.fields["value"] == "0" }
            && entries.last?.event == "ERASE",
          "close plays zeros, stops the motor, then erases the effect", "\(entries)")
    check(!motorRunning(log.read()), "after close the motor is stopped")
    do {
        try device.set(MotorMagnitudes(strong: 1, weak: 1))
        check(false, "a closed device refuses writes")
    } catch {
        check(error.kind == .closed, "a closed device refuses writes with a clear error", "\(error)")
    }
} catch {
    check(false, "the rumble pad opens and takes updates", "\(error)")
}

// 4b. Refresh re-uploads the same values in place (one report on ff-memless drivers, where a second
//     play would send two); with `keepsEffectPlaying` (hid-nintendo's profile) zero is uploaded to the
//     playing effect instead of stopping it, and the next value is an update, not a new play.
do {
    let device = try RumbleDevice(path: pad.path)
    check(!device.keepsEffectPlaying, "a pad whose profile does not ask for it stops on zero")
    // The fake pad has an Xbox One pad's ids: xbox-one-usb, whose values are played (issue 26 §2):
    // every value an upload and a play, a refresh too (no settling re-send repairs a lost stop there).
    check(device.updateMethod == .play, "the xbox-one-usb profile's values are played")
    var start = log.read().count
    try device.set(MotorMagnitudes(strong: 7000, weak: 8000))
    try device.set(MotorMagnitudes(strong: 7100, weak: 8100))
    try device.refresh()
    var entries = log.wait(from: start, count: 6)
    check(entries.map(\.event) == ["UPLOAD", "PLAY", "UPLOAD", "PLAY", "UPLOAD", "PLAY"] && entries[2].fields["strong"] == "7100"
            && entries[4].fields["strong"] == "7100" && entries.filter { $0.event == "PLAY" }.allSatisfy { $0.fields["value"] == "1" },
          "updateMethod play: every value, and a refresh, is an upload and a play", "\(entries)")
    // The method changed while the effect plays (it has the old method's length): the next value is
    // uploaded with the new method's length and played; the one after follows the new method.
    device.updateMethod = .inPlace
    let switched = log.read().count
    try device.set(MotorMagnitudes(strong: 7200, weak: 8200))
    try device.set(MotorMagnitudes(strong: 7300, weak: 8300))
    entries = log.wait(from: switched, count: 4)
    check(entries.map(\.event) == ["UPLOAD", "PLAY", "UPLOAD", "UPLOAD"] && entries[0].fields["length"] == "0"
            && entries[2].fields["strong"] == "7300",
          "a method changed while playing: the next value is uploaded with the new length and played, the one after updated in place",
          "\(entries)")
    device.updateMethod = .play
    try device.set(.zero)
    _ = log.wait(from: start, count: 11)  // the stop has reached the pad before the next part counts
    // In place (the Switch Pro profiles): the playing effect is updated.
    device.updateMethod = .inPlace
    start = log.read().count
    try device.set(MotorMagnitudes(strong: 7000, weak: 8000))
    try device.refresh()
    entries = log.wait(from: start, count: 4)
    // In place means uploaded twice (RumbleDevice.inPlace: ff-memless can send the old values for the first).
    check(entries.map(\.event) == ["UPLOAD", "PLAY", "UPLOAD", "UPLOAD"]
            && entries.dropFirst(2).allSatisfy { $0.fields["strong"] == "7000" && $0.fields["weak"] == "8000" },
          "refresh uploads the current values again, in place (twice), without a new play", "\(entries)")
    // Zero re-sent after a stop (ff-memless can drop a stop): zeros uploaded and played; the next value
    // is then an update in place and a play (issue 26: from rest, a play, which ff-memless sends at
    // once — an update alone waits for its timer, and a stop before it loses the value).
    start = log.read().count
    try device.set(.zero)
    try device.refresh()
    try device.set(MotorMagnitudes(strong: 6000, weak: 5000))
    entries = log.wait(from: start, count: 5)
    check(entries.map(\.event) == ["PLAY", "UPLOAD", "PLAY", "UPLOAD", "PLAY"]
            && entries[0].fields["value"] == "0" && entries[1].fields["strong"] == "0" && entries[1].fields["weak"] == "0"
            && entries[2].fields["value"] == "1" && entries[3].fields["strong"] == "6000" && entries[4].fields["value"] == "1",
          "zero re-sent after a stop: zeros uploaded and played; then an update in place and a play (from rest)", "\(entries)")
    device.keepsEffectPlaying = true
    start = log.read().count
    try device.set(.zero)
    try device.refresh()
    try device.set(MotorMagnitudes(strong: 9000, weak: 1000))
    entries = log.wait(from: start, count: 6)
    check(entries.count == 6 && entries.allSatisfy { $0.event == "UPLOAD" }
            && entries.prefix(4).allSatisfy { $0.fields["strong"] == "0" && $0.fields["weak"] == "0" }
            && entries.suffix(2).allSatisfy { $0.fields["strong"] == "9000" } && !entries.contains { $0.event == "PLAY" },
          "keepsEffectPlaying: zero is an upload of zeros (re-sent the same way), the next value an update; no stop, no new play",
          "\(entries)")
    start = log.read().count
    device.close()
    entries = log.wait(from: start) { $0.contains { $0.event == "ERASE" } }
    check(!motorRunning(log.read()) && entries.contains { $0.event == "PLAY" && $0.fields["value"] == "0" },
          "keepsEffectPlaying: closing still stops and erases the effect", "\(entries)")
} catch {
    check(false, "refresh and keepsEffectPlaying", "\(error)")
}

// 5. Hot-plug: unplug mid-rumble gives a removal event and a clean error; re-plug is found again.
do {
    let monitor = try DeviceMonitor()
    let initial = monitor.initialEvents()
    check(initial.contains(.added(pad)), "the monitor reports the present pad", "\(initial)")
    let device = try RumbleDevice(path: pad.path)
    try device.set(MotorMagnitudes(strong: 40000, weak: 20000))
    let start = log.read().count
    kill(padPID, SIGUSR1)  // fakepad destroys its uinput device: an unplug
    let removal = try monitor.next(timeout: 5)
    check(removal == [.removed(path: pad.path)], "unplugging yields a removal event", "\(removal)")
    do {
        try device.set(MotorMagnitudes(strong: 1, weak: 1))
        check(false, "writing to an unplugged pad fails")
    } catch {
        check(error.kind == .disconnected, "writing to an unplugged pad is a clean 'disconnected' error", "\(error)")
        print("  (\(error))")
    }
    check(device.close().isEmpty, "closing an unplugged pad is quiet")
    let entries = log.wait(from: start, count: 1)
    check(entries.contains { $0.event == "DESTROYED" }, "the fixture saw the unplug")
    kill(padPID, SIGUSR2)  // plug it back in
    var added: [HotplugEvent] = []
    for _ in 0..<3 where added.isEmpty { added = try monitor.next(timeout: 5).filter { if case .added = $0 { true } else { false } } }
    if case .added(let info)? = added.first {
        check(info.name == "hapticd-test-pad", "a re-created pad is found again", "\(added)")
        let again = try RumbleDevice(path: info.path)
        let s2 = log.read().count
        try again.set(MotorMagnitudes(strong: 5, weak: 6))
        let l2 = log.wait(from: s2, count: 2)
        check(l2.first?.event == "UPLOAD" && l2.first?.fields["strong"] == "5", "the re-found pad takes rumble", "\(l2)")
        again.close()
        check(!motorRunning(log.read()), "and is left stopped")
    } else {
        check(false, "a re-created pad is found again", "\(added)")
    }
    check(DeviceDiscovery.scan().devices.contains { $0.name == "hapticd-test-pad" }, "a fresh scan finds the re-created pad")
} catch {
    check(false, "hot-plug monitoring works", "\(error)")
}

finish("evdev-vmtest")
