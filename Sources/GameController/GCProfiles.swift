// The profiles Apple gives particular pads, and the deprecated ones older code still uses: the
// DualShock 4's and DualSense's (with the touchpad, and the DualSense's adaptive triggers), the Xbox
// pad's (paddles, Share), `GCGamepad` and `GCExtendedGamepadSnapshot`. Code tests a profile's class
// (`extendedGamepad as? GCDualSenseGamepad`, `isKind(of:)`) to offer a pad's extras, so each pad's
// profile is of its class here too (`GCController` picks it from the pad's hapticd profile).
import Foundation
import Synchronization

/// A DualShock 4's profile: Apple's `GCDualShockGamepad`. The touchpad is read from the node hid-sony
/// gives it (GamepadInput.touchpadNode): its click and two touches, −1…1, the centre while lifted.
open class GCDualShockGamepad: GCExtendedGamepad, @unchecked Sendable {
    // @unchecked Sendable: as GCExtendedGamepad.
    override class func make(layout: GamepadLayout, values: InputValues) -> GCExtendedGamepad { GCDualShockGamepad(layout: layout, values: values) }
    override class var extraElements: [GamepadElement] { [.touchpadButton, .touchpadPrimary, .touchpadSecondary] }
    open var touchpadButton: GCControllerButtonInput { byElement[.touchpadButton] as! GCControllerButtonInput }
    open var touchpadPrimary: GCControllerDirectionPad { byElement[.touchpadPrimary] as! GCControllerDirectionPad }
    open var touchpadSecondary: GCControllerDirectionPad { byElement[.touchpadSecondary] as! GCControllerDirectionPad }
}

/// A DualSense's profile: Apple's `GCDualSenseGamepad`, its triggers adaptive triggers. The touchpad
/// as on the DualShock 4 (hid-playstation's touchpad node).
open class GCDualSenseGamepad: GCExtendedGamepad, @unchecked Sendable {
    // @unchecked Sendable: as GCExtendedGamepad.
    override class func make(layout: GamepadLayout, values: InputValues) -> GCExtendedGamepad { GCDualSenseGamepad(layout: layout, values: values) }
    override class var extraElements: [GamepadElement] { [.touchpadButton, .touchpadPrimary, .touchpadSecondary] }
    override class func makeButton(_ element: GamepadElement, values: InputValues, analog: Bool) -> GCControllerButtonInput {
        element == .leftTrigger || element == .rightTrigger
            ? GCDualSenseAdaptiveTrigger(values: values, role: .button(element), name: element.appleName, analog: analog)
            : super.makeButton(element, values: values, analog: analog)
    }
    open override var leftTrigger: GCDualSenseAdaptiveTrigger { super.leftTrigger as! GCDualSenseAdaptiveTrigger }
    open override var rightTrigger: GCDualSenseAdaptiveTrigger { super.rightTrigger as! GCDualSenseAdaptiveTrigger }
    open var touchpadButton: GCControllerButtonInput { byElement[.touchpadButton] as! GCControllerButtonInput }
    open var touchpadPrimary: GCControllerDirectionPad { byElement[.touchpadPrimary] as! GCControllerDirectionPad }
    open var touchpadSecondary: GCControllerDirectionPad { byElement[.touchpadSecondary] as! GCControllerDirectionPad }
}

/// A DualSense trigger: Apple's `GCDualSenseAdaptiveTrigger`. The mode set is kept and read back
/// (`mode`), and does **not** reach the pad: hapticd drives the DualSense through hid-playstation's
/// force feedback, which has no trigger effects, and has no DualSense output report of its own yet.
/// `status` is `.unknown` and `armPosition` 0, as for a pad that reports no trigger state.
open class GCDualSenseAdaptiveTrigger: GCControllerButtonInput, @unchecked Sendable {
    // @unchecked Sendable: the mode is behind `setting`.
    public enum Mode: Int, Sendable {
        case off = 0
        case feedback = 1
        case weapon = 2
        case vibration = 3
        case slopeFeedback = 4
    }

    public enum Status: Int, Sendable {
        case unknown = -1
        case feedbackNoLoad
        case feedbackLoadApplied
        case weaponReady
        case weaponFiring
        case weaponFired
        case vibrationNotVibrating
        case vibrationIsVibrating
        case slopeFeedbackReady
        case slopeFeedbackApplyingLoad
        case slopeFeedbackFinished
    }

