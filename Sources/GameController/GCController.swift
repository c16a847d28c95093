// The part of Apple's GameController framework that haptics code touches, on Linux, over hapticd:
// controllers (hapticd's pads), their haptics (`GCDeviceHaptics`) and the connect/disconnect
// notifications (docs/clients.md, "Swift").
@_exported import CoreHaptics
import Dispatch
internal import HapticCore
import Synchronization

/// Where on a controller haptics play: Apple's `GCHapticsLocality`, with the raw values Apple's
/// framework uses. hapticd's pads have `default`, `all`, `handles`, `leftHandle` (the strong,
/// low-frequency motor), `rightHandle` (the weak, high-frequency one), and the trigger localities
/// where the pad's hapticd backend reaches its trigger motors (`supportedLocalities` says which).
public struct GCHapticsLocality: Hashable, Equatable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let `default` = GCHapticsLocality(rawValue: "Default")
    public static let all = GCHapticsLocality(rawValue: "All")
    public static let handles = GCHapticsLocality(rawValue: "Handles")
    public static let leftHandle = GCHapticsLocality(rawValue: "Left Handle")
    public static let rightHandle = GCHapticsLocality(rawValue: "Right Handle")
    public static let triggers = GCHapticsLocality(rawValue: "Triggers")
    public static let leftTrigger = GCHapticsLocality(rawValue: "Left Trigger")
    public static let rightTrigger = GCHapticsLocality(rawValue: "Right Trigger")

    static let known: [GCHapticsLocality] = [.default, .all, .handles, .leftHandle, .rightHandle, .triggers, .leftTrigger, .rightTrigger]

    /// hapticd's name for the locality (`leftHandle`, …).
    var daemonName: String? {
        switch self {
        case .default: "default"
        case .all: "all"
        case .handles: "handles"
        case .leftHandle: "leftHandle"
        case .rightHandle: "rightHandle"
        case .triggers: "triggers"
        case .leftTrigger: "leftTrigger"
        case .rightTrigger: "rightTrigger"
        default: nil
        }
    }

    init?(daemonName: String) {
        guard let l = Self.known.first(where: { $0.daemonName == daemonName }) else { return nil }
        self = l
    }
}

/// A duration that lasts until stopped (`CHHapticEvent` durations, on Apple's controllers): a
/// continuous event this long reaches the time horizon, and one that does sounds until stopped
/// instead of being clamped to Apple's 30 s (docs/rendering.md §1).
public let GCHapticDurationInfinite: Float = 1_000_000

/// Apple's product categories (`GCDevice.productCategory`) for the pads hapticd knows.
public let GCProductCategoryDualSense = "DualSense"
public let GCProductCategoryDualShock4 = "DualShock 4"
public let GCProductCategoryXboxOne = "Xbox One"
public let GCProductCategoryMFi = "MFi"
public let GCProductCategoryHID = "HID"
/// Apple's other product categories: no pad of hapticd's is one of these (code compares against them).
public let GCProductCategorySiriRemote1stGen = "Siri Remote (1st Generation)"
public let GCProductCategorySiriRemote2ndGen = "Siri Remote (2nd Generation)"
public let GCProductCategoryControlCenterRemote = "Control Center Remote"
public let GCProductCategoryUniversalElectronicsRemote = "Universal Electronics Remote"
public let GCProductCategoryCoalescedRemote = "Coalesced Remote"
public let GCProductCategoryArcadeStick = "Arcade Stick"

/// A player's number on a controller's lights.
public enum GCControllerPlayerIndex: Int, Sendable {
    case indexUnset = -1
    case index1 = 0
    case index2 = 1
    case index3 = 2
    case index4 = 3
}

/// What every game-controller device has: Apple's `GCDevice`.
public protocol GCDevice: NSObjectProtocol {
    var handlerQueue: DispatchQueue { get set }
    var vendorName: String? { get }
    var productCategory: String { get }
    var physicalInputProfile: GCPhysicalInputProfile { get }
}

