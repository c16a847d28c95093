import Dispatch
@testable import GameController
import Synchronization
import Testing

/// The extended gamepad profile from a pad's evdev events: the mapping per driver convention, the
/// values, the frames, and the handlers (GamepadLayout, GamepadState, GCExtendedGamepad).
@Suite struct GamepadInputTests {
    typealias C = EvdevCode
    static let face: Set<UInt16> = [C.btnSouth, C.btnEast, C.btnNorth, C.btnWest, C.btnTL, C.btnTR, C.btnSelect, C.btnStart, C.btnMode, C.btnThumbL, C.btnThumbR]
    static let byte = InputCapabilities.Axis(minimum: 0, maximum: 255)
    static let hat = InputCapabilities.Axis(minimum: -1, maximum: 1)

    /// hid-playstation's DualSense: positional face buttons, both analog and digital triggers,
    /// sticks of 0…255, the d-pad as hat 0.
    static let dualSense = InputCapabilities(
        vendor: C.sonyVendor, keys: face.union([C.btnTL2, C.btnTR2]),
        axes: [C.absX: byte, C.absY: byte, C.absZ: byte, C.absRX: byte, C.absRY: byte, C.absRZ: byte, C.absHat0X: hat, C.absHat0Y: hat])
    /// An Xbox pad over Bluetooth through hid-generic's mapping: the right stick on Z/RZ, the triggers
    /// on BRAKE/GAS (Android's convention).
    static let xboxBluetooth = InputCapabilities(
        vendor: 0x045e, keys: face,
        axes: [C.absX: .init(minimum: 0, maximum: 65535), C.absY: .init(minimum: 0, maximum: 65535), C.absZ: .init(minimum: 0, maximum: 65535),
               C.absRZ: .init(minimum: 0, maximum: 65535), C.absBrake: .init(minimum: 0, maximum: 1023), C.absGas: .init(minimum: 0, maximum: 1023),
               C.absHat0X: hat, C.absHat0Y: hat])
    /// A pad with digital triggers and d-pad keys, and no home or thumbstick buttons.
    static let digital = InputCapabilities(
        vendor: 0x057e, keys: [C.btnSouth, C.btnEast, C.btnNorth, C.btnWest, C.btnTL, C.btnTR, C.btnTL2, C.btnTR2, C.btnSelect, C.btnStart,
                               C.btnDpadUp, C.btnDpadDown, C.btnDpadLeft, C.btnDpadRight],
        axes: [C.absX: .init(minimum: -32767, maximum: 32767, flat: 500), C.absY: .init(minimum: -32767, maximum: 32767, flat: 500),
               C.absRX: .init(minimum: -32767, maximum: 32767), C.absRY: .init(minimum: -32767, maximum: 32767)])

    @Test func eachDriversConventionMapsToApplesElements() {
        let ds = GamepadLayout(Self.dualSense)
        #expect(ds.keys[C.btnWest] == .button(.buttonX) && ds.keys[C.btnNorth] == .button(.buttonY), "Sony: positional")
        #expect(ds.axes[C.absZ] == .analogButton(.leftTrigger, Self.byte) && ds.axes[C.absRZ] == .analogButton(.rightTrigger, Self.byte))
        #expect(ds.keys[C.btnTL2] == nil, "the analog trigger, not its digital twin")
        #expect(ds.axes[C.absRX] == .stickAxis(.rightThumbstick, y: false, Self.byte))
        #expect(ds.axes[C.absHat0Y] == .hat(y: true))
        #expect(ds.present.isSuperset(of: [.buttonHome, .buttonOptions, .leftThumbstickButton, .rightThumbstickButton]))

        let xb = GamepadLayout(Self.xboxBluetooth)
        #expect(xb.keys[C.btnX] == .button(.buttonX) && xb.keys[C.btnY] == .button(.buttonY), "others: BTN_X and BTN_Y")
        #expect(xb.keys[C.btnX] == xb.keys[C.btnNorth], "BTN_X is BTN_NORTH's code")
        if case .stickAxis(.rightThumbstick, y: false, _)? = xb.axes[C.absZ] {} else { Issue.record("right stick on Z: \(String(describing: xb.axes[C.absZ]))") }
        if case .analogButton(.leftTrigger, _)? = xb.axes[C.absBrake] {} else { Issue.record("left trigger on BRAKE") }
        if case .analogButton(.rightTrigger, _)? = xb.axes[C.absGas] {} else { Issue.record("right trigger on GAS") }

        let dg = GamepadLayout(Self.digital)
        #expect(dg.keys[C.btnTL2] == .button(.leftTrigger) && dg.keys[C.btnTR2] == .button(.rightTrigger))
        #expect(dg.keys[C.btnDpadUp] == .dpadButton(up: true, down: false, left: false, right: false))
        #expect(!dg.present.contains(.buttonHome) && !dg.present.contains(.leftThumbstickButton))
    }

