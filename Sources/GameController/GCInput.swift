// Apple's input profile for a gamepad (`GCExtendedGamepad` and its elements), read from the pad's
// own evdev node in the program's process (GamepadInput), as a game reads it through SDL: hapticd
// drives the actuators, the program reads the buttons. The values are the pad's as of its last
// report; handlers run on the controller's `handlerQueue` (the main queue unless set), as Apple's do.
import Dispatch
import Foundation
import Synchronization

/// Apple's element names (`GCPhysicalInputProfile.elements` keys).
public let GCInputButtonA = "Button A"
public let GCInputButtonB = "Button B"
public let GCInputButtonX = "Button X"
public let GCInputButtonY = "Button Y"
public let GCInputLeftShoulder = "Left Shoulder"
public let GCInputRightShoulder = "Right Shoulder"
public let GCInputLeftTrigger = "Left Trigger"
public let GCInputRightTrigger = "Right Trigger"
public let GCInputLeftThumbstickButton = "Left Thumbstick Button"
public let GCInputRightThumbstickButton = "Right Thumbstick Button"
public let GCInputButtonMenu = "Button Menu"
public let GCInputButtonOptions = "Button Options"
public let GCInputButtonHome = "Button Home"
public let GCInputDirectionPad = "Direction Pad"
public let GCInputLeftThumbstick = "Left Thumbstick"
public let GCInputRightThumbstick = "Right Thumbstick"
public let GCInputDualShockTouchpadButton = "Touchpad Button"
public let GCInputDualShockTouchpadOne = "Touchpad 1"
public let GCInputDualShockTouchpadTwo = "Touchpad 2"
public let GCInputButtonShare = "Button Share"
public let GCInputXboxPaddleOne = "Paddle 1"
public let GCInputXboxPaddleTwo = "Paddle 2"
public let GCInputXboxPaddleThree = "Paddle 3"
public let GCInputXboxPaddleFour = "Paddle 4"

extension GamepadElement {
    var appleName: String {
        switch self {
        case .buttonA: GCInputButtonA
        case .buttonB: GCInputButtonB
        case .buttonX: GCInputButtonX
        case .buttonY: GCInputButtonY
        case .leftShoulder: GCInputLeftShoulder
        case .rightShoulder: GCInputRightShoulder
        case .leftTrigger: GCInputLeftTrigger
        case .rightTrigger: GCInputRightTrigger
        case .leftThumbstickButton: GCInputLeftThumbstickButton
        case .rightThumbstickButton: GCInputRightThumbstickButton
        case .buttonMenu: GCInputButtonMenu
        case .buttonOptions: GCInputButtonOptions
        case .buttonHome: GCInputButtonHome
        case .dpad: GCInputDirectionPad
        case .leftThumbstick: GCInputLeftThumbstick
        case .rightThumbstick: GCInputRightThumbstick
        case .touchpadButton: GCInputDualShockTouchpadButton
        case .touchpadPrimary: GCInputDualShockTouchpadOne
        case .touchpadSecondary: GCInputDualShockTouchpadTwo
        }
    }
}

/// The values a profile's elements read: one per profile, shared by its elements.
final class InputValues: Sendable {
    let values: Mutex<GamepadState.Values>
    init(_ v: GamepadState.Values) { values = Mutex(v) }
    func read<T>(_ body: (GamepadState.Values) -> T) -> T { values.withLock { body($0) } }
}

/// Which value an element reads.
enum ElementRole {
    case button(GamepadElement)
    /// One direction of a direction pad: a button whose value is that side of an axis.
    case direction(GamepadElement, Direction)
    case axis(GamepadElement, y: Bool)
    case pad(GamepadElement)

    enum Direction { case up, down, left, right }