/// A gamepad hapticd drives: Apple's `GCController`.
///
/// `controllers()` lists hapticd's connected pads; each controller stays the same object while its
/// pad stays connected (so it can key a dictionary, as Apple's samples do). When a pad connects or
/// disconnects, `GCControllerDidConnect` / `GCControllerDidDisconnect` are posted on
/// `NotificationCenter.default` with the controller as the object — on the main queue, as Apple posts
/// them, so they go out when the program's main queue runs (its run loop, `dispatchMain()`). The
/// first use of any of this module's API (reading `.GCControllerDidConnect` to observe it included)
/// starts following hapticd, and then posts `GCControllerDidConnect` for every pad already there.
open class GCController: NSObject, GCDevice, @unchecked Sendable {
    // @unchecked Sendable: `pad` and `info` are set once; `playerIndex` and `handlerQueue` are behind `local`.

    /// hapticd's number for the pad (-1 for a snapshot made by code).
    package let pad: Int
    let info: JSONObject
    private let local = Mutex<(playerIndex: GCControllerPlayerIndex, queue: DispatchQueue, paused: Unchecked<((GCController) -> Void)?>)>(
        (.indexUnset, .main, Unchecked(nil)))

    init(pad: Int, info: JSONObject, snapshot: GCExtendedGamepad? = nil) {
        self.pad = pad
        self.info = info
        padHaptics = snapshot == nil ? GCDeviceHaptics(pad: pad) : nil
        reading = Mutex((snapshot, []))
        isBare = false
        bareProfile = nil
        super.init()
        snapshot?.owner = self
    }

    /// A controller of no device and no profile (NSObject's `init()`, which Apple's class inherits):
    /// no extended gamepad, no gamepad, no haptics, no battery, no name; an empty
    /// `physicalInputProfile`. Code makes one as a placeholder until a pad connects.
    public override init() {
        pad = -1
        info = JSONObject()
        padHaptics = nil
        reading = Mutex((nil, []))
        isBare = true
        bareProfile = GCPhysicalInputProfile(values: InputValues(GamepadState(layout: GamepadLayout(.unknown)).committed), elements: [:])
        super.init()
        bareProfile?.owner = self
    }

    /// Made by `init()`: no profile at all.
    private let isBare: Bool

    /// The controller used most recently: here, the one connected most recently that still is.
    open class var current: GCController? {
        ControllerMonitor.shared.start()
        return ControllerMonitor.shared.current
    }

    /// Every connected controller (none when hapticd does not answer).
    open class func controllers() -> [GCController] {
        ControllerMonitor.shared.start()
        return ControllerMonitor.shared.controllers
    }

    /// hapticd finds pads by itself (hot-plug): this only starts following it. The handler runs at once.
    open class func startWirelessControllerDiscovery(completionHandler: (() -> Void)? = nil) {
        ControllerMonitor.shared.start()
        completionHandler?()
    }

    open class func stopWirelessControllerDiscovery() {}

    open var playerIndex: GCControllerPlayerIndex {
        get { local.withLock { $0.playerIndex } }
        set { local.withLock { $0.playerIndex = newValue } }
    }

    /// The queue the input profile's handlers run on (the main queue unless set), as Apple's.
    open var handlerQueue: DispatchQueue {
        get { local.withLock { $0.queue } }
        set { local.withLock { $0.queue = newValue } }
    }

    /// The pad's name as its driver gives it ("DualSense Wireless Controller").
    open var vendorName: String? {
        if case .string(let s)? = info["name"] { return s }
        return nil
    }

    /// Apple's category for the pad (`GCProductCategoryDualSense`, …; `HID` for others).
    open var productCategory: String {
        guard case .string(let profile)? = info["profile"] else { return GCProductCategoryHID }
        if profile.hasPrefix("dualsense") { return GCProductCategoryDualSense }
        if profile.hasPrefix("dualshock4") { return GCProductCategoryDualShock4 }
        if profile.hasPrefix("xbox") { return GCProductCategoryXboxOne }
        if profile.hasPrefix("switch-pro") { return "Switch Pro Controller" }
        if profile.hasPrefix("joycon-left") { return "Nintendo Switch Joy-Con (L)" }
        if profile.hasPrefix("joycon-right") { return "Nintendo Switch Joy-Con (R)" }
        return GCProductCategoryHID
    }