    /// Ten strengths, 0…1, along the trigger's travel.
    public struct PositionalResistiveStrengths: Sendable {
        public var values: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)
        public init() { values = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
        public init(values: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)) { self.values = values }
    }

    /// Ten amplitudes, 0…1, along the trigger's travel.
    public struct PositionalAmplitudes: Sendable {
        public var values: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)
        public init() { values = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }
        public init(values: (Float, Float, Float, Float, Float, Float, Float, Float, Float, Float)) { self.values = values }
    }

    private let setting = Mutex<Mode>(.off)

    /// The mode last set.
    open var mode: Mode { setting.withLock { $0 } }
    open var status: Status { .unknown }
    open var armPosition: Float { 0 }

    open func setModeOff() { setting.withLock { $0 = .off } }
    open func setModeFeedbackWithStartPosition(_ startPosition: Float, resistiveStrength: Float) { setting.withLock { $0 = .feedback } }
    open func setModeFeedback(resistiveStrengths: PositionalResistiveStrengths) { setting.withLock { $0 = .feedback } }
    open func setModeWeaponWithStartPosition(_ startPosition: Float, endPosition: Float, resistiveStrength: Float) { setting.withLock { $0 = .weapon } }
    open func setModeVibrationWithStartPosition(_ startPosition: Float, amplitude: Float, frequency: Float) { setting.withLock { $0 = .vibration } }
    open func setModeVibration(amplitudes: PositionalAmplitudes, frequency: Float) { setting.withLock { $0 = .vibration } }
    open func setModeSlopeFeedback(startPosition: Float, endPosition: Float, startStrength: Float, endStrength: Float) {
        setting.withLock { $0 = .slopeFeedback }
    }
}

/// An Xbox pad's profile: Apple's `GCXboxGamepad`. The Elite's paddles and the Series pads' Share
/// button are nil: the drivers behind hapticd's Xbox profiles (xpad, hid-microsoft) report none of
/// them as a gamepad button.
open class GCXboxGamepad: GCExtendedGamepad, @unchecked Sendable {
    // @unchecked Sendable: as GCExtendedGamepad.
    override class func make(layout: GamepadLayout, values: InputValues) -> GCExtendedGamepad { GCXboxGamepad(layout: layout, values: values) }
    open var paddleButton1: GCControllerButtonInput? { nil }
    open var paddleButton2: GCControllerButtonInput? { nil }
    open var paddleButton3: GCControllerButtonInput? { nil }
    open var paddleButton4: GCControllerButtonInput? { nil }
    open var buttonShare: GCControllerButtonInput? { nil }
}

public typealias GCGamepadValueChangedHandler = (GCGamepad, GCControllerElement) -> Void

/// Apple's deprecated `GCGamepad` profile (a d-pad, four face buttons, two shoulders), which every
/// extended gamepad also has: `GCController.gamepad`. Its elements are the extended profile's own,
/// so a handler set through either runs.
open class GCGamepad: GCPhysicalInputProfile, @unchecked Sendable {
    // @unchecked Sendable: the elements are set once; the handler is behind `handler`.
    private let handler = Mutex(Unchecked<GCGamepadValueChangedHandler?>(nil))
    private let members: Set<ObjectIdentifier>
    public let dpad: GCControllerDirectionPad
    public let buttonA: GCControllerButtonInput
    public let buttonB: GCControllerButtonInput
    public let buttonX: GCControllerButtonInput
    public let buttonY: GCControllerButtonInput
    public let leftShoulder: GCControllerButtonInput
    public let rightShoulder: GCControllerButtonInput

    init(extended g: GCExtendedGamepad) {
        dpad = g.dpad
        buttonA = g.buttonA
        buttonB = g.buttonB
        buttonX = g.buttonX
        buttonY = g.buttonY
        leftShoulder = g.leftShoulder
        rightShoulder = g.rightShoulder
        let own: [String: GCControllerElement] = [GCInputDirectionPad: dpad, GCInputButtonA: buttonA, GCInputButtonB: buttonB, GCInputButtonX: buttonX,
                                                  GCInputButtonY: buttonY, GCInputLeftShoulder: leftShoulder, GCInputRightShoulder: rightShoulder]
        members = Set(own.values.map(ObjectIdentifier.init))
        super.init(values: g.values, elements: own)
        owner = g.owner
    }

    open var controller: GCController? { owner }