    func buttonValue(_ v: GamepadState.Values) -> Float {
        switch self {
        case .button(let e): return v.buttons[e.rawValue]
        case .direction(let e, let d):
            // The part of the axis on this side; 0 (never -0.0, which `max(0, -0.0)` gives and a
            // program printing the value would show) where the axis is at rest or on the other side.
            func side(_ a: Float) -> Float { a > 0 ? a : 0 }
            switch d {
            case .up: return side(v.y[e.rawValue])
            case .down: return side(-v.y[e.rawValue])
            case .left: return side(-v.x[e.rawValue])
            case .right: return side(v.x[e.rawValue])
            }
        case .axis(let e, let y): return y ? v.y[e.rawValue] : v.x[e.rawValue]
        case .pad: return 0
        }
    }

    func isPressed(_ v: GamepadState.Values) -> Bool {
        switch self {
        case .button(let e): return v.isPressed(e)
        case .direction(let e, _): return e == .dpad ? buttonValue(v) > 0 : buttonValue(v) >= GamepadState.pressThreshold
        default: return false
        }
    }
}

/// Apple's `GCControllerElement`: a part of a controller's input.
open class GCControllerElement: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `values` and `role` are set once; the handlers live behind each subclass's
    // Mutex; `collection` is set once, when the profile is built, before it is handed out. The
    // descriptive properties a program may set (names, symbols, `preferredSystemGestureState`) are
    // plain, as Apple's are: set them from one thread.
    let values: InputValues
    let role: ElementRole

    /// The element this one is part of (a direction pad for its axes and directions).
    open internal(set) weak var collection: GCControllerElement?
    /// Whether the element reports values between its ends (triggers, sticks) or only the ends.
    open internal(set) var isAnalog: Bool
    open var localizedName: String?
    open var unmappedLocalizedName: String?
    open var sfSymbolsName: String?
    open var unmappedSfSymbolsName: String?
    /// The names the element goes by (its `GCInput…` name).
    open internal(set) var aliases: Set<String>
    /// Never bound to a system gesture here.
    open var isBoundToSystemGesture: Bool { false }

    /// Apple's states of a button the system may take for a gesture (Home, Share).
    public enum SystemGestureState: Int, Sendable {
        case enabled = 0
        case alwaysReceive
        case disabled
    }
    /// Kept as set: no button is bound to a system gesture here, so every press reaches the program
    /// whatever this says (as `.alwaysReceive` would on Apple's platforms).
    open var preferredSystemGestureState: SystemGestureState = .enabled

    init(values: InputValues, role: ElementRole, name: String, analog: Bool) {
        self.values = values
        self.role = role
        localizedName = name
        unmappedLocalizedName = name
        aliases = [name]
        isAnalog = analog
        super.init()
    }
}

public typealias GCControllerButtonValueChangedHandler = (GCControllerButtonInput, Float, Bool) -> Void
public typealias GCControllerButtonTouchedChangedHandler = (GCControllerButtonInput, Float, Bool, Bool) -> Void
public typealias GCControllerAxisValueChangedHandler = (GCControllerAxisInput, Float) -> Void
public typealias GCControllerDirectionPadValueChangedHandler = (GCControllerDirectionPad, Float, Float) -> Void

/// Apple's `GCControllerButtonInput`: a button, or a trigger (analog), or one direction of a pad.
open class GCControllerButtonInput: GCControllerElement, @unchecked Sendable {
    // @unchecked Sendable: the handlers are behind `handlers`; the rest as in GCControllerElement.
    private let handlers = Mutex<(value: Unchecked<GCControllerButtonValueChangedHandler?>, pressed: Unchecked<GCControllerButtonValueChangedHandler?>,
                                  touched: Unchecked<GCControllerButtonTouchedChangedHandler?>)>((Unchecked(nil), Unchecked(nil), Unchecked(nil)))