    private let padHaptics: GCDeviceHaptics?

    /// The pad's haptics: every pad hapticd has can rumble (a snapshot has none).
    open var haptics: GCDeviceHaptics? { padHaptics }

    private let batteryFound = Mutex<GCDeviceBattery?>(nil)

    /// The pad's battery as its driver reports it (GCDeviceBattery.swift), read at each look; nil for
    /// a pad whose driver reports none (a wired Xbox pad, the simulated pad) and for a snapshot.
    open var battery: GCDeviceBattery? {
        guard !isSnapshot, info["simulated"] != .bool(true), case .string(let path)? = info["path"],
              let directory = PowerSupply.directory(eventNode: path) else { return nil }
        return batteryFound.withLock { found in
            if let found, found.directory == directory { return found }
            let battery = GCDeviceBattery(directory: directory)
            found = battery
            return battery
        }
    }

    /// The pad's light (the DualShock 4's and DualSense's light bar): nil, as for a controller without
    /// one — hid-playstation and hid-sony expose it as an LED class device only root may write.
    open var light: GCDeviceLight? { nil }

    /// The pad's motion sensors (the DualSense's and DualShock 4's, read from their own evdev node
    /// from the first look on: GCMotion.swift); nil for other pads, where the node cannot be read, and
    /// for a snapshot.
    open var motion: GCMotion? {
        guard !isSnapshot, info["simulated"] != .bool(true), case .string(let path)? = info["path"],
              [GCProductCategoryDualSense, GCProductCategoryDualShock4].contains(productCategory) else { return nil }
        let now = HapticService.now()
        return motionFound.withLock { found in
            if let found = found.value { return found }
            // The sensors' node comes a moment after the pad's (and its permissions after it): a
            // look that found none is made again, at most once a second.
            if let tried = found.tried, now - tried < 1 { return nil }
            found.tried = now
            guard let node = GamepadInput.motionNode(besides: path), let sensors = MotionInput.open(path: node) else { return nil }
            let m = GCMotion(sensors: sensors, owner: self)
            found.value = m
            return m
        }
    }

    /// The motion made at a look, or when the last look found none.
    private let motionFound = Mutex<(value: GCMotion?, tried: TimeInterval?)>((nil, nil))

    /// Deprecated by Apple in favour of `extendedGamepad`: the same elements, as the smaller profile
    /// every extended gamepad also has.
    open var gamepad: GCGamepad? { isBare ? nil : inputProfile.gamepadProfile }

    /// Deprecated by Apple in favour of `buttonMenu`'s handlers: called on `handlerQueue` when the
    /// menu button goes down, after the profile's handlers.
    open var controllerPausedHandler: ((GCController) -> Void)? {
        get { local.withLock { $0.paused.value } }
        set { let h = Unchecked(newValue); local.withLock { $0.paused = h } }
    }

    private static let monitorBackground = Mutex(false)

    /// Kept as set: input is read from the pad's node whether or not the program is in front (a
    /// Linux program has no foreground state that GameController could follow).
    open class var shouldMonitorBackgroundEvents: Bool {
        get { monitorBackground.withLock { $0 } }
        set { monitorBackground.withLock { $0 = newValue } }
    }

    /// A controller whose extended gamepad is this one's as it is now, apart from the pad: its
    /// values stay, `setValue` changes them; no haptics, no battery (Apple's `capture()`).
    open func capture() -> GCController {
        isBare ? GCController() : GCController(pad: pad, info: info, snapshot: inputProfile.capture())
    }

    /// A controller made by code, with an extended gamepad at rest that only `setValue` moves (Apple's
    /// `GCController(extendedGamepad:)`-era `controllerWithExtendedGamepad`), for tests and replays.
    open class func withExtendedGamepad() -> GCController {
        let layout = GamepadLayout(.unknown)
        return GCController(pad: -1, info: JSONObject(), snapshot: GCExtendedGamepad(layout: layout, values: InputValues(GamepadState(layout: layout).committed)))
    }

