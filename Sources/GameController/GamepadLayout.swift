// A pad's input as Apple's extended gamepad profile: which evdev code feeds which element, and the
// elements' values as the pad's events arrive. Pure: no I/O (GamepadInput reads the node).
//
// The mapping follows the kernel's gamepad specification (Documentation/input/gamepad.rst) and the
// conventions drivers use beside it, as SDL's Linux driver guesses a mapping for a pad it has no
// entry for: Sony's drivers name the face buttons by position (BTN_WEST, BTN_NORTH), the others by
// Xbox letter (BTN_X, BTN_Y: the same codes, swapped); triggers are ABS_HAT2Y/X (the
// specification), ABS_BRAKE/GAS (Android's, many Bluetooth pads) or ABS_Z/RZ (Xbox 360 and
// PlayStation pads), else the digital BTN_TL2/TR2; the right stick is ABS_RX/RY, or ABS_Z/RZ on a pad
// without them (Android's); the d-pad is BTN_DPAD_* or hat 0.

/// The elements of Apple's extended gamepad profile that a pad's events can move.
package enum GamepadElement: Int, CaseIterable, Sendable {
    case buttonA, buttonB, buttonX, buttonY
    case leftShoulder, rightShoulder, leftTrigger, rightTrigger
    case leftThumbstickButton, rightThumbstickButton
    case buttonMenu, buttonOptions, buttonHome
    case dpad, leftThumbstick, rightThumbstick
    /// The DualShock 4's and DualSense's touchpad (`GCDualShockGamepad`, `GCDualSenseGamepad`): its
    /// click and its two touches. Not part of the extended profile: their drivers report the
    /// touchpad on an evdev node of its own (`GamepadLayout(touchpad:)`).
    case touchpadButton, touchpadPrimary, touchpadSecondary

    /// The elements of Apple's extended gamepad profile (all but the touchpad's).
    static let extended: [GamepadElement] = allCases.filter { $0.rawValue <= GamepadElement.rightThumbstick.rawValue }

    /// The direction pads (dpad, the two thumbsticks, the touches): two axes each.
    var isDirectionPad: Bool {
        switch self {
        case .dpad, .leftThumbstick, .rightThumbstick, .touchpadPrimary, .touchpadSecondary: true
        default: false
        }
    }
}

/// What a pad's evdev node says it has (EVIOCGBIT, EVIOCGABS, EVIOCGID).
package struct InputCapabilities: Equatable, Sendable {
    package struct Axis: Equatable, Sendable {
        package var minimum: Int32
        package var maximum: Int32
        /// The driver's dead zone around the centre (input_absinfo.flat).
        package var flat: Int32
        package init(minimum: Int32, maximum: Int32, flat: Int32 = 0) {
            self.minimum = minimum
            self.maximum = maximum
            self.flat = flat
        }
    }
    package var vendor: UInt16
    package var keys: Set<UInt16>
    package var axes: [UInt16: Axis]
    package init(vendor: UInt16, keys: Set<UInt16>, axes: [UInt16: Axis]) {
        self.vendor = vendor
        self.keys = keys
        self.axes = axes
    }

    /// A pad whose node cannot be read: every element of the profile, none that moves.
    package static let unknown = InputCapabilities(vendor: 0, keys: [], axes: [:])
}