    /// Called on the controller's `handlerQueue` with the button's value and pressed state whenever
    /// its value changes.
    open var valueChangedHandler: GCControllerButtonValueChangedHandler? {
        get { handlers.withLock { $0.value.value } }
        set { let h = Unchecked(newValue); handlers.withLock { $0.value = h } }
    }
    /// Called on the controller's `handlerQueue` when the button is pressed or released.
    open var pressedChangedHandler: GCControllerButtonValueChangedHandler? {
        get { handlers.withLock { $0.pressed.value } }
        set { let h = Unchecked(newValue); handlers.withLock { $0.pressed = h } }
    }
    /// Kept; never called (evdev pads report no touch on their buttons).
    open var touchedChangedHandler: GCControllerButtonTouchedChangedHandler? {
        get { handlers.withLock { $0.touched.value } }
        set { let h = Unchecked(newValue); handlers.withLock { $0.touched = h } }
    }

    /// 0 (released) … 1 (fully pressed).
    open var value: Float { values.read { role.buttonValue($0) } }
    /// Whether the button is down: any value for a digital button, from 0.1 for an analog one.
    open var isPressed: Bool { values.read { role.isPressed($0) } }
    /// Pressed counts as touched.
    open var isTouched: Bool { isPressed }

    /// Sets the value the button reads until the pad next reports a change of it (no handler runs).
    open func setValue(_ value: Float) {
        guard case .button(let e) = role else { return }
        values.values.withLock { $0.buttons[e.rawValue] = min(1, max(0, value)) }
    }

    func deliver(before: GamepadState.Values, after: GamepadState.Values) {
        let value = role.buttonValue(after), pressed = role.isPressed(after)
        let h = handlers.withLock { $0 }
        if value != role.buttonValue(before) { h.value.value?(self, value, pressed) }
        if pressed != role.isPressed(before) { h.pressed.value?(self, value, pressed) }
    }
}

/// Apple's `GCControllerAxisInput`: one axis of a direction pad, −1 … 1 (up and right positive).
open class GCControllerAxisInput: GCControllerElement, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `handler`.
    private let handler = Mutex(Unchecked<GCControllerAxisValueChangedHandler?>(nil))

    open var valueChangedHandler: GCControllerAxisValueChangedHandler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    open var value: Float { values.read { role.buttonValue($0) } }

    /// Sets the value the axis reads until the pad next reports a change of it (no handler runs).
    open func setValue(_ value: Float) {
        guard case .axis(let e, let y) = role else { return }
        let v = min(1, max(-1, value))
        values.values.withLock { if y { $0.y[e.rawValue] = v } else { $0.x[e.rawValue] = v } }
    }

    func deliver(before: GamepadState.Values, after: GamepadState.Values) {
        let value = role.buttonValue(after)
        guard value != role.buttonValue(before) else { return }
        handler.withLock { $0 }.value?(self, value)
    }
}

/// Apple's `GCControllerDirectionPad`: the d-pad or a thumbstick, as two axes and four directions.
open class GCControllerDirectionPad: GCControllerElement, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `handler`; the parts are set once.
    private let handler = Mutex(Unchecked<GCControllerDirectionPadValueChangedHandler?>(nil))
    public let xAxis: GCControllerAxisInput
    public let yAxis: GCControllerAxisInput
    public let up: GCControllerButtonInput
    public let down: GCControllerButtonInput
    public let left: GCControllerButtonInput
    public let right: GCControllerButtonInput

    init(values: InputValues, element: GamepadElement) {
        let name = element.appleName, analog = element != .dpad
        xAxis = GCControllerAxisInput(values: values, role: .axis(element, y: false), name: "\(name) X Axis", analog: analog)
        yAxis = GCControllerAxisInput(values: values, role: .axis(element, y: true), name: "\(name) Y Axis", analog: analog)
        up = GCControllerButtonInput(values: values, role: .direction(element, .up), name: "\(name) Up", analog: analog)
        down = GCControllerButtonInput(values: values, role: .direction(element, .down), name: "\(name) Down", analog: analog)
        left = GCControllerButtonInput(values: values, role: .direction(element, .left), name: "\(name) Left", analog: analog)
        right = GCControllerButtonInput(values: values, role: .direction(element, .right), name: "\(name) Right", analog: analog)
        super.init(values: values, role: .pad(element), name: name, analog: analog)
        for part in [xAxis, yAxis, up, down, left, right] as [GCControllerElement] { part.collection = self }
    }

    /// Called on the controller's `handlerQueue` with x and y whenever either changes.
    open var valueChangedHandler: GCControllerDirectionPadValueChangedHandler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    /// Sets both axes until the pad next reports a change of them (no handler runs).
    open func setValueForXAxis(_ xAxis: Float, yAxis: Float) {
        self.xAxis.setValue(xAxis)
        self.yAxis.setValue(yAxis)
    }

    func deliver(before: GamepadState.Values, after: GamepadState.Values) {
        guard case .pad(let e) = role else { return }
        handler.withLock { $0 }.value?(self, after.x[e.rawValue], after.y[e.rawValue])
        xAxis.deliver(before: before, after: after)
        yAxis.deliver(before: before, after: after)
        for b in [up, down, left, right] { b.deliver(before: before, after: after) }
    }
}

