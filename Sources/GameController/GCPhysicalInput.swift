// Apple's iOS 16/17 physical input API, as its Swift interface declares it: the element and input
// protocols, the element collections, and the device input protocols (`GCController.input`,
// GCControllerInput.swift, is what implements them). Apple's protocols are Objective-C ones; here
// they are Swift protocols with the same members, spellings and optionality, class-bound
// (`NSObjectProtocol`) as Apple's, so `===` and `as? GCButtonElement` work on them as there.
import Dispatch
import Foundation

// MARK: values

/// Two floats: a two-axis input's value (`GCAxis2DInput`).
public struct GCPoint2: Sendable {
    public var x: Float
    public var y: Float
    public init() {
        x = 0
        y = 0
    }
    public init(x: Float, y: Float) {
        self.x = x
        self.y = y
    }
}

public let GCPoint2Zero = GCPoint2()

/// The point as Apple's `NSStringFromGCPoint2` writes it: "{x, y}".
public func NSStringFromGCPoint2(_ point: GCPoint2) -> String { "{\(point.x), \(point.y)}" }

/// Which way of an element a source moves an input: a direction pad's up is its y axis's positive
/// side.
public struct GCPhysicalInputSourceDirection: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let notApplicable: GCPhysicalInputSourceDirection = []
    public static let up = GCPhysicalInputSourceDirection(rawValue: 1 << 0)
    public static let right = GCPhysicalInputSourceDirection(rawValue: 1 << 1)
    public static let down = GCPhysicalInputSourceDirection(rawValue: 1 << 2)
    public static let left = GCPhysicalInputSourceDirection(rawValue: 1 << 3)
}

/// A physical control an input's value comes from (the members of the inputs' `sources`).
public protocol GCPhysicalInputSource: NSObjectProtocol {
    var elementAliases: Set<String> { get }
    var elementLocalizedName: String? { get }
    var sfSymbolsName: String? { get }
    var direction: GCPhysicalInputSourceDirection { get }
}

// MARK: elements

/// What every element has.
public protocol GCPhysicalInputElement: NSObjectProtocol {
    /// The names the element goes by (the keys the collections find it under).
    var aliases: Set<String> { get }
    var localizedName: String? { get }
    var sfSymbolsName: String? { get }
}

/// A button: its value and pressed state, and (for a capacitive button) whether it is touched.
public protocol GCButtonElement: GCPhysicalInputElement {
    var pressedInput: any GCLinearInput & GCPressedStateInput { get }
    var touchedInput: (any GCTouchedStateInput)? { get }
}

/// An axis: an absolute value, or changes of one.
public protocol GCAxisElement: GCPhysicalInputElement {
    var absoluteInput: (any GCAxisInput)? { get }
    var relativeInput: any GCRelativeInput { get }
}

/// A switch of several positions.
public protocol GCSwitchElement: GCPhysicalInputElement {
    var positionInput: any GCSwitchPositionInput { get }
}

/// A direction pad (the d-pad, a thumbstick): two axes, both at once, and four directions.
public protocol GCDirectionPadElement: GCPhysicalInputElement {
    var xAxis: any GCAxisInput { get }
    var yAxis: any GCAxisInput { get }
    var xyAxes: any GCAxis2DInput { get }
    var up: any GCLinearInput & GCPressedStateInput { get }
    var down: any GCLinearInput & GCPressedStateInput { get }
    var left: any GCLinearInput & GCPressedStateInput { get }
    var right: any GCLinearInput & GCPressedStateInput { get }
}

// MARK: inputs

/// A value from 0 to 1 (a button's travel, a trigger's).
public protocol GCLinearInput: NSObjectProtocol {
    var valueDidChangeHandler: ((any GCPhysicalInputElement, any GCLinearInput, Float) -> Void)? { get set }
    var value: Float { get }
    var isAnalog: Bool { get }
    var canWrap: Bool { get }
    var lastValueTimestamp: TimeInterval { get }
    var lastValueLatency: TimeInterval { get }
    /// The `GCPhysicalInputSource`s the value comes from.
    var sources: Set<AnyHashable> { get }
}

