import Dispatch
import Foundation
import Glibc
@testable import GameController
import HapticCore
import Synchronization
import Testing

/// The rest of a controller beside its buttons: the battery from the kernel's power supply, each
/// pad's own profile class, captures and Apple's snapshot bytes, and the deprecated API
/// (`gamepad`, `controllerPausedHandler`) older games still use.
@Suite struct ControllerExtrasTests {
    typealias C = EvdevCode

    /// A sysfs tree as the kernel lays one out for a pad's evdev node: the input device's parent is
    /// the HID device, whose driver registered its battery (and, for some, a second supply).
    static func sysfs(_ supplies: [String: [String: String]], event: String = "event7") throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-sysfs-\(UUID().uuidString)").path
        let hid = root + "/devices/virtual/hid/0003:054C:0CE6.0001"
        try FileManager.default.createDirectory(atPath: hid + "/input/input9/\(event)", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/class/input", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: hid + "/input/input9/\(event)/device", withDestinationPath: "../../input9")
        try FileManager.default.createSymbolicLink(atPath: hid + "/input/input9/device", withDestinationPath: "../..")
        try FileManager.default.createSymbolicLink(atPath: root + "/class/input/\(event)", withDestinationPath: hid + "/input/input9/\(event)")
        for (name, attributes) in supplies {
            let dir = hid + "/power_supply/" + name
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (key, value) in attributes { try (value + "\n").write(toFile: dir + "/" + key, atomically: true, encoding: .utf8) }
        }
        return root
    }