/// Linux input event codes (linux/input-event-codes.h) the layout uses.
package enum EvdevCode {
    package static let synReport: UInt16 = 0, synDropped: UInt16 = 3
    package static let evSyn: UInt16 = 0, evKey: UInt16 = 1, evAbs: UInt16 = 3
    package static let btnSouth: UInt16 = 0x130, btnEast: UInt16 = 0x131, btnNorth: UInt16 = 0x133, btnWest: UInt16 = 0x134
    /// BTN_X and BTN_Y are BTN_NORTH and BTN_WEST: the Xbox letters' codes.
    package static let btnX: UInt16 = 0x133, btnY: UInt16 = 0x134
    package static let btnTL: UInt16 = 0x136, btnTR: UInt16 = 0x137, btnTL2: UInt16 = 0x138, btnTR2: UInt16 = 0x139
    package static let btnSelect: UInt16 = 0x13a, btnStart: UInt16 = 0x13b, btnMode: UInt16 = 0x13c
    package static let btnThumbL: UInt16 = 0x13d, btnThumbR: UInt16 = 0x13e
    package static let btnDpadUp: UInt16 = 0x220, btnDpadDown: UInt16 = 0x221, btnDpadLeft: UInt16 = 0x222, btnDpadRight: UInt16 = 0x223
    package static let absX: UInt16 = 0x00, absY: UInt16 = 0x01, absZ: UInt16 = 0x02
    package static let absRX: UInt16 = 0x03, absRY: UInt16 = 0x04, absRZ: UInt16 = 0x05
    package static let absGas: UInt16 = 0x09, absBrake: UInt16 = 0x0a
    package static let absHat0X: UInt16 = 0x10, absHat0Y: UInt16 = 0x11, absHat2X: UInt16 = 0x14, absHat2Y: UInt16 = 0x15
    package static let sonyVendor: UInt16 = 0x054c
    /// A touchpad's click (hid-playstation's and hid-sony's touchpad node).
    package static let btnLeft: UInt16 = 0x110
    /// Multi-touch: which slot the next events are for, a slot's contact (−1: lifted) and position.
    package static let absMTSlot: UInt16 = 0x2f, absMTPositionX: UInt16 = 0x35, absMTPositionY: UInt16 = 0x36, absMTTrackingID: UInt16 = 0x39
}