    /// The pad's input profile: its buttons, d-pad, thumbsticks and triggers, read from the pad's
    /// own evdev node in this process (`GamepadInput`) from the first look on, the handlers run on
    /// `handlerQueue`. Every pad has it; a pad whose node this program may not read (or the
    /// simulated pad) has one that never changes.
    open var extendedGamepad: GCExtendedGamepad? { isBare ? nil : inputProfile }

    /// Apple's iOS 17 input (GCControllerInput.swift): the same elements as `extendedGamepad`, as
    /// `buttons`, `dpads`…, with their own handlers and a queue of input states; made at the first
    /// look (which starts reading the pad, as `extendedGamepad` does). A controller made with
    /// `init()` has one with no elements.
    open var input: GCControllerLiveInput {
        liveInput.withLock { live in
            if let live { return live }
            let made = GCControllerLiveInput(profile: isBare ? nil : inputProfile, owner: self)
            live = made
            return made
        }
    }

    private let liveInput = Mutex<GCControllerLiveInput?>(nil)

    /// The Siri Remote's profile: no pad of hapticd's has it.
    open var microGamepad: GCMicroGamepad? { nil }

    /// The elements by name: the extended gamepad's.
    open var physicalInputProfile: GCPhysicalInputProfile { bareProfile ?? inputProfile }

    /// A bare controller's profile: no elements.
    private let bareProfile: GCPhysicalInputProfile?

    private let reading: Mutex<(profile: GCExtendedGamepad?, readers: [GamepadInput])>

    /// The profile class Apple gives the pad.
    private var profileClass: GCExtendedGamepad.Type {
        switch productCategory {
        case GCProductCategoryDualSense: GCDualSenseGamepad.self
        case GCProductCategoryDualShock4: GCDualShockGamepad.self
        case GCProductCategoryXboxOne: GCXboxGamepad.self
        default: GCExtendedGamepad.self
        }
    }

    private var inputProfile: GCExtendedGamepad {
        reading.withLock { s in
            if let p = s.profile { return p }
            var reader: GamepadInput?, touchpad: GamepadInput?
            let path: String? = if info["simulated"] != .bool(true), case .string(let p)? = info["path"] { p } else { nil }
            if let path { reader = GamepadInput.open(path: path) }
            var start: (layout: GamepadLayout, values: GamepadState.Values)
            if let reader {
                start = reader.initial
            } else {
                let layout = GamepadLayout(.unknown)
                start = (layout, GamepadState(layout: layout).committed)
            }
            let profileClass = profileClass
            // The touchpad of a DualShock 4 or DualSense: its own node, its own reader, the same profile.
            if profileClass.extraElements.contains(.touchpadButton), let path, let node = GamepadInput.touchpadNode(besides: path) {
                touchpad = GamepadInput.open(path: node, touchpad: true)
                if let initial = touchpad?.initial.values {
                    for e in GamepadElement.allCases where !GamepadElement.extended.contains(e) {
                        start.values.buttons[e.rawValue] = initial.buttons[e.rawValue]
                        start.values.x[e.rawValue] = initial.x[e.rawValue]
                        start.values.y[e.rawValue] = initial.y[e.rawValue]
                    }
                }
            }
            let p = profileClass.make(layout: start.layout, values: InputValues(start.values))
            p.owner = self
            let readers = [reader, touchpad].compactMap { $0 }
            s = (p, readers)
            for r in readers { r.start(profile: p, queue: { [weak self] in self?.handlerQueue ?? .main }) }
            return p
        }
    }

    deinit { for r in reading.withLock({ $0.readers }) { r.stop() } }

    /// Always false: these are pads, not part of a device.
    open var isAttachedToDevice: Bool { false }
    /// Whether this is a copy made by `capture()` or by code, not a pad.
    open var isSnapshot: Bool { padHaptics == nil }

    open override var description: String { "<GCController pad \(pad) \(vendorName ?? "")>" }
}