    @Test func theBatteryIsThePadsPowerSupplyAsItsDriverReportsIt() throws {
        // hid-playstation: a percentage.
        let ps = try Self.sysfs(["ps-controller-battery-aa:bb": ["type": "Battery", "capacity": "55", "status": "Discharging"]])
        defer { try? FileManager.default.removeItem(atPath: ps) }
        let dir = try #require(PowerSupply.directory(eventNode: "/dev/input/event7", sysfs: ps))
        #expect(dir.hasSuffix("/ps-controller-battery-aa:bb"))
        let battery = GCDeviceBattery(directory: dir)
        #expect(battery.batteryLevel == 0.55 && battery.batteryState == .discharging)
        try "Charging\n".write(toFile: dir + "/status", atomically: true, encoding: .utf8)
        try "100\n".write(toFile: dir + "/capacity", atomically: true, encoding: .utf8)
        #expect(battery.batteryLevel == 1 && battery.batteryState == .charging, "read at each look, as Apple's values are live")

        // hid-nintendo: a level, no percentage; a supply that is not a battery is passed over.
        let nintendo = try Self.sysfs(["a-usb": ["type": "USB", "online": "1"],
                                       "nintendo_switch_controller_battery_0": ["type": "Battery", "capacity_level": "High", "status": "Not charging"]])
        defer { try? FileManager.default.removeItem(atPath: nintendo) }
        let switchBattery = GCDeviceBattery(directory: try #require(PowerSupply.directory(eventNode: "/dev/input/event7", sysfs: nintendo)))
        #expect(switchBattery.batteryLevel == 0.75 && switchBattery.batteryState == .unknown)

        // No supply, or not an evdev node: no battery.
        let none = try Self.sysfs([:])
        defer { try? FileManager.default.removeItem(atPath: none) }
        #expect(PowerSupply.directory(eventNode: "/dev/input/event7", sysfs: none) == nil)
        #expect(PowerSupply.directory(eventNode: "/dev/input/event8", sysfs: ps) == nil)
        #expect(PowerSupply.directory(eventNode: "/dev/hidraw0", sysfs: ps) == nil)
        #expect(GCController(pad: 0, info: JSONObject(["path": .string("/dev/input/event7"), "simulated": .bool(true)])).battery == nil)
    }

    /// The touchpad node is the pad's HID device's input device named "… Touchpad".
    @Test func theTouchpadNodeIsTheHIDDevicesTouchpadInput() throws {
        let root = try Self.sysfs([:])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let inputs = root + "/devices/virtual/hid/0003:054C:0CE6.0001/input"
        for (input, event, name) in [("input10", "event8", "DualSense Wireless Controller Motion Sensors"), ("input11", "event9", "DualSense Wireless Controller Touchpad")] {
            try FileManager.default.createDirectory(atPath: "\(inputs)/\(input)/\(event)", withIntermediateDirectories: true)
            try (name + "\n").write(toFile: "\(inputs)/\(input)/name", atomically: true, encoding: .utf8)
        }
        try "DualSense Wireless Controller\n".write(toFile: inputs + "/input9/name", atomically: true, encoding: .utf8)
        #expect(GamepadInput.touchpadNode(besides: "/dev/input/event7", sysfs: root) == "/dev/input/event9")
        #expect(GamepadInput.motionNode(besides: "/dev/input/event7", sysfs: root) == "/dev/input/event8", "the motion sensors' node, by the same rule")
        let link = root + "/usb-Sony_DualSense-event-joystick"  // as udev's /dev/input/by-id names it
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/input/event7")
        #expect(GamepadInput.touchpadNode(besides: link, sysfs: root) == "/dev/input/event9", "a link to the node is followed")
        try FileManager.default.removeItem(atPath: inputs + "/input11")
        #expect(GamepadInput.touchpadNode(besides: "/dev/input/event7", sysfs: root) == nil)
        #expect(GamepadInput.touchpadNode(besides: "/dev/hidraw3", sysfs: root) == nil)
    }

    /// The motion sensors' events as hid-playstation sends them (8192 per g, 1024 per °/s): one
    /// report per SYN_REPORT that follows a change, in g and radians per second.
    @Test func motionReportsAreInGAndRadiansPerSecond() throws {
        #expect(MotionScale(acceleration: [8192, 8192, 0], rotation: [1024, 1024, 1024]) == nil, "every axis needs its resolution")
        var frame = MotionFrame(scale: try #require(MotionScale(acceleration: [8192, 8192, 8192], rotation: [1024, 1024, 1024])))
        let abs = C.evAbs, syn = C.evSyn
        #expect(frame.apply(type: syn, code: 0, value: 0) == nil, "nothing changed: no report")
        #expect(frame.apply(type: abs, code: 0x02, value: 8192) == nil, "ABS_Z: 1 g")
        #expect(frame.apply(type: abs, code: 0x00, value: -4096) == nil, "ABS_X: −0.5 g")
        #expect(frame.apply(type: abs, code: 0x03, value: 90 * 1024) == nil, "ABS_RX: 90 °/s")
        #expect(frame.apply(type: abs, code: 0x05, value: -180 * 1024) == nil, "ABS_RZ: −180 °/s")
        let applied = frame.apply(type: syn, code: 0, value: 0)
        let report = try #require(applied)
        #expect(report.acceleration.x == -0.5 && report.acceleration.y == 0 && report.acceleration.z == 1)
        #expect(Swift.abs(report.rotationRate.x - .pi / 2) < 1e-12 && report.rotationRate.y == 0 && Swift.abs(report.rotationRate.z + .pi) < 1e-12)
        #expect(frame.apply(type: abs, code: 0x02, value: 8192) == nil && frame.apply(type: syn, code: 0, value: 0) == nil, "the same value again: no report")
        #expect(frame.apply(type: abs, code: 0x10, value: 5) == nil && frame.apply(type: syn, code: 0, value: 0) == nil, "another axis (ABS_HAT0X) is not motion")
    }

    /// A pad's motion takes values and runs its handler on the queue only while its sensors are
    /// active (Apple's DualSense and DualShock 4 need `sensorsActive`); a made one by code has none.
    @Test func motionIsDeliveredOnlyWhileTheSensorsAreActive() async throws {
        let motion = GCMotion()
        #expect(!motion.sensorsRequireManualActivation && motion.controller == nil)
        let calls = Mutex(0)
        motion.valueChangedHandler = { _ in calls.withLock { $0 += 1 } }
        let queue = DispatchQueue(label: "motion handlers")
        let up = GCAcceleration(x: 0, y: 0, z: 1), turning = GCRotationRate(x: 1, y: 0, z: 0)
        motion.deliver(acceleration: up, rotationRate: turning, on: queue)
        queue.sync {}
        #expect(motion.acceleration.z == 0 && motion.rotationRate.x == 0 && calls.withLock { $0 } == 0, "inactive: nothing")
        motion.sensorsActive = true
        motion.deliver(acceleration: up, rotationRate: turning, on: queue)
        queue.sync {}
        #expect(motion.acceleration.z == 1 && motion.rotationRate.x == 1 && calls.withLock { $0 } == 1, "active: the values, then the handler on its queue")
        #expect(!motion.hasGravityAndUserAcceleration && motion.gravity.z == 0, "the acceleration with gravity, as the DualSense gives it")
        let padless = GCController(pad: 0, info: JSONObject(["path": .string("/dev/input/event7"), "profile": .string("dualsense"), "simulated": .bool(true)]))
        #expect(padless.motion == nil, "the simulated pad has no sensors")
        #expect(GCController.withExtendedGamepad().motion == nil && GCController().motion == nil)
    }

    /// Stopping a reader whose thread has already ended (its pad unplugged: the thread closed its end
    /// of the wake socket) must not raise SIGPIPE, which would kill the program.
    @Test func wakingAReaderThatHasEndedRaisesNoSignal() {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        close(pair[0])  // the reading thread's end, closed as it ended
        EvdevNode.wake(pair[1])  // the process survives this line
        #expect(fcntl(pair[1], F_GETFD) == -1, "and the writing end is closed")
    }

    @Test func powerSupplyAttributesReadAsApplesLevelsAndStates() {
        #expect(PowerSupply.level(capacity: "5", capacityLevel: nil) == 0.05)
        #expect(PowerSupply.level(capacity: "250", capacityLevel: nil) == 1, "clamped")
        #expect(PowerSupply.level(capacity: "garbage", capacityLevel: "Critical") == 0.05)
        #expect(PowerSupply.level(capacity: nil, capacityLevel: "Full\n") == 1)
        #expect(PowerSupply.level(capacity: nil, capacityLevel: "Unknown") == 0)
        #expect(PowerSupply.state(status: "Full", level: 1) == .full)
        #expect(PowerSupply.state(status: "Not charging", level: 1) == .full)
        #expect(PowerSupply.state(status: "Unknown", level: 0.5) == .unknown)
        #expect(PowerSupply.state(status: nil, level: 0.5) == .unknown)
    }

    static func controller(_ profile: String) -> GCController {
        GCController(pad: 3, info: JSONObject(["profile": .string(profile), "simulated": .bool(true), "name": .string(profile)]))
    }

    /// Apple's strings (GameController's _GCNintendoJoyConDevice): a Joy-Con alone, through either backend.
    @Test func switchPadsHaveApplesProductCategories() {
        #expect(Self.controller("switch-pro-bluetooth-hd").productCategory == "Switch Pro Controller")
        for name in ["joycon-left-bluetooth", "joycon-left-bluetooth-hd", "joycon-left-usb", "joycon-left-usb-hd"] {
            #expect(Self.controller(name).productCategory == "Nintendo Switch Joy-Con (L)", "\(name)")
        }
        for name in ["joycon-right-bluetooth", "joycon-right-bluetooth-hd", "joycon-right-usb", "joycon-right-usb-hd"] {
            #expect(Self.controller(name).productCategory == "Nintendo Switch Joy-Con (R)", "\(name)")
        }
    }

    @Test func eachPadsProfileIsOfTheClassApplesIs() throws {
        let dualSense = Self.controller("dualsense-bt")
        let ds = try #require(dualSense.extendedGamepad as? GCDualSenseGamepad)
        #expect(dualSense.physicalInputProfile.isKind(of: GCDualSenseGamepad.self))
        #expect((ds as GCExtendedGamepad).leftTrigger === ds.leftTrigger && ds.rightTrigger.isAnalog == ds.rightTrigger.isAnalog)
        #expect(ds.elements[GCInputDualShockTouchpadButton] === ds.touchpadButton && ds.dpads[GCInputDualShockTouchpadOne] === ds.touchpadPrimary)
        #expect(!ds.touchpadButton.isPressed && ds.touchpadSecondary.xAxis.value == 0)
        ds.rightTrigger.setModeWeaponWithStartPosition(0.2, endPosition: 0.6, resistiveStrength: 1)
        #expect(ds.rightTrigger.mode == .weapon && ds.leftTrigger.mode == .off && ds.rightTrigger.status == .unknown)
        ds.rightTrigger.setModeOff()
        #expect(ds.rightTrigger.mode == .off && GCDualSenseAdaptiveTrigger.discretePositionCount == 10)

        let ds4 = try #require(Self.controller("dualshock4-usb").extendedGamepad as? GCDualShockGamepad)
        #expect(ds4.elements[GCInputDualShockTouchpadTwo] === ds4.touchpadSecondary && !(ds4.leftTrigger is GCDualSenseAdaptiveTrigger))
        let xbox = try #require(Self.controller("xbox-series-bt").extendedGamepad as? GCXboxGamepad)
        #expect(xbox.paddleButton1 == nil && xbox.buttonShare == nil)
        let other = try #require(Self.controller("generic").extendedGamepad)
        #expect(type(of: other) == GCExtendedGamepad.self && other.elements[GCInputDualShockTouchpadButton] == nil)
        #expect(other.elements.count == ds.elements.count - 1 - 2 * 7, "the extended profile: the touchpad's button and its two touches (each a pad, its two axes and four directions) less")
    }

    /// One report through a profile, as GamepadInput delivers it.
    static func press(_ profile: GCExtendedGamepad, _ element: GamepadElement, _ value: Float, on queue: DispatchQueue) {
        var after = profile.values.read { $0 }
        after.buttons[element.rawValue] = value
        profile.deliver([element], after: after, at: 2, on: queue)
        queue.sync {}
    }

    @Test func aCaptureKeepsItsValuesApartFromThePad() throws {
        let live = Self.controller("dualsense-usb")
        let queue = DispatchQueue(label: "test.capture")
        live.handlerQueue = queue
        let pad = try #require(live.extendedGamepad)
        Self.press(pad, .buttonA, 1, on: queue)
        let frozen = live.capture()
        #expect(frozen.isSnapshot && !live.isSnapshot && frozen.haptics == nil && live.haptics != nil)
        let copy = try #require(frozen.extendedGamepad as? GCDualSenseGamepad, "a capture is of the pad's profile class")
        #expect(copy !== pad && copy.controller === frozen && copy.buttonA.isPressed)
        Self.press(pad, .buttonA, 0, on: queue)
        #expect(!pad.buttonA.isPressed && copy.buttonA.isPressed, "the capture does not follow the pad")
        copy.buttonB.setValue(1)
        #expect(copy.buttonB.isPressed && !pad.buttonB.isPressed, "nor the pad the capture")
        let profileCopy = pad.capture()
        #expect(profileCopy is GCDualSenseGamepad && profileCopy.controller == nil && !profileCopy.buttonA.isPressed)
        pad.setStateFromPhysicalInput(copy)
        #expect(pad.buttonA.isPressed && pad.buttonB.isPressed, "a capture replayed onto the live profile")

        // The deprecated profile's capture is a copy too; replaying the smaller profile onto the
        // live one leaves what it lacks alone.
        let legacy = try #require(live.gamepad)
        let legacyCopy = legacy.capture()
        #expect(legacyCopy !== legacy && legacyCopy.buttonA !== legacy.buttonA && legacyCopy.buttonA.isPressed == pad.buttonA.isPressed)
        pad.leftTrigger.setValue(1)
        pad.buttonA.setValue(0)
        pad.setStateFromPhysicalInput(legacyCopy)
        #expect(pad.buttonA.isPressed && pad.leftTrigger.isPressed, "A from the copy; the trigger, which GCGamepad has not, stays")
        pad.stamp(5)
        pad.stamp(3)
        #expect(pad.lastEventTimestamp == 5, "two readers' stamps never go backwards")

        let scripted = GCController.withExtendedGamepad()
        #expect(scripted.isSnapshot && scripted.extendedGamepad?.allButtons.contains { $0.isPressed } == false)
        scripted.extendedGamepad?.leftThumbstick.setValueForXAxis(0.5, yAxis: -2)
        #expect(scripted.extendedGamepad?.leftThumbstick.yAxis.value == -1)
    }

    /// `GCController()`, NSObject's initialiser, which Apple's class inherits (NES_EMU keeps one as
    /// a placeholder until a pad connects, and tests `extendedGamepad == nil`): a controller of no
    /// device and no profile.
    @Test func aControllerMadeWithInitHasNoProfileAndNoDevice() {
        let bare = GCController()
        #expect(bare.extendedGamepad == nil && bare.gamepad == nil && bare.microGamepad == nil)
        #expect(bare.haptics == nil && bare.battery == nil && bare.light == nil && bare.motion == nil)
        #expect(bare.vendorName == nil && bare.productCategory == GCProductCategoryHID && bare.isSnapshot)
        #expect(bare.physicalInputProfile.elements.isEmpty && bare.physicalInputProfile.allButtons.isEmpty)
        bare.playerIndex = .index1
        #expect(bare.playerIndex == .index1)
        #expect(!GCController.controllers().contains { $0 === bare })
    }

    /// A virtual (on-screen) controller compiles as Apple's code writes it and fails to connect with
    /// an error that says why, in both forms; it never becomes a controller (GCVirtualController.swift).
    @Test func aVirtualControllerFailsToConnectAndSaysWhy() async throws {
        let configuration = GCVirtualControllerConfiguration()  // as shipping code spells it
        configuration.elements = [GCInputLeftThumbstick, GCInputButtonA, GCInputButtonB]
        configuration.isHidden = true
        let virtual = GCVirtualController(configuration: configuration)
        virtual.updateConfiguration(forElement: GCInputLeftThumbstick) { element in
            element.actsAsTouchpad = true
            return element
        }
        var seen: Bool?
        virtual.changeElement(GCInputLeftThumbstick) { element in
            seen = element.actsAsTouchpad
            return element
        }
        #expect(seen == true, "the element's configuration is kept")
        await #expect { try await virtual.connect() } throws: { ($0 as NSError).localizedDescription.contains("GCController.controllers()") }
        let replied = await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            virtual.connect { error in done.resume(returning: error.map { ($0 as NSError).localizedDescription }) }
        }
        #expect(replied?.contains("no such overlay") == true)
        virtual.setValue(1, forButtonElement: GCInputButtonA)
        virtual.setPosition(CGPoint(x: 0.5, y: 1), forDirectionPadElement: GCInputLeftThumbstick)
        virtual.disconnect()
        #expect(virtual.controller == nil)
    }

    /// No keyboard or mouse is exposed (GCKeyboard.swift says why): code finds none, as on a device
    /// without them. Key codes are the HID keyboard usages, as Apple's.
    @Test func keyboardsAndMiceAreAbsentAndKeyCodesAreHIDUsages() {
        #expect(GCKeyboard.coalesced == nil && GCMouse.current == nil && GCMouse.mice().isEmpty)
        let usages: [(GCKeyCode, Int)] = [
            (.keyA, 0x04), (.keyZ, 0x1D), (.one, 0x1E), (.zero, 0x27), (.returnOrEnter, 0x28), (.escape, 0x29), (.spacebar, 0x2C),
            (.capsLock, 0x39), (.F1, 0x3A), (.F12, 0x45), (.rightArrow, 0x4F), (.upArrow, 0x52), (.keypad1, 0x59), (.keypad0, 0x62),
            (.F13, 0x68), (.F20, 0x6F), (.international1, 0x87), (.LANG9, 0x98), (.leftControl, 0xE0), (.rightGUI, 0xE7),
        ]
        for (code, usage) in usages { #expect(code.rawValue == usage, "\(code)") }
        #expect(Set(usages.map(\.0)).count == usages.count && GCKeyCode(rawValue: 0x2C) == .spacebar)
    }

    @Test func snapshotDataIsApplesLayout() throws {
        let layout = GamepadLayout(.unknown)
        var values = GamepadState(layout: layout).committed
        values.buttons[GamepadElement.buttonA.rawValue] = 1
        values.buttons[GamepadElement.rightTrigger.rawValue] = 0.25
        values.x[GamepadElement.leftThumbstick.rawValue] = -0.5
        values.y[GamepadElement.dpad.rawValue] = 1
        values.buttons[GamepadElement.rightThumbstickButton.rawValue] = 1
        let pad = GCExtendedGamepad(layout: layout, values: InputValues(values))
        let data = pad.saveSnapshot().snapshotData
        #expect(data.count == 63 && Array(data.prefix(4)) == [0x01, 0x01, 63, 0], "version 0x0101, its size")
        func float(_ i: Int) -> Float {
            Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[data.startIndex + 4 + 4 * i + $1]) << (8 * UInt32($1)) })
        }
        #expect(float(1) == 1 && float(2) == 1 && float(8) == -0.5 && float(13) == 0.25, "d-pad y, A, left stick x, right trigger")
        #expect(Array(data.suffix(3)) == [1, 0, 1])