/// Apple's `GCPhysicalInputProfile`: a controller's elements by name.
open class GCPhysicalInputProfile: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the element tables are set once in init; the handler and timestamp are
    // behind `local`.
    let values: InputValues
    weak var owner: GCController?
    private let local = Mutex<(handler: Unchecked<((GCPhysicalInputProfile, GCControllerElement) -> Void)?>, timestamp: TimeInterval)>((Unchecked(nil), 0))

    public let elements: [String: GCControllerElement]
    public let buttons: [String: GCControllerButtonInput]
    public let axes: [String: GCControllerAxisInput]
    public let dpads: [String: GCControllerDirectionPad]

    init(values: InputValues, elements: [String: GCControllerElement]) {
        self.values = values
        var all = elements, buttons: [String: GCControllerButtonInput] = [:], axes: [String: GCControllerAxisInput] = [:], dpads: [String: GCControllerDirectionPad] = [:]
        for (name, e) in elements {
            if let b = e as? GCControllerButtonInput { buttons[name] = b }
            if let d = e as? GCControllerDirectionPad {
                dpads[name] = d
                for (suffix, a) in [("X Axis", d.xAxis), ("Y Axis", d.yAxis)] { axes["\(name) \(suffix)"] = a; all["\(name) \(suffix)"] = a }
                for (suffix, b) in [("Up", d.up), ("Down", d.down), ("Left", d.left), ("Right", d.right)] { buttons["\(name) \(suffix)"] = b; all["\(name) \(suffix)"] = b }
            }
        }
        self.elements = all
        self.buttons = buttons
        self.axes = axes
        self.dpads = dpads
        super.init()
    }

    /// The controller the profile belongs to.
    open var device: (any GCDevice)? { owner }
    /// When the pad last reported a change (seconds on the monotonic clock, as Apple's).
    open var lastEventTimestamp: TimeInterval { local.withLock { $0.timestamp } }
    open var hasRemappedElements: Bool { false }
    /// Called on the controller's `handlerQueue` for each element that changed.
    open var valueDidChangeHandler: ((GCPhysicalInputProfile, GCControllerElement) -> Void)? {
        get { local.withLock { $0.handler.value } }
        set { let h = Unchecked(newValue); local.withLock { $0.handler = h } }
    }

    open var allElements: Set<GCControllerElement> { Set(elements.values) }
    open var allButtons: Set<GCControllerButtonInput> { Set(buttons.values) }
    open var allAxes: Set<GCControllerAxisInput> { Set(axes.values) }
    open var allDpads: Set<GCControllerDirectionPad> { Set(dpads.values) }

    open subscript(key: String) -> GCControllerElement? { elements[key] }

    /// No remapping here: every element is its own alias.
    open func mappedElementAlias(forPhysicalInputName inputName: String) -> String { inputName }
    open func mappedPhysicalInputNames(forElementAlias elementAlias: String) -> Set<String> { [elementAlias] }

    /// A copy of the profile as it is now, apart from the pad (Apple's `capture()`): its values no
    /// longer follow the pad, and `setValue` on its elements changes them.
    open func capture() -> Self {
        captured() as! Self
    }

    /// Takes another profile's values (Apple's way to replay a capture onto a profile); elements
    /// this one has take theirs, the rest stay. No handler runs.
    open func setStateFromPhysicalInput(_ physicalInput: GCPhysicalInputProfile) {
        guard physicalInput !== self else { return }
        let other = physicalInput.values.read { $0 }
        // The buttons and direction pads both profiles have, by name (their parts follow their pad).
        var shared: [GamepadElement] = []
        for (name, element) in elements where physicalInput.elements[name] != nil {
            switch element.role {
            case .button(let e), .pad(let e): shared.append(e)
            default: break
            }
        }
        values.values.withLock { v in
            for e in shared {
                v.buttons[e.rawValue] = other.buttons[e.rawValue]
                v.x[e.rawValue] = other.x[e.rawValue]
                v.y[e.rawValue] = other.y[e.rawValue]
            }
        }
    }

    /// What `capture()` returns; each profile class that can be made gives its own.
    func captured() -> GCPhysicalInputProfile { self }

    /// Never backwards: a pad with a touchpad has two readers stamping.
    func stamp(_ t: TimeInterval) { local.withLock { $0.timestamp = max($0.timestamp, t) } }
    func profileHandler() -> ((GCPhysicalInputProfile, GCControllerElement) -> Void)? { local.withLock { $0.handler.value } }
}