/// A controller's haptics: Apple's `GCDeviceHaptics`.
open class GCDeviceHaptics: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let pad: Int

    init(pad: Int) {
        self.pad = pad
        super.init()
    }

    /// The localities the pad has (hapticd's `capabilities`); `default` and `all` always.
    open var supportedLocalities: Set<GCHapticsLocality> {
        var set: Set<GCHapticsLocality> = [.default, .all]
        if let r = try? HapticService.shared.request("capabilities", JSONObject(["device": .number(Double(pad))])),
           case .array(let list)? = r["localities"] {
            for case .string(let name) in list { if let l = GCHapticsLocality(daemonName: name) { set.insert(l) } }
        }
        return set
    }

    /// An engine for this pad and locality; nil when the locality is not supported or hapticd does
    /// not answer.
    open func createEngine(withLocality locality: GCHapticsLocality) -> CHHapticEngine? {
        guard let name = locality.daemonName, supportedLocalities.contains(locality) else { return nil }
        return try? CHHapticEngine(device: pad, locality: name)
    }
}

extension NSNotification.Name {
    /// Posted with a `GCController` when a pad connects (and, once this module starts following
    /// hapticd, for every pad already connected).
    public static var GCControllerDidConnect: NSNotification.Name {
        ControllerMonitor.shared.start()
        return NSNotification.Name("GCControllerDidConnectNotification")
    }

    /// Posted with a `GCController` when its pad disconnects (or hapticd went away).
    public static var GCControllerDidDisconnect: NSNotification.Name {
        ControllerMonitor.shared.start()
        return NSNotification.Name("GCControllerDidDisconnectNotification")
    }

    public static var GCControllerDidBecomeCurrent: NSNotification.Name {
        ControllerMonitor.shared.start()
        return NSNotification.Name("GCControllerDidBecomeCurrentNotification")
    }

    public static var GCControllerDidStopBeingCurrent: NSNotification.Name {
        ControllerMonitor.shared.start()
        return NSNotification.Name("GCControllerDidStopBeingCurrentNotification")
    }
}

/// Follows hapticd's pads and posts the notifications (on the main queue, in the order hapticd
/// reported); `queue` is where it asks hapticd again after the connection came back.
final class ControllerMonitor: Sendable {
    static let shared = ControllerMonitor()

    private struct State {
        var started = false
        /// The controllers are hapticd's pads as they are now (false while hapticd is away).
        var synced = false
        var controllers: [Int: GCController] = [:]
        /// Connection order, most recent last: `current` is the last.
        var order: [Int] = []
        /// Device events applied so far: a `devices` answer older than one of them is stale.
        var applied = 0
        var current: GCController? { order.last.flatMap { controllers[$0] } }
    }

    private let state = Mutex(State())
    let queue = DispatchQueue(label: "hapticd.GameController")

    var controllers: [GCController] {
        syncIfStale()
        return state.withLock { s in s.controllers.keys.sorted().compactMap { s.controllers[$0] } }
    }

    var current: GCController? {
        syncIfStale()
        return state.withLock { $0.current }
    }

    /// While hapticd is away, each look tries to reach it (a connection attempt is one system call).
    private func syncIfStale() {
        if !state.withLock({ $0.synced }) { resync() }
    }

    /// Starts following hapticd (once): the pads there now become controllers at once; each is
    /// announced on the main queue.
    func start() {
        let first = state.withLock { s -> Bool in
            defer { s.started = true }
            return !s.started
        }
        guard first else { return }
        _ = HapticService.shared.addDeviceListener { [weak self] name, event in
            guard let self else { return }
            switch name {
            case "device.added", "device.removed":
                // At once, on the client's reader thread: hapticd announces a returning pad before
                // its engines' reset, so an engine's reset handler finds the controller listed.
                apply(name, event)
            default:
                queue.async { self.handle(name) }  // resync asks hapticd: not on the reader thread
            }
        }
        resync()
    }

    /// Makes the controllers match hapticd's pads now, announcing the differences.
    private func resync() {
        // A device event applied between the request and its answer is newer than the answer: the
        // answer is asked again (a few times at most; then taken, and looked at again next time).
        for attempt in 1...3 {
            if !resync(last: attempt == 3) { break }
        }
    }