/// Which code feeds which element, and how its value is read.
package struct GamepadLayout: Equatable, Sendable {
    package enum Source: Equatable, Sendable {
        /// A key: 0 or 1.
        case button(GamepadElement)
        /// A d-pad key: one direction of the d-pad.
        case dpadButton(up: Bool, down: Bool, left: Bool, right: Bool)
        /// An analog button (a trigger): the axis's range to 0…1.
        case analogButton(GamepadElement, InputCapabilities.Axis)
        /// One axis of a direction pad: the range to −1…1 (`y`: evdev's down is Apple's −1).
        case stickAxis(GamepadElement, y: Bool, InputCapabilities.Axis)
        /// Hat 0 (the d-pad as two axes of −1, 0, 1).
        case hat(y: Bool)
        /// A touchpad's multi-touch slot, contact and position (its two touches, `touchpadPrimary`
        /// and `touchpadSecondary`).
        case touchSlot, touchContact
        case touchPosition(y: Bool, InputCapabilities.Axis)
    }

    package var keys: [UInt16: Source] = [:]
    package var axes: [UInt16: Source] = [:]
    /// The optional elements the pad has (thumbstick buttons, options, home).
    package var present: Set<GamepadElement>

    package init(_ caps: InputCapabilities) {
        typealias C = EvdevCode
        // With nothing known (the node cannot be read), the profile lists every element.
        present = caps == .unknown ? Set(GamepadElement.extended) : [.buttonA, .buttonB, .buttonX, .buttonY, .leftShoulder, .rightShoulder,
                                                                      .leftTrigger, .rightTrigger, .buttonMenu, .dpad, .leftThumbstick, .rightThumbstick]
        func key(_ code: UInt16, _ element: GamepadElement) {
            guard caps.keys.contains(code) else { return }
            keys[code] = .button(element)
            present.insert(element)
        }
        key(C.btnSouth, .buttonA)
        key(C.btnEast, .buttonB)
        if caps.vendor == C.sonyVendor {
            key(C.btnWest, .buttonX)
            key(C.btnNorth, .buttonY)
        } else {
            key(C.btnX, .buttonX)
            key(C.btnY, .buttonY)
        }
        key(C.btnTL, .leftShoulder)
        key(C.btnTR, .rightShoulder)
        key(C.btnThumbL, .leftThumbstickButton)
        key(C.btnThumbR, .rightThumbstickButton)
        key(C.btnStart, .buttonMenu)
        key(C.btnSelect, .buttonOptions)
        key(C.btnMode, .buttonHome)

        let rightStickOnZ = caps.axes[C.absRX] == nil && caps.axes[C.absRY] == nil
            && caps.axes[C.absZ] != nil && caps.axes[C.absRZ] != nil
        // Triggers: the first convention the pad has, else its digital buttons.
        let triggerAxes: [(left: UInt16, right: UInt16)] = [(C.absHat2Y, C.absHat2X), (C.absBrake, C.absGas)]
            + (rightStickOnZ ? [] : [(C.absZ, C.absRZ)])
        if let pair = triggerAxes.first(where: { caps.axes[$0.left] != nil || caps.axes[$0.right] != nil }) {
            if let a = caps.axes[pair.left] { axes[pair.left] = .analogButton(.leftTrigger, a) }
            if let a = caps.axes[pair.right] { axes[pair.right] = .analogButton(.rightTrigger, a) }
        }
        if !axes.values.contains(where: { if case .analogButton(.leftTrigger, _) = $0 { true } else { false } }) { key(C.btnTL2, .leftTrigger) }
        if !axes.values.contains(where: { if case .analogButton(.rightTrigger, _) = $0 { true } else { false } }) { key(C.btnTR2, .rightTrigger) }

        // The d-pad: its buttons, else hat 0.
        let dpadKeys: [(UInt16, Source)] = [
            (C.btnDpadUp, .dpadButton(up: true, down: false, left: false, right: false)),
            (C.btnDpadDown, .dpadButton(up: false, down: true, left: false, right: false)),
            (C.btnDpadLeft, .dpadButton(up: false, down: false, left: true, right: false)),
            (C.btnDpadRight, .dpadButton(up: false, down: false, left: false, right: true)),
        ]
        if dpadKeys.allSatisfy({ caps.keys.contains($0.0) }) {
            for (code, source) in dpadKeys { keys[code] = source }
        } else if caps.axes[C.absHat0X] != nil, caps.axes[C.absHat0Y] != nil {
            axes[C.absHat0X] = .hat(y: false)
            axes[C.absHat0Y] = .hat(y: true)
        }

        func stick(_ x: UInt16, _ y: UInt16, _ element: GamepadElement) {
            guard let ax = caps.axes[x], let ay = caps.axes[y] else { return }
            axes[x] = .stickAxis(element, y: false, ax)
            axes[y] = .stickAxis(element, y: true, ay)
        }
        stick(C.absX, C.absY, .leftThumbstick)
        if rightStickOnZ { stick(C.absZ, C.absRZ, .rightThumbstick) } else { stick(C.absRX, C.absRY, .rightThumbstick) }
    }

    /// A DualShock 4's or DualSense's touchpad node (its drivers give the touchpad an evdev node of
    /// its own, beside the pad's): the click (`BTN_LEFT`) and the first two touches.
    package init(touchpad caps: InputCapabilities) {
        typealias C = EvdevCode
        present = [.touchpadButton, .touchpadPrimary, .touchpadSecondary]
        if caps.keys.contains(C.btnLeft) { keys[C.btnLeft] = .button(.touchpadButton) }
        if let x = caps.axes[C.absMTPositionX], let y = caps.axes[C.absMTPositionY], caps.axes[C.absMTTrackingID] != nil {
            axes[C.absMTSlot] = .touchSlot
            axes[C.absMTTrackingID] = .touchContact
            axes[C.absMTPositionX] = .touchPosition(y: false, x)
            axes[C.absMTPositionY] = .touchPosition(y: true, y)
        }
    }

    /// An axis's raw value as 0…1 (from its minimum; out-of-range values saturate).
    static func unit(_ raw: Int32, _ a: InputCapabilities.Axis) -> Float {
        guard a.maximum > a.minimum else { return raw > a.minimum ? 1 : 0 }
        let v = (Double(raw) - Double(a.minimum)) / (Double(a.maximum) - Double(a.minimum))
        return Float(min(1, max(0, v)))
    }

    /// An axis's raw value as −1…1 about its centre, 0 within the driver's dead zone.
    static func centred(_ raw: Int32, _ a: InputCapabilities.Axis) -> Float {
        let half = (Double(a.maximum) - Double(a.minimum)) / 2
        guard half > 0 else { return 0 }
        let offset = Double(raw) - (Double(a.maximum) + Double(a.minimum)) / 2
        if abs(offset) <= Double(a.flat) { return 0 }
        return Float(min(1, max(-1, offset / half)))
    }
}

