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
    // Implicitly unwrapped, as Apple's header (no nullability annotations) imports them.
    open var touchpadButton: GCControllerButtonInput! { byElement[.touchpadButton] as? GCControllerButtonInput }
    open var touchpadPrimary: GCControllerDirectionPad! { byElement[.touchpadPrimary] as? GCControllerDirectionPad }
    open var touchpadSecondary: GCControllerDirectionPad! { byElement[.touchpadSecondary] as? GCControllerDirectionPad }
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

    /// The positions along the trigger's travel a positional mode takes a value for.
    open class var discretePositionCount: Int { 10 }

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

    /// The extended profile whose elements these are (weak: it holds this one).
    private weak var extended: GCExtendedGamepad?

    init(extended g: GCExtendedGamepad) {
        extended = g
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

    /// A copy apart from the pad: the deprecated profile of a capture of its extended one.
    override func captured() -> GCPhysicalInputProfile {
        guard let extended else { return self }
        return GCGamepad(extended: extended.capture())
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
    /// Whether the profile the snapshot was taken of has thumbstick buttons (the data's
    /// `supportsClickableThumbsticks`).
    var clickableThumbsticks = true

    open var snapshotData: Data {
        get { SnapshotData.encode(values.read { $0 }, clickableThumbsticks: clickableThumbsticks) }
        set { let v = SnapshotData.decode(newValue); values.values.withLock { $0 = v } }
    }
}

/// Apple's versions of `GCExtendedGamepadSnapshotData`.
public enum GCExtendedGamepadSnapshotDataVersion: Int, Sendable {
    /// The 14 values.
    case version1 = 0x0100
    /// And the thumbstick buttons.
    case version2 = 0x0101
}

public let GCCurrentExtendedGamepadSnapshotDataVersion = GCExtendedGamepadSnapshotDataVersion.version2

/// Apple's `GCExtendedGamepadSnapshotData`: an extended gamepad's values as a packed C struct (its
/// bytes are `snapshotData`).
public struct GCExtendedGamepadSnapshotData: Sendable {
    public var version: UInt16
    public var size: UInt16
    public var dpadX: Float, dpadY: Float
    public var buttonA: Float, buttonB: Float, buttonX: Float, buttonY: Float
    public var leftShoulder: Float, rightShoulder: Float
    public var leftThumbstickX: Float, leftThumbstickY: Float, rightThumbstickX: Float, rightThumbstickY: Float
    public var leftTrigger: Float, rightTrigger: Float
    public var supportsClickableThumbsticks: ObjCBool, leftThumbstickButton: ObjCBool, rightThumbstickButton: ObjCBool

    /// Every field 0, as the C struct's zero initialiser.
    public init() {
        version = 0; size = 0; dpadX = 0; dpadY = 0; buttonA = 0; buttonB = 0; buttonX = 0; buttonY = 0
        leftShoulder = 0; rightShoulder = 0; leftThumbstickX = 0; leftThumbstickY = 0; rightThumbstickX = 0; rightThumbstickY = 0
        leftTrigger = 0; rightTrigger = 0; supportsClickableThumbsticks = false; leftThumbstickButton = false; rightThumbstickButton = false
    }

    public init(version: UInt16, size: UInt16, dpadX: Float, dpadY: Float, buttonA: Float, buttonB: Float, buttonX: Float, buttonY: Float,
                leftShoulder: Float, rightShoulder: Float, leftThumbstickX: Float, leftThumbstickY: Float, rightThumbstickX: Float,
                rightThumbstickY: Float, leftTrigger: Float, rightTrigger: Float, supportsClickableThumbsticks: ObjCBool,
                leftThumbstickButton: ObjCBool, rightThumbstickButton: ObjCBool) {
        self.version = version; self.size = size; self.dpadX = dpadX; self.dpadY = dpadY
        self.buttonA = buttonA; self.buttonB = buttonB; self.buttonX = buttonX; self.buttonY = buttonY
        self.leftShoulder = leftShoulder; self.rightShoulder = rightShoulder
        self.leftThumbstickX = leftThumbstickX; self.leftThumbstickY = leftThumbstickY
        self.rightThumbstickX = rightThumbstickX; self.rightThumbstickY = rightThumbstickY
        self.leftTrigger = leftTrigger; self.rightTrigger = rightTrigger
        self.supportsClickableThumbsticks = supportsClickableThumbsticks
        self.leftThumbstickButton = leftThumbstickButton; self.rightThumbstickButton = rightThumbstickButton
    }
}

/// Fills `snapshotData` from `data` (version 1 or 2 bytes, as `snapshotData` gives); false, leaving it
/// untouched, for nil, too short or an unknown version.
public func GCExtendedGamepadSnapshotDataFromNSData(_ snapshotData: UnsafeMutablePointer<GCExtendedGamepadSnapshotData>?, _ data: Data?) -> Bool {
    guard let snapshotData, let data, let s = SnapshotData.fields(data) else { return false }
    snapshotData.pointee = s
    return true
}

/// The bytes of `snapshotData` (its version's size); nil for nil or an unknown version.
public func NSDataFromGCExtendedGamepadSnapshotData(_ snapshotData: UnsafePointer<GCExtendedGamepadSnapshotData>?) -> Data? {
    guard let s = snapshotData?.pointee, GCExtendedGamepadSnapshotDataVersion(rawValue: Int(s.version)) != nil else { return nil }
    return SnapshotData.bytes(s)
}

/// Apple's `GCExtendedGamepadSnapshotData` layout (packed, little-endian).
package enum SnapshotData {
    static let version2 = UInt16(GCCurrentExtendedGamepadSnapshotDataVersion.rawValue)
    static let version1Size = 60, version2Size = 63
    /// The struct from bytes: version 1 (60 bytes) or 2 (63).
    static func fields(_ data: Data) -> GCExtendedGamepadSnapshotData? {
        let b = [UInt8](data.prefix(version2Size))
        guard b.count >= version1Size else { return nil }
        let version = UInt16(b[0]) | UInt16(b[1]) << 8
        guard let known = GCExtendedGamepadSnapshotDataVersion(rawValue: Int(version)) else { return nil }
        func f(_ i: Int) -> Float {
            let at = 4 + 4 * i
            return Float(bitPattern: UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24)
        }
        let v2 = known == .version2 && b.count >= version2Size
        return GCExtendedGamepadSnapshotData(
            version: version, size: UInt16(b[2]) | UInt16(b[3]) << 8, dpadX: f(0), dpadY: f(1), buttonA: f(2), buttonB: f(3), buttonX: f(4), buttonY: f(5),
            leftShoulder: f(6), rightShoulder: f(7), leftThumbstickX: f(8), leftThumbstickY: f(9), rightThumbstickX: f(10), rightThumbstickY: f(11),
            leftTrigger: f(12), rightTrigger: f(13), supportsClickableThumbsticks: ObjCBool(v2 && b[60] != 0),
            leftThumbstickButton: ObjCBool(v2 && b[61] != 0), rightThumbstickButton: ObjCBool(v2 && b[62] != 0))
    }

    /// The struct's bytes, as long as its version's.
    static func bytes(_ s: GCExtendedGamepadSnapshotData) -> Data {
        var d = Data()
        func put16(_ x: UInt16) { d.append(UInt8(x & 0xff)); d.append(UInt8(x >> 8)) }
        put16(s.version)
        put16(s.size)
        for f in [s.dpadX, s.dpadY, s.buttonA, s.buttonB, s.buttonX, s.buttonY, s.leftShoulder, s.rightShoulder,
                  s.leftThumbstickX, s.leftThumbstickY, s.rightThumbstickX, s.rightThumbstickY, s.leftTrigger, s.rightTrigger] {
            withUnsafeBytes(of: f.bitPattern.littleEndian) { d.append(contentsOf: $0) }
        }
        if s.version == UInt16(GCExtendedGamepadSnapshotDataVersion.version2.rawValue) {
            for b in [s.supportsClickableThumbsticks, s.leftThumbstickButton, s.rightThumbstickButton] { d.append(b.boolValue ? 1 : 0) }
        }
        return d
    }

    package static func encode(_ v: GamepadState.Values, clickableThumbsticks: Bool = true) -> Data {
        func b(_ e: GamepadElement) -> Float { v.buttons[e.rawValue] }
        return bytes(GCExtendedGamepadSnapshotData(
            version: version2, size: UInt16(version2Size), dpadX: v.x[GamepadElement.dpad.rawValue], dpadY: v.y[GamepadElement.dpad.rawValue],
            buttonA: b(.buttonA), buttonB: b(.buttonB), buttonX: b(.buttonX), buttonY: b(.buttonY),
            leftShoulder: b(.leftShoulder), rightShoulder: b(.rightShoulder),
            leftThumbstickX: v.x[GamepadElement.leftThumbstick.rawValue], leftThumbstickY: v.y[GamepadElement.leftThumbstick.rawValue],
            rightThumbstickX: v.x[GamepadElement.rightThumbstick.rawValue], rightThumbstickY: v.y[GamepadElement.rightThumbstick.rawValue],
            leftTrigger: b(.leftTrigger), rightTrigger: b(.rightTrigger), supportsClickableThumbsticks: ObjCBool(clickableThumbsticks),
            leftThumbstickButton: ObjCBool(b(.leftThumbstickButton) > 0), rightThumbstickButton: ObjCBool(b(.rightThumbstickButton) > 0)))
    }

    /// The values of version 1 or 2 bytes, each clamped to its range (NaN: 0); anything else reads
    /// as a pad at rest.
    package static func decode(_ data: Data) -> GamepadState.Values {
        var v = GamepadState.Values()
        v.analog = [.leftTrigger, .rightTrigger]
        guard let s = fields(data) else { return v }
        func unit(_ f: Float) -> Float { f.isNaN ? 0 : min(1, max(0, f)) }
        func axis(_ f: Float) -> Float { f.isNaN ? 0 : min(1, max(-1, f)) }
        for (e, f) in [(GamepadElement.buttonA, s.buttonA), (.buttonB, s.buttonB), (.buttonX, s.buttonX), (.buttonY, s.buttonY),
                       (.leftShoulder, s.leftShoulder), (.rightShoulder, s.rightShoulder), (.leftTrigger, s.leftTrigger), (.rightTrigger, s.rightTrigger)] {
            v.buttons[e.rawValue] = unit(f)
        }
        for (e, x, y) in [(GamepadElement.dpad, s.dpadX, s.dpadY), (.leftThumbstick, s.leftThumbstickX, s.leftThumbstickY),
                          (.rightThumbstick, s.rightThumbstickX, s.rightThumbstickY)] {
            v.x[e.rawValue] = axis(x)
            v.y[e.rawValue] = axis(y)
        }
        if s.supportsClickableThumbsticks.boolValue {
            v.buttons[GamepadElement.leftThumbstickButton.rawValue] = s.leftThumbstickButton.boolValue ? 1 : 0
            v.buttons[GamepadElement.rightThumbstickButton.rawValue] = s.rightThumbstickButton.boolValue ? 1 : 0
        }
        return v
    }
}