    @Test func valuesChangeAtEachReportAndReadAsApplesDo() {
        var s = GamepadState(layout: GamepadLayout(Self.dualSense))
        #expect(s.apply(type: C.evKey, code: C.btnSouth, value: 1) == nil, "nothing until the report")
        #expect(s.apply(type: C.evAbs, code: C.absY, value: 0) == nil)
        #expect(s.apply(type: C.evAbs, code: C.absHat0Y, value: -1) == nil)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == [.buttonA, .dpad, .leftThumbstick])
        #expect(s.committed.isPressed(.buttonA))
        #expect(s.committed.y[GamepadElement.leftThumbstick.rawValue] == 1, "evdev's up (minimum) is Apple's +1")
        #expect(s.committed.y[GamepadElement.dpad.rawValue] == 1, "hat up")
        // A trigger pulled a little is not pressed; past the threshold it is.
        _ = s.apply(type: C.evAbs, code: C.absZ, value: 13)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == [.leftTrigger])
        #expect(abs(s.committed.buttons[GamepadElement.leftTrigger.rawValue] - 13 / 255) < 1e-6 && !s.committed.isPressed(.leftTrigger))
        _ = s.apply(type: C.evAbs, code: C.absZ, value: 255)
        _ = s.apply(type: C.evSyn, code: C.synReport, value: 0)
        #expect(s.committed.isPressed(.leftTrigger))
        // A report that changes nothing changes no element.
        _ = s.apply(type: C.evAbs, code: C.absZ, value: 255)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == [])
        // Dropped events: the frame is not taken.
        _ = s.apply(type: C.evSyn, code: C.synDropped, value: 0)
        _ = s.apply(type: C.evKey, code: C.btnEast, value: 1)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == nil)
        #expect(!s.committed.isPressed(.buttonB))
    }

    @Test func sticksKeepTheDriversDeadZoneAndDpadKeysCombine() {
        var s = GamepadState(layout: GamepadLayout(Self.digital))
        _ = s.apply(type: C.evAbs, code: C.absX, value: 400)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == [], "within the flat zone: still centred")
        _ = s.apply(type: C.evAbs, code: C.absX, value: -32767)
        _ = s.apply(type: C.evKey, code: C.btnDpadUp, value: 1)
        _ = s.apply(type: C.evKey, code: C.btnDpadRight, value: 1)
        #expect(s.apply(type: C.evSyn, code: C.synReport, value: 0) == [.dpad, .leftThumbstick])
        #expect(s.committed.x[GamepadElement.leftThumbstick.rawValue] == -1)
        #expect(s.committed.x[GamepadElement.dpad.rawValue] == 1 && s.committed.y[GamepadElement.dpad.rawValue] == 1)
    }

    @Test func theProfilesHandlersRunOnTheQueueElementsFirst() {
        let layout = GamepadLayout(Self.dualSense)
        var s = GamepadState(layout: layout)
        let pad = GCExtendedGamepad(layout: layout, values: InputValues(s.committed))
        #expect(pad.buttonHome != nil && pad.elements[GCInputButtonA] === pad.buttonA && pad.elements["Direction Pad Up"] === pad.dpad.up)
        let queue = DispatchQueue(label: "test.handlers")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let log = Mutex<[String]>([])
        @Sendable func note(_ s: String) { log.withLock { $0.append(DispatchQueue.getSpecific(key: key) == true ? s : "off queue: \(s)") } }
        pad.buttonA.valueChangedHandler = { _, value, pressed in note("A value \(value) \(pressed)") }
        pad.buttonA.pressedChangedHandler = { _, _, pressed in note("A pressed \(pressed)") }
        pad.leftTrigger.pressedChangedHandler = { _, _, pressed in note("LT pressed \(pressed)") }
        pad.leftTrigger.valueChangedHandler = { b, _, _ in note("LT value \(b.value > 0)") }
        pad.dpad.valueChangedHandler = { _, x, y in note("dpad \(x) \(y)") }
        pad.dpad.up.pressedChangedHandler = { _, _, pressed in note("up pressed \(pressed)") }
        pad.valueChangedHandler = { gamepad, element in note("gamepad \(element === gamepad.buttonA ? "A" : element === gamepad.dpad ? "dpad" : "LT")") }

        func frame(_ events: [(UInt16, UInt16, Int32)]) {
            for e in events { _ = s.apply(type: e.0, code: e.1, value: e.2) }
            guard let changed = s.apply(type: C.evSyn, code: C.synReport, value: 0) else { return }
            pad.deliver(changed, after: s.committed, at: 1, on: queue)
        }
        frame([(C.evKey, C.btnSouth, 1), (C.evAbs, C.absHat0Y, -1)])
        #expect(pad.buttonA.isPressed && pad.buttonA.value == 1 && pad.dpad.up.isPressed, "the values change before the handlers run")
        frame([(C.evAbs, C.absZ, 5)])  // below the threshold: a value, no press
        frame([(C.evAbs, C.absZ, 200)])
        frame([(C.evKey, C.btnSouth, 0)])
        queue.sync {}
        #expect(log.withLock { $0 } == [
            "A value 1.0 true", "A pressed true", "gamepad A", "dpad 0.0 1.0", "up pressed true", "gamepad dpad",
            "LT value true", "gamepad LT",
            "LT value true", "LT pressed true", "gamepad LT",
            "A value 0.0 false", "A pressed false", "gamepad A",
        ])
        #expect(pad.lastEventTimestamp == 1)
        // Released, every direction reads 0 as Apple's does: not -0.0 ("\(value)" would print it).
        frame([(C.evAbs, C.absHat0Y, 0)])
        for button in [pad.dpad.up, pad.dpad.down, pad.dpad.left, pad.dpad.right] {
            #expect(button.value == 0 && button.value.sign == .plus, "\(button.value)")
            #expect("\(button.value)" == "0.0")
        }
    }

    /// A program that never runs its handler queue: the handlers of at most 256 reports wait there,
    /// the values stay current.
    @Test func handlersWaitingOnAQueueNobodyRunsAreBounded() {
        let layout = GamepadLayout(Self.dualSense)
        var s = GamepadState(layout: layout)
        let pad = GCExtendedGamepad(layout: layout, values: InputValues(s.committed))
        let calls = Mutex(0)
        pad.leftThumbstick.valueChangedHandler = { _, _, _ in calls.withLock { $0 += 1 } }
        let queue = DispatchQueue(label: "test.stalled")
        queue.suspend()
        for k in 0..<1000 {
            _ = s.apply(type: C.evAbs, code: C.absX, value: Int32(k % 256))
            if let changed = s.apply(type: C.evSyn, code: C.synReport, value: 0) { pad.deliver(changed, after: s.committed, at: 1, on: queue) }
        }
        #expect(pad.leftThumbstick.xAxis.value == GamepadLayout.centred(Int32(999 % 256), Self.byte))
        queue.resume()
        queue.sync {}
        #expect(calls.withLock { $0 } == GCExtendedGamepad.maximumQueuedReports)
    }

    /// hid-playstation's touchpad node: the click and two multi-touch slots.
    static let touchpad = InputCapabilities(
        vendor: C.sonyVendor, keys: [C.btnLeft, 0x14a /* BTN_TOUCH */],
        axes: [C.absX: .init(minimum: 0, maximum: 1919), C.absY: .init(minimum: 0, maximum: 1079), C.absMTSlot: .init(minimum: 0, maximum: 1),
               C.absMTPositionX: .init(minimum: 0, maximum: 1919), C.absMTPositionY: .init(minimum: 0, maximum: 1079),
               C.absMTTrackingID: .init(minimum: 0, maximum: 65535)])

    /// The touchpad's two touches as `touchpadPrimary` and `touchpadSecondary` (−1…1, up positive;
    /// the centre once lifted), its click as `touchpadButton`; read by a second reader into the same
    /// profile, each reader's elements kept apart.
    @Test func theTouchpadsTouchesAndClickAreItsElements() {
        let layout = GamepadLayout(touchpad: Self.touchpad)
        #expect(layout.present == [.touchpadButton, .touchpadPrimary, .touchpadSecondary] && layout.axes[C.absX] == nil, "the pointer emulation is not read")
        var s = GamepadState(layout: layout)
        func frame(_ events: [(UInt16, UInt16, Int32)]) -> [GamepadElement]? {
            for e in events { _ = s.apply(type: e.0, code: e.1, value: e.2) }
            return s.apply(type: C.evSyn, code: C.synReport, value: 0)
        }
        let primary = GamepadElement.touchpadPrimary.rawValue, secondary = GamepadElement.touchpadSecondary.rawValue
        #expect(frame([(C.evAbs, C.absMTSlot, 0), (C.evAbs, C.absMTTrackingID, 5), (C.evAbs, C.absMTPositionX, 1919), (C.evAbs, C.absMTPositionY, 0)])
            == [.touchpadPrimary])
        #expect(s.committed.x[primary] == 1 && s.committed.y[primary] == 1, "the top right corner")
        #expect(frame([(C.evAbs, C.absMTSlot, 1), (C.evAbs, C.absMTTrackingID, 6), (C.evAbs, C.absMTPositionX, 0), (C.evAbs, C.absMTPositionY, 1079)])
            == [.touchpadSecondary])
        #expect(s.committed.x[secondary] == -1 && s.committed.y[secondary] == -1)
        #expect(frame([(C.evAbs, C.absMTSlot, 0), (C.evAbs, C.absMTTrackingID, -1)]) == [.touchpadPrimary])
        #expect(s.committed.x[primary] == 0 && s.committed.y[primary] == 0 && s.committed.x[secondary] == -1, "lifted: the centre; the other touch stays")
        #expect(frame([(C.evAbs, C.absMTTrackingID, 7)]) == [.touchpadPrimary], "a touch where the last one was: the kernel sends no position")
        #expect(s.committed.x[primary] == 1 && s.committed.y[primary] == 1)
        #expect(frame([(C.evAbs, C.absMTSlot, 9), (C.evAbs, C.absMTTrackingID, 8), (C.evKey, C.btnLeft, 1)]) == [.touchpadButton], "slots past two are not read")
        #expect(s.committed.isPressed(.touchpadButton))

        // Reading starts with the node's state, as libevdev holds it.
        var fresh = GamepadState(layout: layout)
        let changed = fresh.resync(key: { $0 == C.btnLeft }, axis: { $0 == C.absMTSlot ? 1 : nil }, slot: { n, code in
            switch (n, code) {
            case (0, C.absMTTrackingID): 3
            case (0, C.absMTPositionX): 1919
            case (0, C.absMTPositionY): 1079
            case (1, C.absMTTrackingID): -1
            case (1, C.absMTPositionX), (1, C.absMTPositionY): 0  // where its last touch was
            default: nil
            }
        })
        #expect(changed == [.touchpadButton, .touchpadPrimary] && fresh.committed.x[primary] == 1 && fresh.committed.y[primary] == -1)
        _ = fresh.apply(type: C.evAbs, code: C.absMTTrackingID, value: 4)  // slot 1, the current one
        #expect(fresh.apply(type: C.evSyn, code: C.synReport, value: 0) == [.touchpadSecondary])
        #expect(fresh.committed.x[secondary] == -1 && fresh.committed.y[secondary] == 1, "a new touch in slot 1, where its last one was")

        // The pad's reader and the touchpad's deliver to one profile; neither undoes the other.
        let padLayout = GamepadLayout(Self.dualSense)
        var padState = GamepadState(layout: padLayout)
        let profile = GCDualSenseGamepad.make(layout: padLayout, values: InputValues(padState.committed)) as! GCDualSenseGamepad
        let queue = DispatchQueue(label: "test.touchpad")
        profile.deliver(changed, after: fresh.committed, at: 1, on: queue)
        _ = padState.apply(type: C.evKey, code: C.btnSouth, value: 1)
        if let c = padState.apply(type: C.evSyn, code: C.synReport, value: 0) { profile.deliver(c, after: padState.committed, at: 2, on: queue) }
        queue.sync {}
        #expect(profile.buttonA.isPressed && profile.touchpadButton.isPressed && profile.touchpadPrimary.xAxis.value == 1)
    }

    /// A pad whose node this process cannot read as an evdev device (the simulated pad's has none):
    /// the profile is there, with every element, and reads at rest.
    @Test func aPadWhoseNodeCannotBeReadHasAProfileAtRest() {
        #expect(GamepadInput.open(path: "/dev/null") == nil)
        #expect(GamepadInput.open(path: "/nonexistent/event0") == nil)
        let layout = GamepadLayout(.unknown)
        let pad = GCExtendedGamepad(layout: layout, values: InputValues(GamepadState(layout: layout).committed))
        #expect(pad.buttonHome != nil && pad.leftThumbstickButton != nil && pad.buttonOptions != nil)
        #expect(pad.allButtons.allSatisfy { !$0.isPressed } && pad.leftThumbstick.xAxis.value == 0)
    }
}
