import Dispatch
import Foundation
import Synchronization

// Apple's mouse as a game-controller device (`GCMouse`, `GCMouseInput`, `GCDeviceCursor`).
//
// As for the keyboard (GCKeyboard.swift): on Linux a program's pointer is its window system's, and
// the kernel's mouse nodes are readable only by root and the `input` group. So this module exposes
// no mouse: `GCMouse.current` is nil, `mice()` is empty and the connect notifications are never
// posted, as on a device with no mouse. Code that reads a mouse when there is one compiles and
// takes its no-mouse path.

/// Apple's `GCProductCategoryMouse`.
public let GCProductCategoryMouse = "Mouse"

/// Called with the mouse's profile and the movement (x, y) since the last call.
public typealias GCMouseMoved = (GCMouseInput, Float, Float) -> Void

/// A mouse (Apple's `GCMouse`): none on Linux (above).
open class GCMouse: NSObject, GCDevice, @unchecked Sendable {
    // @unchecked Sendable: the handler queue is behind `queue`; the profile is set once.
    private let queue = Mutex(DispatchQueue.main)
    private let profile: GCMouseInput

    init(profile: GCMouseInput) {
        self.profile = profile
        super.init()
    }

    /// The mouse used most recently: nil, none is exposed here.
    open class var current: GCMouse? { nil }
    /// Every connected mouse: none here.
    open class func mice() -> [GCMouse] { [] }
    open var mouseInput: GCMouseInput? { profile }
    open var handlerQueue: DispatchQueue {
        get { queue.withLock { $0 } }
        set { queue.withLock { $0 = newValue } }
    }
    open var vendorName: String? { nil }
    open var productCategory: String { GCProductCategoryMouse }
    open var physicalInputProfile: GCPhysicalInputProfile { profile }
}

/// A mouse's scroll wheel as a direction pad (Apple's `GCDeviceCursor`).
open class GCDeviceCursor: GCControllerDirectionPad, @unchecked Sendable {}

/// A mouse's buttons, movement and scroll wheel (Apple's `GCMouseInput`).
open class GCMouseInput: GCPhysicalInputProfile, @unchecked Sendable {
    // @unchecked Sendable: the handler is behind `moved`; the elements are set once.
    private let moved = Mutex(Unchecked<GCMouseMoved?>(nil))
    public let scroll: GCDeviceCursor
    public let leftButton: GCControllerButtonInput

    init() {
        let values = InputValues(GamepadState(layout: GamepadLayout(.unknown)).committed)
        scroll = GCDeviceCursor(values: values, element: .rightThumbstick)
        leftButton = GCControllerButtonInput(values: values, role: .button(.buttonA), name: "Left Button", analog: false)
        super.init(values: values, elements: ["Left Button": leftButton, "Scroll": scroll])
    }

    /// Called on the mouse's `handlerQueue` with each movement.
    open var mouseMovedHandler: GCMouseMoved? {
        get { moved.withLock { $0.value } }
        set { let h = Unchecked(newValue); moved.withLock { $0 = h } }
    }
    open var rightButton: GCControllerButtonInput? { nil }
    open var middleButton: GCControllerButtonInput? { nil }
    open var auxiliaryButtons: [GCControllerButtonInput]? { nil }
}

extension NSNotification.Name {
    /// Posted with a `GCMouse` when a mouse connects: never here (above).
    public static let GCMouseDidConnect = NSNotification.Name("GCMouseDidConnectNotification")
    /// Posted with a `GCMouse` when a mouse disconnects: never here.
    public static let GCMouseDidDisconnect = NSNotification.Name("GCMouseDidDisconnectNotification")
    /// Posted with a `GCMouse` when it becomes `current`: never here.
    public static let GCMouseDidBecomeCurrent = NSNotification.Name("GCMouseDidBecomeCurrentNotification")
    /// Posted with a `GCMouse` when it stops being `current`: never here.
    public static let GCMouseDidStopBeingCurrent = NSNotification.Name("GCMouseDidStopBeingCurrentNotification")
}