public typealias GCExtendedGamepadValueChangedHandler = (GCExtendedGamepad, GCControllerElement) -> Void

/// Apple's `GCExtendedGamepad`: two thumbsticks, a d-pad, four face buttons, shoulders, triggers
/// and menu buttons. The optional elements are there when the pad's driver reports them. A
/// DualShock 4's profile is a `GCDualShockGamepad`, a DualSense's a `GCDualSenseGamepad`, an Xbox
/// pad's a `GCXboxGamepad` (GCProfiles.swift), as Apple's are.
open class GCExtendedGamepad: GCPhysicalInputProfile, @unchecked Sendable {
    // @unchecked Sendable: the elements and layout are set once; the handler is behind `handler`.
    private let handler = Mutex(Unchecked<GCExtendedGamepadValueChangedHandler?>(nil))
    let byElement: [GamepadElement: GCControllerElement]
    let layout: GamepadLayout

    public let dpad: GCControllerDirectionPad
    public let leftThumbstick: GCControllerDirectionPad
    public let rightThumbstick: GCControllerDirectionPad
    public let buttonA: GCControllerButtonInput
    public let buttonB: GCControllerButtonInput
    public let buttonX: GCControllerButtonInput
    public let buttonY: GCControllerButtonInput
    public let leftShoulder: GCControllerButtonInput
    public let rightShoulder: GCControllerButtonInput
    private let triggers: (left: GCControllerButtonInput, right: GCControllerButtonInput)
    /// Open (not a constant) so that the DualSense's profile can give its adaptive triggers, as Apple's does.
    open var leftTrigger: GCControllerButtonInput { triggers.left }
    open var rightTrigger: GCControllerButtonInput { triggers.right }
    public let buttonMenu: GCControllerButtonInput
    public let buttonOptions: GCControllerButtonInput?
    public let buttonHome: GCControllerButtonInput?
    public let leftThumbstickButton: GCControllerButtonInput?
    public let rightThumbstickButton: GCControllerButtonInput?