    /// One try: whether to try again.
    private func resync(last: Bool) -> Bool {
        let seen = state.withLock { $0.applied }
        var pads: [Int: JSONObject] = [:]
        let answer = try? HapticService.shared.request("devices", JSONObject())
        if case .array(let list)? = answer?["devices"] {
            for case .object(let o) in list where o["connected"] == .bool(true) {
                if case .number(let d)? = o["device"] { pads[Int(saturating: d)] = o }
            }
        }
        return state.withLock { s in
            let overtaken = s.applied != seen
            if overtaken && !last { return true }
            let before = s.current
            s.synced = answer != nil && !overtaken
            var added: [GCController] = [], removed: [GCController] = []
            for (pad, c) in s.controllers where pads[pad] == nil {
                removed.append(c)
                s.controllers[pad] = nil
                s.order.removeAll { $0 == pad }
            }
            for (pad, info) in pads.sorted(by: { $0.key < $1.key }) where s.controllers[pad] == nil {
                let c = GCController(pad: pad, info: info)
                s.controllers[pad] = c
                s.order.append(pad)
                added.append(c)
            }
            post(connected: added, disconnected: removed, current: (before, s.current))
            return false
        }
    }

    /// Queues the notifications for a change. Called under `state`'s lock, so that they are queued in
    /// the order the changes were made, whichever thread made them.
    private func post(connected: [GCController], disconnected: [GCController], current: (GCController?, GCController?)) {
        guard !connected.isEmpty || !disconnected.isEmpty || current.0 !== current.1 else { return }
        let change = Unchecked((connected, disconnected, current))
        // On the main queue, as Apple posts them ("on the main thread"): an observer registered on the
        // main thread right after the first use of this module — which starts following hapticd and
        // finds the pads already there — is registered before they are announced.
        // Through OperationQueue.main, not DispatchQueue.main.async: corelibs Foundation delivers to an
        // observer registered with `queue: .main` by adding an operation there and waiting for it, which
        // from a plain main-queue block under dispatchMain() waits forever; from an operation of that
        // queue it runs in place (under a run loop and under dispatchMain() alike).
        OperationQueue.main.addOperation { Self.announce(connected: change.value.0, disconnected: change.value.1, current: change.value.2) }
    }

    /// Posts what changed, as Apple's framework does: a controller that goes stops being current
    /// before it disconnects; one that connects connects before it becomes current; and when the
    /// current controller changes, the old one stops being current before the new one becomes it.
    private static func announce(connected: [GCController], disconnected: [GCController], current: (before: GCController?, after: GCController?)) {
        let center = NotificationCenter.default
        let changed = current.before !== current.after
        for c in disconnected {
            if changed && c === current.before { center.post(name: .GCControllerDidStopBeingCurrent, object: c) }
            center.post(name: .GCControllerDidDisconnect, object: c)
        }
        for c in connected { center.post(name: .GCControllerDidConnect, object: c) }
        guard changed else { return }
        if let old = current.before, !disconnected.contains(where: { $0 === old }) {
            center.post(name: .GCControllerDidStopBeingCurrent, object: old)
        }
        if let new = current.after { center.post(name: .GCControllerDidBecomeCurrent, object: new) }
    }

    /// A pad came or went: the controllers change now, the notifications go out on the main queue.
    private func apply(_ name: String, _ event: JSONObject) {
        guard case .number(let d)? = event["device"] else { return }
        let pad = Int(saturating: d)
        state.withLock { s in
            s.applied &+= 1
            let before = s.current
            if name == "device.added" {
                guard s.controllers[pad] == nil else { return }
                let c = GCController(pad: pad, info: event)
                s.controllers[pad] = c
                s.order.append(pad)
                post(connected: [c], disconnected: [], current: (before, s.current))
            } else {
                s.order.removeAll { $0 == pad }
                guard let c = s.controllers.removeValue(forKey: pad) else { return }
                post(connected: [], disconnected: [c], current: (before, s.current))
            }
        }
    }

    private func handle(_ name: String) {
        switch name {
        case "connection.lost":
            state.withLock { $0.synced = false }
            resync()
        case "connection.restored":
            resync()
        default: break
        }
    }
}