    /// Called on the controller's `handlerQueue` for each of this profile's elements that changed,
    /// after the extended profile's handlers.
    open var valueChangedHandler: GCGamepadValueChangedHandler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    func deliver(_ element: GCControllerElement) {
        guard members.contains(ObjectIdentifier(element)) else { return }
        handler.withLock { $0 }.value?(self, element)
    }
}

/// Apple's deprecated `GCExtendedGamepadSnapshot`: an extended gamepad's values, apart from the pad,
/// to and from Apple's `GCExtendedGamepadSnapshotData` bytes (version 2: the version and size, 14
/// little-endian floats — d-pad x, y, A, B, X, Y, shoulders, thumbsticks' x and y, triggers — and
/// whether the thumbsticks click and are down).
open class GCExtendedGamepadSnapshot: GCExtendedGamepad, @unchecked Sendable {
    // @unchecked Sendable: as GCExtendedGamepad; the values are behind InputValues' lock.
    override class func make(layout: GamepadLayout, values: InputValues) -> GCExtendedGamepad { GCExtendedGamepadSnapshot(layout: layout, values: values) }

    public convenience init(snapshotData data: Data) {
        self.init(layout: GamepadLayout(.unknown), values: InputValues(SnapshotData.decode(data)))
    }

    public convenience init(controller: GCController, snapshotData data: Data) {
        self.init(snapshotData: data)
        owner = controller
    }

    /// The values as `GCExtendedGamepadSnapshotData` (version 2, 63 bytes); set: the values from such
    /// bytes (version 1's 60 too; shorter data reads as a pad at rest).
    open var snapshotData: Data {
        get { SnapshotData.encode(values.read { $0 }) }
        set { let v = SnapshotData.decode(newValue); values.values.withLock { $0 = v } }
    }
}

/// Apple's `GCExtendedGamepadSnapshotData` layout (packed, little-endian).
package enum SnapshotData {
    static let version2: UInt16 = 0x0101
    static let version1Size = 60, version2Size = 63
    /// The floats' elements in their order: (element, which value).
    private static let floats: [(GamepadElement, Part)] = [
        (.dpad, .x), (.dpad, .y), (.buttonA, .button), (.buttonB, .button), (.buttonX, .button), (.buttonY, .button),
        (.leftShoulder, .button), (.rightShoulder, .button), (.leftThumbstick, .x), (.leftThumbstick, .y),
        (.rightThumbstick, .x), (.rightThumbstick, .y), (.leftTrigger, .button), (.rightTrigger, .button),
    ]
    private enum Part { case button, x, y }

    package static func encode(_ v: GamepadState.Values) -> Data {
        var d = Data()
        func put16(_ x: UInt16) { d.append(UInt8(x & 0xff)); d.append(UInt8(x >> 8)) }
        put16(version2)
        put16(UInt16(version2Size))
        for (e, part) in floats {
            let f: Float = part == .button ? v.buttons[e.rawValue] : part == .x ? v.x[e.rawValue] : v.y[e.rawValue]
            withUnsafeBytes(of: f.bitPattern.littleEndian) { d.append(contentsOf: $0) }
        }
        d.append(1)
        d.append(v.buttons[GamepadElement.leftThumbstickButton.rawValue] > 0 ? 1 : 0)
        d.append(v.buttons[GamepadElement.rightThumbstickButton.rawValue] > 0 ? 1 : 0)
        return d
    }

    package static func decode(_ data: Data) -> GamepadState.Values {
        var v = GamepadState.Values()
        v.analog = [.leftTrigger, .rightTrigger]
        let bytes = [UInt8](data.prefix(version2Size))
        guard bytes.count >= version1Size else { return v }
        for (i, (e, part)) in floats.enumerated() {
            let at = 4 + 4 * i
            let bits = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            let f = Float(bitPattern: bits)
            let value = f.isNaN ? 0 : part == .button ? min(1, max(0, f)) : min(1, max(-1, f))
            switch part {
            case .button: v.buttons[e.rawValue] = value
            case .x: v.x[e.rawValue] = value
            case .y: v.y[e.rawValue] = value
            }
        }
        if bytes.count >= version2Size, bytes[60] != 0 {
            v.buttons[GamepadElement.leftThumbstickButton.rawValue] = bytes[61] != 0 ? 1 : 0
            v.buttons[GamepadElement.rightThumbstickButton.rawValue] = bytes[62] != 0 ? 1 : 0
        }
        return v
    }
}
