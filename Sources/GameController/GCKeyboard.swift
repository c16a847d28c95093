import Dispatch
import Foundation
import Synchronization

// Apple's keyboard as a game-controller device (`GCKeyboard`, `GCKeyboardInput`, `GCKeyCode`).
//
// On Linux a program gets its keyboard from its window system (X11, Wayland, SDL, a terminal), and
// the kernel's keyboard nodes are readable only by root and the `input` group — reading them would
// see every key typed anywhere in the session, not just the program's. So this module exposes no
// keyboard: `GCKeyboard.coalesced` is nil and `GCKeyboardDidConnect` is never posted, as on an
// iPhone with no keyboard attached. The types are Apple's, so code that reads a keyboard when there
// is one compiles and takes its no-keyboard path.

/// A key's code: the USB HID keyboard usage (Apple's `GCKeyCode`, whose values are the usage IDs of
/// the HID usage tables' keyboard page).
public struct GCKeyCode: Hashable, RawRepresentable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }
}

extension GCKeyCode {
    public static let keyA = GCKeyCode(0x04), keyB = GCKeyCode(0x05), keyC = GCKeyCode(0x06), keyD = GCKeyCode(0x07)
    public static let keyE = GCKeyCode(0x08), keyF = GCKeyCode(0x09), keyG = GCKeyCode(0x0A), keyH = GCKeyCode(0x0B)
    public static let keyI = GCKeyCode(0x0C), keyJ = GCKeyCode(0x0D), keyK = GCKeyCode(0x0E), keyL = GCKeyCode(0x0F)
    public static let keyM = GCKeyCode(0x10), keyN = GCKeyCode(0x11), keyO = GCKeyCode(0x12), keyP = GCKeyCode(0x13)
    public static let keyQ = GCKeyCode(0x14), keyR = GCKeyCode(0x15), keyS = GCKeyCode(0x16), keyT = GCKeyCode(0x17)
    public static let keyU = GCKeyCode(0x18), keyV = GCKeyCode(0x19), keyW = GCKeyCode(0x1A), keyX = GCKeyCode(0x1B)
    public static let keyY = GCKeyCode(0x1C), keyZ = GCKeyCode(0x1D)
    public static let one = GCKeyCode(0x1E), two = GCKeyCode(0x1F), three = GCKeyCode(0x20), four = GCKeyCode(0x21)
    public static let five = GCKeyCode(0x22), six = GCKeyCode(0x23), seven = GCKeyCode(0x24), eight = GCKeyCode(0x25)
    public static let nine = GCKeyCode(0x26), zero = GCKeyCode(0x27)
    public static let returnOrEnter = GCKeyCode(0x28), escape = GCKeyCode(0x29), deleteOrBackspace = GCKeyCode(0x2A)
    public static let tab = GCKeyCode(0x2B), spacebar = GCKeyCode(0x2C), hyphen = GCKeyCode(0x2D), equalSign = GCKeyCode(0x2E)
    public static let openBracket = GCKeyCode(0x2F), closeBracket = GCKeyCode(0x30), backslash = GCKeyCode(0x31)
    public static let nonUSPound = GCKeyCode(0x32), semicolon = GCKeyCode(0x33), quote = GCKeyCode(0x34)
    public static let graveAccentAndTilde = GCKeyCode(0x35), comma = GCKeyCode(0x36), period = GCKeyCode(0x37)
    public static let slash = GCKeyCode(0x38), capsLock = GCKeyCode(0x39)
    public static let F1 = GCKeyCode(0x3A), F2 = GCKeyCode(0x3B), F3 = GCKeyCode(0x3C), F4 = GCKeyCode(0x3D)
    public static let F5 = GCKeyCode(0x3E), F6 = GCKeyCode(0x3F), F7 = GCKeyCode(0x40), F8 = GCKeyCode(0x41)
    public static let F9 = GCKeyCode(0x42), F10 = GCKeyCode(0x43), F11 = GCKeyCode(0x44), F12 = GCKeyCode(0x45)
    public static let printScreen = GCKeyCode(0x46), scrollLock = GCKeyCode(0x47), pause = GCKeyCode(0x48)
    public static let insert = GCKeyCode(0x49), home = GCKeyCode(0x4A), pageUp = GCKeyCode(0x4B)
    public static let deleteForward = GCKeyCode(0x4C), end = GCKeyCode(0x4D), pageDown = GCKeyCode(0x4E)
    public static let rightArrow = GCKeyCode(0x4F), leftArrow = GCKeyCode(0x50), downArrow = GCKeyCode(0x51), upArrow = GCKeyCode(0x52)
    public static let keypadNumLock = GCKeyCode(0x53), keypadSlash = GCKeyCode(0x54), keypadAsterisk = GCKeyCode(0x55)
    public static let keypadHyphen = GCKeyCode(0x56), keypadPlus = GCKeyCode(0x57), keypadEnter = GCKeyCode(0x58)
    public static let keypad1 = GCKeyCode(0x59), keypad2 = GCKeyCode(0x5A), keypad3 = GCKeyCode(0x5B), keypad4 = GCKeyCode(0x5C)
    public static let keypad5 = GCKeyCode(0x5D), keypad6 = GCKeyCode(0x5E), keypad7 = GCKeyCode(0x5F), keypad8 = GCKeyCode(0x60)
    public static let keypad9 = GCKeyCode(0x61), keypad0 = GCKeyCode(0x62), keypadPeriod = GCKeyCode(0x63)
    public static let nonUSBackslash = GCKeyCode(0x64), application = GCKeyCode(0x65), power = GCKeyCode(0x66)
    public static let keypadEqualSign = GCKeyCode(0x67)
    public static let F13 = GCKeyCode(0x68), F14 = GCKeyCode(0x69), F15 = GCKeyCode(0x6A), F16 = GCKeyCode(0x6B)
    public static let F17 = GCKeyCode(0x6C), F18 = GCKeyCode(0x6D), F19 = GCKeyCode(0x6E), F20 = GCKeyCode(0x6F)
    public static let international1 = GCKeyCode(0x87), international2 = GCKeyCode(0x88), international3 = GCKeyCode(0x89)
    public static let international4 = GCKeyCode(0x8A), international5 = GCKeyCode(0x8B), international6 = GCKeyCode(0x8C)
    public static let international7 = GCKeyCode(0x8D), international8 = GCKeyCode(0x8E), international9 = GCKeyCode(0x8F)
    public static let LANG1 = GCKeyCode(0x90), LANG2 = GCKeyCode(0x91), LANG3 = GCKeyCode(0x92), LANG4 = GCKeyCode(0x93)
    public static let LANG5 = GCKeyCode(0x94), LANG6 = GCKeyCode(0x95), LANG7 = GCKeyCode(0x96), LANG8 = GCKeyCode(0x97)
    public static let LANG9 = GCKeyCode(0x98)
    public static let leftControl = GCKeyCode(0xE0), leftShift = GCKeyCode(0xE1), leftAlt = GCKeyCode(0xE2), leftGUI = GCKeyCode(0xE3)
    public static let rightControl = GCKeyCode(0xE4), rightShift = GCKeyCode(0xE5), rightAlt = GCKeyCode(0xE6), rightGUI = GCKeyCode(0xE7)
}