/// The profile's values, changed by a pad's events and committed at each SYN_REPORT, as evdev
/// frames them: the elements whose values differ from the last commit are what changed.
package struct GamepadState: Equatable, Sendable {
    /// An analog button counts as pressed from this value (a trigger's travel, 0…1).
    package static let pressThreshold: Float = 0.1

    package struct Values: Equatable, Sendable {
        /// Button values, 0…1, by element (the direction pads' entries unused).
        package var buttons = [Float](repeating: 0, count: GamepadElement.allCases.count)
        /// Direction pads' x and y, −1…1, by element (the buttons' entries unused).
        package var x = [Float](repeating: 0, count: GamepadElement.allCases.count)
        package var y = [Float](repeating: 0, count: GamepadElement.allCases.count)
        /// Which buttons are analog (pressed from `pressThreshold`, not from any value above 0).
        package var analog = Set<GamepadElement>()
        /// The d-pad's four keys, when it has them: up, down, left, right.
        var dpadKeys: (up: Bool, down: Bool, left: Bool, right: Bool) = (false, false, false, false)

        package func isPressed(_ e: GamepadElement) -> Bool {
            analog.contains(e) ? buttons[e.rawValue] >= GamepadState.pressThreshold : buttons[e.rawValue] > 0
        }

        package static func == (a: Values, b: Values) -> Bool {
            a.buttons == b.buttons && a.x == b.x && a.y == b.y && a.analog == b.analog
        }
    }

    package let layout: GamepadLayout
    /// As committed (what the profile shows).
    package private(set) var committed = Values()
    /// As the events of the frame being read left them.
    private var pending = Values()
    /// Dropping events until the next SYN_REPORT (after SYN_DROPPED).
    private var dropping = false
    /// A touchpad's slot the events are for, and its first two slots' contacts and positions (kept
    /// while lifted: the kernel sends a slot's position only when it changes).
    private var slot = 0
    private var touches = [Touch](repeating: Touch(), count: 2)
    private struct Touch: Equatable, Sendable { var down = false, x: Float = 0, y: Float = 0 }
    static let touchElements: [GamepadElement] = [.touchpadPrimary, .touchpadSecondary]

    package init(layout: GamepadLayout) {
        self.layout = layout
        for source in layout.axes.values {
            if case .analogButton(let e, _) = source { pending.analog.insert(e) }
        }
        committed = pending
    }

    /// Applies one event; at SYN_REPORT returns the elements that changed since the last one (in
    /// the profile's order), else nil.
    package mutating func apply(type: UInt16, code: UInt16, value: Int32) -> [GamepadElement]? {
        switch type {
        case EvdevCode.evSyn where code == EvdevCode.synDropped:
            // The kernel's buffer overflowed: this frame is incomplete; the reader resyncs the state.
            dropping = true
            return nil
        case EvdevCode.evSyn where code == EvdevCode.synReport:
            if dropping {
                dropping = false
                pending = committed
                return nil
            }
            return commit()
        case _ where dropping:
            return nil
        case EvdevCode.evKey:
            guard let source = layout.keys[code] else { return nil }
            let on = value != 0
            switch source {
            case .button(let e): pending.buttons[e.rawValue] = on ? 1 : 0
            case .dpadButton(let up, let down, let left, let right):
                if up { pending.dpadKeys.up = on }
                if down { pending.dpadKeys.down = on }
                if left { pending.dpadKeys.left = on }
                if right { pending.dpadKeys.right = on }
                let k = pending.dpadKeys
                pending.x[GamepadElement.dpad.rawValue] = (k.right ? 1 : 0) - (k.left ? 1 : 0)
                pending.y[GamepadElement.dpad.rawValue] = (k.up ? 1 : 0) - (k.down ? 1 : 0)
            default: break
            }
        case EvdevCode.evAbs:
            guard let source = layout.axes[code] else { return nil }
            switch source {
            case .analogButton(let e, let a): pending.buttons[e.rawValue] = GamepadLayout.unit(value, a)
            case .stickAxis(let e, let isY, let a):
                let v = GamepadLayout.centred(value, a)
                if isY { pending.y[e.rawValue] = -v } else { pending.x[e.rawValue] = v }
            case .hat(let isY):
                let v: Float = value < 0 ? -1 : value > 0 ? 1 : 0
                if isY { pending.y[GamepadElement.dpad.rawValue] = -v } else { pending.x[GamepadElement.dpad.rawValue] = v }
            case .touchSlot:
                slot = Int(value)
            case .touchContact where touches.indices.contains(slot):
                touches[slot].down = value >= 0
                placeTouch(slot)
            case .touchPosition(let isY, let a) where touches.indices.contains(slot):
                let v = GamepadLayout.centred(value, a)
                if isY { touches[slot].y = -v } else { touches[slot].x = v }
                placeTouch(slot)
            default: break
            }
        default: break
        }
        return nil
    }

    /// A touch's values: where it is while down, the centre once lifted.
    private mutating func placeTouch(_ slot: Int) {
        let e = Self.touchElements[slot].rawValue, t = touches[slot]
        pending.x[e] = t.down ? t.x : 0
        pending.y[e] = t.down ? t.y : 0
    }

    private mutating func commit() -> [GamepadElement] {
        let before = committed
        committed = pending
        return GamepadElement.allCases.filter { e in
            e.isDirectionPad
                ? before.x[e.rawValue] != committed.x[e.rawValue] || before.y[e.rawValue] != committed.y[e.rawValue]
                : before.buttons[e.rawValue] != committed.buttons[e.rawValue]
        }
    }

    /// Takes the pad's current state (when reading starts, as libevdev holds it): `key(code)`
    /// whether a key is down, `axis(code)` an axis's value, `slot(n, code)` a multi-touch slot's
    /// (a touchpad's); returns what changed.
    package mutating func resync(key: (UInt16) -> Bool, axis: (UInt16) -> Int32?, slot: (Int, UInt16) -> Int32? = { _, _ in nil }) -> [GamepadElement] {
        var s = GamepadState(layout: layout)
        for code in layout.keys.keys.sorted() { _ = s.apply(type: EvdevCode.evKey, code: code, value: key(code) ? 1 : 0) }
        for code in layout.axes.keys.sorted() where code < EvdevCode.absMTSlot {
            if let v = axis(code) { _ = s.apply(type: EvdevCode.evAbs, code: code, value: v) }
        }
        if layout.axes[EvdevCode.absMTSlot] == .touchSlot {
            for n in touches.indices {
                _ = s.apply(type: EvdevCode.evAbs, code: EvdevCode.absMTSlot, value: Int32(n))
                for code in [EvdevCode.absMTPositionX, EvdevCode.absMTPositionY, EvdevCode.absMTTrackingID] {
                    if let v = slot(n, code) { _ = s.apply(type: EvdevCode.evAbs, code: code, value: v) }
                }
            }
            if let current = axis(EvdevCode.absMTSlot) { _ = s.apply(type: EvdevCode.evAbs, code: EvdevCode.absMTSlot, value: current) }
        }
        pending = s.pending
        pending.analog = committed.analog
        self.slot = s.slot
        touches = s.touches
        dropping = false
        return commit()
    }
}
