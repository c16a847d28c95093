// The Swift GameController library on the DualSense over USB, through hid-playstation: the profile is
// a GCDualSenseGamepad; uhidpad's input report (SIGHUP: cross, one finger at the touchpad's top right
// corner and the touchpad's click, then all released) reaches `buttonA`, `touchpadButton` and
// `touchpadPrimary` — the pad's node and its touchpad's node, read by two readers into one profile —
// and the battery is the power supply hid-playstation made of that report's status byte; the motion
// sensors (their own node, read once `sensorsActive` is set) give the report's rotation and gravity.
import Dispatch
import Foundation
import GameController
import Glibc
import Synchronization
import VMTestSupport

final class Seen: Sendable { let list = Mutex<[String]>([]) }
final class Motions: Sendable { let list = Mutex<[(GCAcceleration, GCRotationRate)]>([]) }

@MainActor func gameControllerChecks(_ pad: Pad) {
    setenv("HAPTICD_SOCKET", socketPath, 1)
    guard let controller = GCController.controllers().first(where: { $0.pad == pad.device }) else {
        return check(false, "\(pad.type): GCController.controllers() lists the pad")
    }
    guard let ds = controller.extendedGamepad as? GCDualSenseGamepad else {
        return check(false, "\(pad.type): the extended gamepad is a GCDualSenseGamepad", "\(String(describing: controller.extendedGamepad))")
    }
    let queue = DispatchQueue(label: "vmtest.input")
    controller.handlerQueue = queue
    let seen = Seen()
    let primary = ds.touchpadPrimary
    // @Sendable: formed in @MainActor code, run on the handler queue.
    ds.touchpadButton.pressedChangedHandler = { @Sendable _, _, pressed in
        seen.list.withLock { $0.append("touchpad \(pressed) at \(primary.xAxis.value),\(primary.yAxis.value)") }
    }
    ds.buttonA.pressedChangedHandler = { @Sendable _, _, pressed in seen.list.withLock { $0.append("A \(pressed)") } }
    let atRest = !ds.touchpadButton.isPressed && !ds.buttonA.isPressed
    let motion = controller.motion
    let motions = Motions()
    motion?.valueChangedHandler = { @Sendable m in motions.list.withLock { $0.append((m.acceleration, m.rotationRate)) } }
    let manual = motion?.sensorsRequireManualActivation == true && motion?.hasRotationRate == true && motion?.hasGravityAndUserAcceleration == false
    motion?.sensorsActive = true
    kill(pad.emulatorPID, SIGHUP)
    _ = waitUntil(3) { seen.list.withLock { $0.count } >= 4 }
    queue.sync {}
    let events = seen.list.withLock { $0 }
    ds.touchpadButton.pressedChangedHandler = nil
    ds.buttonA.pressedChangedHandler = nil
    check(atRest && events.filter { $0.hasPrefix("A ") } == ["A true", "A false"],
          "\(pad.type): GameController's buttonA is the cross, pressed and released (hid-playstation → the pad's node)", "\(events)")
    check(events.filter { $0.hasPrefix("touchpad ") } == ["touchpad true at 1.0,1.0", "touchpad false at 0.0,0.0"],
          "\(pad.type): touchpadButton is the touchpad's click, touchpadPrimary the finger at the top right corner, lifted after (the touchpad's own node)",
          "\(events)")
    _ = waitUntil(3) { motions.list.withLock { $0.count } >= 2 }
    queue.sync {}
    let reports = motions.list.withLock { $0 }
    motion?.valueChangedHandler = nil
    motion?.sensorsActive = false
    let turning = reports.first { $0.1.x > 0.5 }, still = reports.last
    // ds5_calibration: pitch 1000 → 1 105 920 × 1001 / 17 727 units at 1024 per °/s ≈ 60.98 °/s ≈ 1.064
    // rad/s; accel z 0x2000 → (8192 − 2) × 16 384 / 16 395 at 8192 per g ≈ 0.999 g. The other axes read
    // 0 raw and so their calibration's bias: yaw 14 units ≈ 0.015 rad/s, accel y 114 ≈ 0.014 g.
    check(manual && turning.map { abs($0.1.x - 1.064) < 0.005 && abs($0.0.z - 0.999) < 0.005 && abs($0.1.y - 0.0149) < 0.002 && abs($0.0.y - 0.0139) < 0.002 } == true
              && still.map { abs($0.1.x) < 0.005 && abs($0.0.z - 0.999) < 0.005 } == true,
          "\(pad.type): GCController.motion is the pad's motion sensors (hid-playstation's node): turning about x at 1.06 rad/s while pressed, still after, 1 g down throughout, once sensorsActive",
          "motion \(motion == nil ? "nil" : "there"), manual \(manual), reports \(reports.map { "acc \($0.0.x),\($0.0.y),\($0.0.z) rot \($0.1.x),\($0.1.y),\($0.1.z)" })")
    let battery = controller.battery
    check(battery.map { abs($0.batteryLevel - 0.75) < 1e-6 && $0.batteryState == .charging } ?? false,
          "\(pad.type): GCController.battery is hid-playstation's power supply: 75 %, charging, as the report's status byte says",
          battery.map { "level \($0.batteryLevel), state \($0.batteryState)" } ?? "nil")
}