        let restored = GCExtendedGamepadSnapshot(snapshotData: data)
        #expect(restored.buttonA.isPressed && restored.dpad.up.isPressed && restored.rightTrigger.value == 0.25 && restored.rightTrigger.isPressed)
        #expect(restored.leftThumbstick.xAxis.value == -0.5 && restored.rightThumbstickButton?.isPressed == true && restored.snapshotData == data)

        var hostile = Data(data.prefix(60))  // version 1: no thumbstick buttons
        hostile.replaceSubrange(12..<16, with: withUnsafeBytes(of: Float.nan.bitPattern.littleEndian, Array.init))
        hostile.replaceSubrange(36..<40, with: withUnsafeBytes(of: Float(7).bitPattern.littleEndian, Array.init))
        let clamped = GCExtendedGamepadSnapshot(snapshotData: hostile)
        #expect(clamped.buttonA.value == 0 && clamped.leftThumbstick.xAxis.value == 1 && clamped.rightThumbstickButton?.isPressed == false)
        // Apple's C API over the same bytes.
        var fields = GCExtendedGamepadSnapshotData()
        #expect(GCExtendedGamepadSnapshotDataFromNSData(&fields, data))
        #expect(fields.version == 0x0101 && fields.size == 63 && fields.buttonA == 1 && fields.leftThumbstickX == -0.5 && fields.rightTrigger == 0.25)
        #expect(fields.supportsClickableThumbsticks.boolValue && !fields.leftThumbstickButton.boolValue && fields.rightThumbstickButton.boolValue)
        #expect(withUnsafePointer(to: &fields) { NSDataFromGCExtendedGamepadSnapshotData($0) } == data, "and back, byte for byte")
        fields.version = UInt16(GCExtendedGamepadSnapshotDataVersion.version1.rawValue)
        fields.size = 60
        #expect(withUnsafePointer(to: &fields) { NSDataFromGCExtendedGamepadSnapshotData($0) }?.count == 60, "version 1 has no thumbstick buttons")
        var untouched = GCExtendedGamepadSnapshotData()
        #expect(!GCExtendedGamepadSnapshotDataFromNSData(&untouched, Data([0x01, 0x01, 63, 0])) && untouched.version == 0)
        #expect(!GCExtendedGamepadSnapshotDataFromNSData(&untouched, Data(repeating: 0, count: 63)), "version 0 is none of Apple's")
        #expect(!GCExtendedGamepadSnapshotDataFromNSData(nil, data) && !GCExtendedGamepadSnapshotDataFromNSData(&untouched, nil))