/// Apple's `GCProductCategoryKeyboard`.
public let GCProductCategoryKeyboard = "Keyboard"

/// Called for each key whose value changed: the keyboard's profile, the key's button, its code,
/// whether it is pressed.
public typealias GCKeyboardValueChangedHandler = (GCKeyboardInput, GCControllerButtonInput, GCKeyCode, Bool) -> Void

/// A keyboard (Apple's `GCKeyboard`): none on Linux (above) — `coalesced` is nil.
open class GCKeyboard: NSObject, GCDevice, @unchecked Sendable {
    // @unchecked Sendable: the handler queue is behind `queue`; the profile is set once.
    private let queue = Mutex(DispatchQueue.main)
    private let profile: GCKeyboardInput

    init(profile: GCKeyboardInput) {
        self.profile = profile
        super.init()
    }

    /// Every keyboard as one: nil, none is exposed here.
    open class var coalesced: GCKeyboard? { nil }
    open var keyboardInput: GCKeyboardInput? { profile }
    open var handlerQueue: DispatchQueue {
        get { queue.withLock { $0 } }
        set { queue.withLock { $0 = newValue } }
    }
    open var vendorName: String? { nil }
    open var productCategory: String { GCProductCategoryKeyboard }
    open var physicalInputProfile: GCPhysicalInputProfile { profile }
}

/// A keyboard's keys (Apple's `GCKeyboardInput`).
open class GCKeyboardInput: GCPhysicalInputProfile, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `handler`.
    private let handler = Mutex(Unchecked<GCKeyboardValueChangedHandler?>(nil))

    init() {
        super.init(values: InputValues(GamepadState(layout: GamepadLayout(.unknown)).committed), elements: [:])
    }

    /// Called on the keyboard's `handlerQueue` for each key that changes.
    open var keyChangedHandler: GCKeyboardValueChangedHandler? {
        get { handler.withLock { $0.value } }
        set { let h = Unchecked(newValue); handler.withLock { $0 = h } }
    }
    /// Whether any key is down.
    open var isAnyKeyPressed: Bool { false }
    /// The key's button, if the keyboard has the key.
    open func button(forKeyCode code: GCKeyCode) -> GCControllerButtonInput? { nil }
}

extension NSNotification.Name {
    /// Posted with a `GCKeyboard` when the first keyboard connects: never here (above).
    public static let GCKeyboardDidConnect = NSNotification.Name("GCKeyboardDidConnectNotification")
    /// Posted with a `GCKeyboard` when the last keyboard disconnects: never here.
    public static let GCKeyboardDidDisconnect = NSNotification.Name("GCKeyboardDidDisconnectNotification")
}