    /// The elements a profile of this class has beyond the layout's (the touchpad's).
    class var extraElements: [GamepadElement] { [] }
    /// A button element of this profile (the DualSense's makes its triggers adaptive).
    class func makeButton(_ element: GamepadElement, values: InputValues, analog: Bool) -> GCControllerButtonInput {
        GCControllerButtonInput(values: values, role: .button(element), name: element.appleName, analog: analog)
    }

    /// A profile of this class (each class that can be made gives its own).
    class func make(layout: GamepadLayout, values: InputValues) -> GCExtendedGamepad { GCExtendedGamepad(layout: layout, values: values) }

    init(layout: GamepadLayout, values: InputValues) {
        var made: [GamepadElement: GCControllerElement] = [:]
        let kinds = Set(GamepadElement.extended.filter { layout.present.contains($0) } + Self.extraElements)
        for e in GamepadElement.allCases where kinds.contains(e) {
            made[e] = e.isDirectionPad
                ? GCControllerDirectionPad(values: values, element: e)
                : Self.makeButton(e, values: values, analog: values.read { $0.analog.contains(e) })
        }
        func button(_ e: GamepadElement) -> GCControllerButtonInput? { made[e] as? GCControllerButtonInput }
        func pad(_ e: GamepadElement) -> GCControllerDirectionPad { made[e] as! GCControllerDirectionPad }
        byElement = made
        self.layout = layout
        dpad = pad(.dpad)
        leftThumbstick = pad(.leftThumbstick)
        rightThumbstick = pad(.rightThumbstick)
        buttonA = button(.buttonA)!
        buttonB = button(.buttonB)!
        buttonX = button(.buttonX)!
        buttonY = button(.buttonY)!
        leftShoulder = button(.leftShoulder)!
        rightShoulder = button(.rightShoulder)!
        triggers = (button(.leftTrigger)!, button(.rightTrigger)!)
        buttonMenu = button(.buttonMenu)!
        buttonOptions = button(.buttonOptions)
        buttonHome = button(.buttonHome)
        leftThumbstickButton = button(.leftThumbstickButton)
        rightThumbstickButton = button(.rightThumbstickButton)
        super.init(values: values, elements: Dictionary(uniqueKeysWithValues: made.map { ($0.key.appleName, $0.value) }))
    }

    /// The controller this profile belongs to (nil for a capture of a profile).
    open var controller: GCController? { owner }