        // A pad without thumbstick buttons says so in the data.
        let digitalLayout = GamepadLayout(GamepadInputTests.digital)
        let digital = GCExtendedGamepad(layout: digitalLayout, values: InputValues(GamepadState(layout: digitalLayout).committed))
        #expect(digital.leftThumbstickButton == nil && digital.saveSnapshot().snapshotData[60] == 0)

        let short = GCExtendedGamepadSnapshot(snapshotData: Data([1, 1, 63]))
        #expect(short.allButtons.allSatisfy { !$0.isPressed } && short.dpad.xAxis.value == 0)
        short.snapshotData = data
        #expect(short.buttonA.isPressed)
    }

    @Test func deprecatedGamepadAndPausedHandlerStillRun() throws {
        let controller = Self.controller("xbox-one-usb")
        let queue = DispatchQueue(label: "test.deprecated")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        controller.handlerQueue = queue
        let extended = try #require(controller.extendedGamepad)
        let gamepad = try #require(controller.gamepad)
        #expect(gamepad.buttonA === extended.buttonA && gamepad.controller === controller && controller.gamepad === gamepad)
        #expect(gamepad.elements[GCInputLeftTrigger] == nil && gamepad.elements[GCInputDirectionPad] === extended.dpad)
        let log = Mutex<[String]>([])
        @Sendable func note(_ s: String) { log.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true ? s : "off queue: \(s)") } }
        gamepad.valueChangedHandler = { g, element in note(element === g.buttonA ? "gamepad A" : "gamepad other") }
        extended.valueChangedHandler = { _, element in note(element === extended.buttonMenu ? "extended menu" : "extended") }
        controller.controllerPausedHandler = { c in note(c === controller ? "paused" : "paused, another controller") }
        Self.press(extended, .buttonA, 1, on: queue)
        Self.press(extended, .leftTrigger, 1, on: queue)
        Self.press(extended, .buttonMenu, 1, on: queue)
        Self.press(extended, .buttonMenu, 0, on: queue)
        #expect(log.withLock { $0 } == ["extended", "gamepad A", "extended", "extended menu", "paused", "extended menu"])
    }
}
