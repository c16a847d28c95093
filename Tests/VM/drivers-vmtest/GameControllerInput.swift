// The Swift GameController library on the DualSense over USB, through hid-playstation: the profile is
// a GCDualSenseGamepad; uhidpad's input report (SIGHUP: cross, one finger at the touchpad's top right
// corner and the touchpad's click, then all released) reaches `buttonA`, `touchpadButton` and
// `touchpadPrimary` — the pad's node and its touchpad's node, read by two readers into one profile —
// and the battery is the power supply hid-playstation made of that report's status byte.
import Dispatch
import Foundation
import GameController
import Glibc
import Synchronization
import VMTestSupport

final class Seen: Sendable { let list = Mutex<[String]>([]) }

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
    let battery = controller.battery
    check(battery.map { abs($0.batteryLevel - 0.75) < 1e-6 && $0.batteryState == .charging } ?? false,
          "\(pad.type): GCController.battery is hid-playstation's power supply: 75 %, charging, as the report's status byte says",
          battery.map { "level \($0.batteryLevel), state \($0.batteryState)" } ?? "nil")
}
