// Apple's typed element names of the iOS 16/17 physical input API (`controller.input.buttons[.a]`):
// structs over a String, as Apple's Swift overlay declares them, whose raw values are the
// `GCInput…` names (GCInput.swift) the classic profile uses. Only the names a gamepad has are
// given; the touchpad's elements go by their `GCInput…` strings (Apple gives them no typed name).

/// A name of an element whose kind it says (`GCButtonElementName` names a `GCButtonElement`): the
/// collections' subscripts take one and give an element of that kind.
public protocol GCPhysicalInputElementTypedName: Hashable, RawRepresentable, Sendable where RawValue == String {
    /// The kind of element the name names. (Apple's is constrained to `GCPhysicalInputElement`;
    /// here it cannot be: Swift protocols other than Objective-C ones have existentials that do
    /// not conform to their own protocol, so `any GCButtonElement` would not qualify.)
    associatedtype PhysicalInputElement
}

/// The name of any element.
public struct GCPhysicalInputElementName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension GCPhysicalInputElementName: GCPhysicalInputElementTypedName {
    public typealias PhysicalInputElement = any GCPhysicalInputElement
}

/// The name of a button (`GCButtonElement`).
public struct GCButtonElementName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let a = GCButtonElementName(rawValue: GCInputButtonA)
    public static let b = GCButtonElementName(rawValue: GCInputButtonB)
    public static let x = GCButtonElementName(rawValue: GCInputButtonX)
    public static let y = GCButtonElementName(rawValue: GCInputButtonY)
    public static let leftShoulder = GCButtonElementName(rawValue: GCInputLeftShoulder)
    public static let rightShoulder = GCButtonElementName(rawValue: GCInputRightShoulder)
    public static let leftTrigger = GCButtonElementName(rawValue: GCInputLeftTrigger)
    public static let rightTrigger = GCButtonElementName(rawValue: GCInputRightTrigger)
    public static let leftThumbstickButton = GCButtonElementName(rawValue: GCInputLeftThumbstickButton)
    public static let rightThumbstickButton = GCButtonElementName(rawValue: GCInputRightThumbstickButton)
    public static let home = GCButtonElementName(rawValue: GCInputButtonHome)
    public static let menu = GCButtonElementName(rawValue: GCInputButtonMenu)
    public static let options = GCButtonElementName(rawValue: GCInputButtonOptions)
    public static let share = GCButtonElementName(rawValue: GCInputButtonShare)
}

extension GCButtonElementName: GCPhysicalInputElementTypedName {
    public typealias PhysicalInputElement = any GCButtonElement
}

/// The name of an axis (`GCAxisElement`). A gamepad has none (its sticks are direction pads, its
/// triggers buttons), as on Apple's platforms.
public struct GCAxisElementName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension GCAxisElementName: GCPhysicalInputElementTypedName {
    public typealias PhysicalInputElement = any GCAxisElement
}

/// The name of a switch (`GCSwitchElement`). A gamepad has none.
public struct GCSwitchElementName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

extension GCSwitchElementName: GCPhysicalInputElementTypedName {
    public typealias PhysicalInputElement = any GCSwitchElement
}

/// The name of a direction pad (`GCDirectionPadElement`): the d-pad and the thumbsticks.
public struct GCDirectionPadElementName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let directionPad = GCDirectionPadElementName(rawValue: GCInputDirectionPad)
    public static let leftThumbstick = GCDirectionPadElementName(rawValue: GCInputLeftThumbstick)
    public static let rightThumbstick = GCDirectionPadElementName(rawValue: GCInputRightThumbstick)
}

extension GCDirectionPadElementName: GCPhysicalInputElementTypedName {
    public typealias PhysicalInputElement = any GCDirectionPadElement
}