    /// Called on the controller's `handlerQueue` for each element that changed (a button, or the
    /// d-pad or a thumbstick as a whole), after the element's own handlers.
    open var valueChangedHandler: GCExtendedGamepadValueChangedHandler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }

    /// The profile as it is now, apart from the pad: its values stay, and `setValue` changes them
    /// (Apple's way to record or to script input). Its `controller` is nil.
    override func captured() -> GCPhysicalInputProfile {
        type(of: self).make(layout: layout, values: InputValues(values.read { $0 }))
    }

    /// The profile's values now, as a deprecated `GCExtendedGamepadSnapshot` (`capture()` is the
    /// current way).
    open func saveSnapshot() -> GCExtendedGamepadSnapshot {
        let snapshot = GCExtendedGamepadSnapshot(layout: layout, values: InputValues(values.read { $0 }))
        snapshot.clickableThumbsticks = leftThumbstickButton != nil || rightThumbstickButton != nil
        snapshot.owner = owner
        return snapshot
    }

    /// The deprecated `GCGamepad` view of this profile, made at the first look (`GCController.gamepad`).
    private let legacy = Mutex<GCGamepad?>(nil)
    var gamepadProfile: GCGamepad {
        legacy.withLock { g in
            if let g { return g }
            let made = GCGamepad(extended: self)
            g = made
            return made
        }
    }

    /// Reports whose handlers wait on the handler queue; at `maximumQueuedReports`, later reports
    /// change the values but queue no handlers (a program that never runs its handler queue — a game
    /// that polls `value` from its own loop on the main thread — must not grow without bound: a pad
    /// reports up to 1 000 times a second).
    private let queued = Atomic<Int>(0)
    static let maximumQueuedReports = 256

    /// The controller's `input` (GCControllerInput.swift), told of each report.
    let physicalInput = Mutex<WeakBox<GCControllerLiveInput>?>(nil)

    /// A pad reported: the values change now; the handlers run on `queue`, in the profile's order:
    /// each element's own, this profile's, `valueDidChangeHandler`, the deprecated `GCGamepad`'s; then
    /// the controller's deprecated `controllerPausedHandler` when the menu button went down.
    /// Only the changed elements' values are taken from `after`: a pad with a touchpad has two
    /// readers (its node and the touchpad's), each with its own elements.
    func deliver(_ changed: [GamepadElement], after reported: GamepadState.Values, at time: TimeInterval, on queue: DispatchQueue) {
        // The controller's `input` records the report under the values lock (its states in the order
        // the values changed, its captures whole), and runs its handlers after this profile's.
        let live = physicalInput.withLock { $0?.object }
        let (before, after, recorded) = values.values.withLock { v -> (GamepadState.Values, GamepadState.Values, GCControllerLiveInput.Delivery?) in
            let before = v
            for e in changed {
                v.buttons[e.rawValue] = reported.buttons[e.rawValue]
                v.x[e.rawValue] = reported.x[e.rawValue]
                v.y[e.rawValue] = reported.y[e.rawValue]
            }
            return (before, v, live?.record(changed, before: before, after: v, at: time))
        }
        stamp(time)
        defer { if let live, let recorded { live.deliver(recorded, on: queue) } }
        let elements = changed.compactMap { byElement[$0] }
        guard !elements.isEmpty else { return }
        guard queued.add(1, ordering: .relaxed).newValue <= Self.maximumQueuedReports else {
            queued.subtract(1, ordering: .relaxed)
            return
        }
        let paused = !before.isPressed(.buttonMenu) && after.isPressed(.buttonMenu)
        let job = Unchecked({ [self] in
            defer { queued.subtract(1, ordering: .relaxed) }
            let gamepad = legacy.withLock { $0 }
            for element in elements {
                if let b = element as? GCControllerButtonInput { b.deliver(before: before, after: after) }
                if let d = element as? GCControllerDirectionPad { d.deliver(before: before, after: after) }
                handler.withLock { $0 }.value?(self, element)
                profileHandler()?(self, element)
                gamepad?.deliver(element)
            }
            if paused, let controller = owner { controller.controllerPausedHandler?(controller) }
        })
        queue.async { job.value() }
    }
}

/// Apple's `GCMicroGamepad` (the Siri Remote's profile). A gamepad has the extended profile;
/// `GCController.microGamepad` is nil for hapticd's pads.
open class GCMicroGamepad: GCPhysicalInputProfile, @unchecked Sendable {
    // @unchecked Sendable: never made (no pad has this profile here); immutable.
    public let dpad: GCControllerDirectionPad
    public let buttonA: GCControllerButtonInput
    public let buttonX: GCControllerButtonInput
    public let buttonMenu: GCControllerButtonInput
    open var reportsAbsoluteDpadValues = false
    open var allowsRotation = false
    open var valueChangedHandler: ((GCMicroGamepad, GCControllerElement) -> Void)?
    open var controller: GCController? { owner }

    private init(values: InputValues) {
        dpad = GCControllerDirectionPad(values: values, element: .dpad)
        buttonA = GCControllerButtonInput(values: values, role: .button(.buttonA), name: GCInputButtonA, analog: false)
        buttonX = GCControllerButtonInput(values: values, role: .button(.buttonX), name: GCInputButtonX, analog: false)
        buttonMenu = GCControllerButtonInput(values: values, role: .button(.buttonMenu), name: GCInputButtonMenu, analog: false)
        super.init(values: values, elements: [GCInputDirectionPad: dpad, GCInputButtonA: buttonA, GCInputButtonX: buttonX, GCInputButtonMenu: buttonMenu])
    }
}
