import Foundation
import Synchronization

// Apple's on-screen controller (`GCVirtualController`, iOS 15): software thumbsticks and buttons the
// framework draws over a game on a touch screen, connected as a `GCController`.
//
// A program using this module on Linux has no overlay of the system's to draw them in (its window is
// its toolkit's: X11, Wayland, SDL), so a virtual controller cannot connect here: `connect()` fails
// with an error that says so (`GCVirtualController.connectionError`), the reply handler gets it, and
// `controller` stays nil — the path Apple's code takes when connecting fails. The types are Apple's,
// so a game that offers touch controls compiles and plays with the pads it finds instead
// (`GCController.controllers()`), as GCKeyboard.swift does for keyboards. docs/clients.md, "Swift".

/// A software controller drawn over the game (Apple's `GCVirtualController`): never connected here.
open class GCVirtualController: NSObject, @unchecked Sendable {
    // @unchecked Sendable: `state` holds everything that changes.

    /// What the virtual controller shows (Apple's `GCVirtualController.Configuration`).
    open class Configuration: NSObject, @unchecked Sendable {
        // @unchecked Sendable: each property is behind `state`.
        private let state = Mutex<(elements: Set<String>, hidden: Bool)>(([], false))
        public override init() { super.init() }

        /// The elements it shows, by their `GCInput…` names (`GCInputLeftThumbstick`, `GCInputButtonA`).
        open var elements: Set<String> {
            get { state.withLock { $0.elements } }
            set { state.withLock { $0.elements = newValue } }
        }

        /// Whether the app draws the controls itself and feeds their values (`setValue`, `setPosition`).
        open var isHidden: Bool {
            get { state.withLock { $0.hidden } }
            set { state.withLock { $0.hidden = newValue } }
        }
    }

    /// One element's look (Apple's `GCVirtualController.ElementConfiguration`; its `path` is a
    /// `UIBezierPath`, which has no Linux counterpart here).
    open class ElementConfiguration: NSObject, @unchecked Sendable {
        // @unchecked Sendable: each property is behind `state`.
        private let state = Mutex<(hidden: Bool, touchpad: Bool)>((false, false))
        public override init() { super.init() }

        open var isHidden: Bool {
            get { state.withLock { $0.hidden } }
            set { state.withLock { $0.hidden = newValue } }
        }

        /// Whether a thumbstick element acts as a touchpad.
        open var actsAsTouchpad: Bool {
            get { state.withLock { $0.touchpad } }
            set { state.withLock { $0.touchpad = newValue } }
        }
    }

    /// The error `connect` fails with: there is no system overlay to draw the controls in.
    public static let connectionError = NSError(
        domain: "org.hapticd.GameController", code: 1,
        userInfo: [NSLocalizedDescriptionKey: "GCVirtualController draws its controls over the game on a touch screen; "
            + "on Linux there is no such overlay, so a virtual controller cannot connect: use the pads in GCController.controllers()"])

    private let configuration: Configuration
    private let elementConfigurations = Mutex<[String: ElementConfiguration]>([:])

    public init(configuration: Configuration) {
        self.configuration = configuration
        super.init()
    }

    /// Apple's `+virtualControllerWithConfiguration:`.
    open class func virtualController(with configuration: Configuration) -> GCVirtualController {
        GCVirtualController(configuration: configuration)
    }

    /// The controller it connects as: nil, since it never connects here.
    open var controller: GCController? { nil }

    /// Fails with `connectionError`, through `reply` (on a global queue, never the caller's stack).
    open func connect(replyHandler reply: (@Sendable ((any Error)?) -> Void)? = nil) {
        guard let reply else { return }
        DispatchQueue.global().async { reply(Self.connectionError) }
    }

    /// Throws `connectionError`.
    open func connect() async throws {
        throw Self.connectionError
    }

    /// Nothing is connected: nothing to remove.
    open func disconnect() {}

    /// Keeps the element's configuration, as given back by `config` from the current one.
    open func updateConfiguration(forElement element: String, configuration config: (ElementConfiguration) -> ElementConfiguration) {
        let current = elementConfigurations.withLock { $0[element] } ?? ElementConfiguration()
        let updated = config(current)
        elementConfigurations.withLock { $0[element] = updated }
    }

    /// The same, by the name shipping code also calls it (Delta's emulator core, written against the
    /// iOS 15 SDK, with `GCVirtualControllerConfiguration` below).
    open func changeElement(_ element: String, configuration config: (ElementConfiguration) -> ElementConfiguration) {
        updateConfiguration(forElement: element, configuration: config)
    }

    /// A button's value from the app's own controls (`Configuration.isHidden`): nothing is connected
    /// to take it.
    open func setValue(_ value: CGFloat, forButtonElement element: String) {}

    /// A directional pad's position from the app's own controls: nothing is connected to take it.
    open func setPosition(_ position: CGPoint, forDirectionPadElement element: String) {}
}

/// The configurations' Objective-C names, which shipping Swift code also uses.
public typealias GCVirtualControllerConfiguration = GCVirtualController.Configuration
public typealias GCVirtualControllerElementConfiguration = GCVirtualController.ElementConfiguration