/// Whether a button is pressed.
public protocol GCPressedStateInput: NSObjectProtocol {
    var pressedDidChangeHandler: ((any GCPhysicalInputElement, any GCPressedStateInput, Bool) -> Void)? { get set }
    var isPressed: Bool { get }
    var lastPressedStateTimestamp: TimeInterval { get }
    var lastPressedStateLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

/// Whether a (capacitive) button is touched.
public protocol GCTouchedStateInput: NSObjectProtocol {
    var touchedDidChangeHandler: ((any GCPhysicalInputElement, any GCTouchedStateInput, Bool) -> Void)? { get set }
    var isTouched: Bool { get }
    var lastTouchedStateTimestamp: TimeInterval { get }
    var lastTouchedStateLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

/// A value from −1 to 1 (a stick's axis; up and right positive).
public protocol GCAxisInput: NSObjectProtocol {
    var valueDidChangeHandler: ((any GCPhysicalInputElement, any GCAxisInput, Float) -> Void)? { get set }
    var value: Float { get }
    var isAnalog: Bool { get }
    var canWrap: Bool { get }
    var lastValueTimestamp: TimeInterval { get }
    var lastValueLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

/// Two axes read together (a stick's x and y).
public protocol GCAxis2DInput: NSObjectProtocol {
    var valueDidChangeHandler: ((any GCPhysicalInputElement, any GCAxis2DInput, GCPoint2) -> Void)? { get set }
    var value: GCPoint2 { get }
    var isAnalog: Bool { get }
    var canWrap: Bool { get }
    var lastValueTimestamp: TimeInterval { get }
    var lastValueLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

/// Changes of a value (a mouse's motion, a scroll wheel's).
public protocol GCRelativeInput: NSObjectProtocol {
    var deltaDidChangeHandler: ((any GCPhysicalInputElement, any GCRelativeInput, Float) -> Void)? { get set }
    var delta: Float { get }
    var isAnalog: Bool { get }
    var lastDeltaTimestamp: TimeInterval { get }
    var lastDeltaLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

/// A switch's position.
public protocol GCSwitchPositionInput: NSObjectProtocol {
    var positionDidChangeHandler: ((any GCPhysicalInputElement, any GCSwitchPositionInput, Int) -> Void)? { get set }
    var position: Int { get }
    var positionRange: NSRange { get }
    var isSequential: Bool { get }
    var canWrap: Bool { get }
    var lastPositionTimestamp: TimeInterval { get }
    var lastPositionLatency: TimeInterval { get }
    var sources: Set<AnyHashable> { get }
}

// MARK: collections

/// Elements of one kind, in a fixed order, found by any of their aliases: a `Collection` of
/// elements, as Apple's Swift overlay makes it (`for element in input.buttons`,
/// `input.buttons.count`, `input.buttons[.a]`, `input.buttons["Button A"]`).
///
/// Apple constrains `T` to `GCPhysicalInputElement`; here `T` is the elements' existential
/// (`any GCButtonElement`), which a Swift protocol's existential does not conform to, so it is
/// not constrained.
public struct GCPhysicalInputElementCollection<T>: Collection {
    public typealias Element = T

    private let members: [T]
    private let positions: [String: Int]

    /// `aliases` gives each member's names; the first member to claim a name keeps it.
    init(_ members: [T], aliases: (T) -> Set<String>) {
        self.members = members
        var positions: [String: Int] = [:]
        for (i, m) in members.enumerated() {
            for name in aliases(m).sorted() where positions[name] == nil { positions[name] = i }
        }
        self.positions = positions
    }

    /// The element that goes by this name (an alias), if there is one.
    public subscript(elementName: String) -> T? {
        positions[elementName].map { members[$0] }
    }

    public struct Index: Comparable {
        let offset: Int
        public static func < (lhs: Index, rhs: Index) -> Bool { lhs.offset < rhs.offset }
    }

    public subscript(position: Index) -> T { members[position.offset] }
    public var startIndex: Index { Index(offset: 0) }
    public var endIndex: Index { Index(offset: members.count) }
    public func index(after i: Index) -> Index { Index(offset: i.offset + 1) }
    public var count: Int { members.count }
}

extension GCPhysicalInputElementCollection: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; its members are this module's element classes,
    // each @unchecked Sendable for its own reasons (GCControllerInput.swift).
}

extension GCPhysicalInputElementCollection {
    /// The element of the name's kind that goes by it (`input.dpads[.leftThumbstick]`).
    public subscript<Name: GCPhysicalInputElementTypedName>(elementName: Name) -> Name.PhysicalInputElement? {
        self[elementName.rawValue].flatMap { $0 as? Name.PhysicalInputElement }
    }
}

extension GCPhysicalInputElementCollection where T == any GCPhysicalInputElement {
    // (A typed name here, `input.elements[GCButtonElementName.a]`, is the generic subscript's above:
    // an element of the name's kind, as Apple's.)
    public subscript(elementName: GCPhysicalInputElementName) -> T? { self[elementName.rawValue] }
}

extension GCPhysicalInputElementCollection where T == any GCButtonElement {
    public subscript(elementName: GCButtonElementName) -> T? { self[elementName.rawValue] }
}

extension GCPhysicalInputElementCollection where T == any GCAxisElement {
    public subscript(elementName: GCAxisElementName) -> T? { self[elementName.rawValue] }
}

extension GCPhysicalInputElementCollection where T == any GCSwitchElement {
    public subscript(elementName: GCSwitchElementName) -> T? { self[elementName.rawValue] }
}

extension GCPhysicalInputElementCollection where T == any GCDirectionPadElement {
    public subscript(elementName: GCDirectionPadElementName) -> T? { self[elementName.rawValue] }
}

// MARK: device input

/// A device's input state: its elements and their values.
public protocol GCDevicePhysicalInputState: NSObjectProtocol {
    /// The device the state is of (weak).
    var device: (any GCDevice)? { get }
    /// When the device last reported a change (seconds on the monotonic clock).
    var lastEventTimestamp: TimeInterval { get }
    /// How long ago that was.
    var lastEventLatency: TimeInterval { get }
    var elements: GCPhysicalInputElementCollection<any GCPhysicalInputElement> { get }
    var buttons: GCPhysicalInputElementCollection<any GCButtonElement> { get }
    var axes: GCPhysicalInputElementCollection<any GCAxisElement> { get }
    var switches: GCPhysicalInputElementCollection<any GCSwitchElement> { get }
    var dpads: GCPhysicalInputElementCollection<any GCDirectionPadElement> { get }
    /// The element that goes by this name.
    subscript(key: String) -> (any GCPhysicalInputElement)? { get }
}

/// Whether an element's value changed from one queued input state to the next.
public enum GCDevicePhysicalInputElementChange: Int, Sendable {
    case unknownChange = -1
    case noChange = 0
    case changed = 1
}

/// What changed since the input state before (the states `nextInputState()` gives).
public protocol GCDevicePhysicalInputStateDiff: NSObjectProtocol {
    func change(for element: any GCPhysicalInputElement) -> GCDevicePhysicalInputElementChange
    /// The elements that changed (Apple's Objective-C `changedElements`, which the Swift overlay
    /// refines into `changedElements()`).
    func __changedElements() -> [any GCPhysicalInputElement]?
}

extension GCDevicePhysicalInputStateDiff {
    /// The elements whose values changed since the state before; nil when that is not known.
    public func changedElements() -> (some Sequence<any GCPhysicalInputElement>)? {
        __changedElements()
    }

    /// The same as an enumerator (Apple's Objective-C form, which Swift code reaches too:
    /// `changedElements()?.nextObject()`).
    @_disfavoredOverload
    public func changedElements() -> NSEnumerator? {
        __changedElements().map { NSArray(array: $0.map { $0 as AnyObject }).objectEnumerator() }
    }
}

/// A device's live input: its state as it is now, its change handlers, and a queue of the states
/// it went through.
public protocol GCDevicePhysicalInput: GCDevicePhysicalInputState {
    /// Where the handlers run: the device's `handlerQueue` unless set.
    var queue: DispatchQueue? { get set }
    /// Called for each element whose value changed, after its inputs' own handlers.
    var elementValueDidChangeHandler: ((any GCDevicePhysicalInput, any GCPhysicalInputElement) -> Void)? { get set }
    /// The state as it is now, apart from the device.
    func capture() -> any GCDevicePhysicalInputState
    /// Called when a state was queued: take them with `nextInputState()` until it gives nil.
    var inputStateAvailableHandler: ((any GCDevicePhysicalInput) -> Void)? { get set }
    /// How many states the queue keeps (1 unless set); past it the oldest go.
    var inputStateQueueDepth: Int { get set }
    /// The oldest queued state, taken off the queue; nil when none is.
    func nextInputState() -> (any GCDevicePhysicalInputState & GCDevicePhysicalInputStateDiff)?
}
