// Apple's `GCMotion` and its value types. `GCController.motion` is the DualSense's and DualShock
// 4's accelerometer and gyroscope, read from the evdev node hid-playstation and hid-sony give them
// (MotionInput.swift) — as Apple's for those pads: the acceleration with gravity (no separate
// gravity and user acceleration), the rotation rate, no attitude, and the sensors off until
// `sensorsActive` is set. nil for other pads, and where the node cannot be read (systemd gives the
// logged-in user a pad's own node, not its motion sensors': the `input` group, or hapticd's udev
// rule for hidraw, which does not cover it either).
import Dispatch
import Foundation
import Synchronization

public struct GCAcceleration: Sendable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
}

public struct GCRotationRate: Sendable {
    public var x: Double
    public var y: Double
    public var z: Double
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Double, y: Double, z: Double) { self.x = x; self.y = y; self.z = z }
}

public struct GCQuaternion: Sendable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double
    /// Every field 0, as the C struct's zero initialiser Apple's Swift imports (the identity rotation
    /// is `GCQuaternion(x: 0, y: 0, z: 0, w: 1)`).
    public init() { x = 0; y = 0; z = 0; w = 0 }
    public init(x: Double, y: Double, z: Double, w: Double) { self.x = x; self.y = y; self.z = z; self.w = w }
}

public struct GCEulerAngles: Sendable {
    public var pitch: Double
    public var yaw: Double
    public var roll: Double
    public init() { pitch = 0; yaw = 0; roll = 0 }
    public init(pitch: Double, yaw: Double, roll: Double) { self.pitch = pitch; self.yaw = yaw; self.roll = roll }
}

public typealias GCMotionValueChangedHandler = (GCMotion) -> Void

/// A controller's motion: Apple's `GCMotion`. A pad's (`GCController.motion`) is read from its
/// sensors while `sensorsActive`; one made by code holds what was set.
open class GCMotion: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every value is behind `state`; `reader` is set once, and `owner` (weak)
    // only in `init`.
    private struct State {
        var handler: Unchecked<GCMotionValueChangedHandler?> = Unchecked(nil)
        var sensorsActive = false
        var gravity = GCAcceleration(), userAcceleration = GCAcceleration(), acceleration = GCAcceleration()
        var attitude = GCQuaternion(), rotationRate = GCRotationRate()
        var hasGravityAndUserAcceleration = false, hasAttitude = false, hasRotationRate = false
    }
    private let state = Mutex(State())
    weak var owner: GCController?
    /// A pad's sensors (nil: made by code).
    private let reader: MotionInput?
    /// Reports whose handler waits on the handler queue (bounded as the gamepad's).
    private let queued = Atomic<Int>(0)

    public override init() {
        reader = nil
        super.init()
    }

    /// A pad's motion, read from its sensors once they are first made active (stopped with the
    /// motion).
    init(sensors: MotionInput, owner: GCController) {
        reader = sensors
        self.owner = owner
        super.init()
        state.withLock { $0.hasRotationRate = true }
    }

    deinit { reader?.stop() }

    /// The pad reported: while the sensors are active the values change now and the handler runs
    /// on `queue` (at most `GCExtendedGamepad.maximumQueuedReports` waiting); while not, nothing.
    func deliver(acceleration: GCAcceleration, rotationRate: GCRotationRate, on queue: DispatchQueue) {
        let handler = state.withLock { s -> Unchecked<GCMotionValueChangedHandler?>? in
            guard s.sensorsActive else { return nil }
            s.acceleration = acceleration
            s.rotationRate = rotationRate
            return s.handler
        }
        guard let handler, handler.value != nil else { return }
        guard queued.add(1, ordering: .relaxed).newValue <= GCExtendedGamepad.maximumQueuedReports else {
            queued.subtract(1, ordering: .relaxed)
            return
        }
        let job = Unchecked({ [self] in
            defer { queued.subtract(1, ordering: .relaxed) }
            handler.value?(self)
        })
        queue.async { job.value() }
    }

    open var controller: GCController? { owner }
    open var valueChangedHandler: GCMotionValueChangedHandler? {
        get { state.withLock { $0.handler.value } }
        set { let h = Unchecked(newValue); state.withLock { $0.handler = h } }
    }
    /// A pad's sensors are off until `sensorsActive` is set, as Apple's DualSense's and DualShock 4's.
    open var sensorsRequireManualActivation: Bool { reader != nil }
    /// A pad's sensors are read from the first time this is set (the reader's thread then runs
    /// until the motion goes); while false, reports change nothing.
    open var sensorsActive: Bool {
        get { state.withLock { $0.sensorsActive } }
        set {
            state.withLock { $0.sensorsActive = newValue }
            if newValue, let reader { reader.start(motion: self) { [weak owner] in owner?.handlerQueue ?? .main } }
        }
    }
    open var hasGravityAndUserAcceleration: Bool { state.withLock { $0.hasGravityAndUserAcceleration } }
    open var hasAttitude: Bool { state.withLock { $0.hasAttitude } }
    /// Deprecated by Apple: `hasAttitude` and `hasRotationRate`.
    open var hasAttitudeAndRotationRate: Bool { state.withLock { $0.hasAttitude && $0.hasRotationRate } }
    open var hasRotationRate: Bool { state.withLock { $0.hasRotationRate } }
    open var gravity: GCAcceleration { state.withLock { $0.gravity } }
    open var userAcceleration: GCAcceleration { state.withLock { $0.userAcceleration } }
    /// The total acceleration: gravity and the user's.
    open var acceleration: GCAcceleration {
        state.withLock { s in
            s.hasGravityAndUserAcceleration
                ? GCAcceleration(x: s.gravity.x + s.userAcceleration.x, y: s.gravity.y + s.userAcceleration.y, z: s.gravity.z + s.userAcceleration.z)
                : s.acceleration
        }
    }
    open var attitude: GCQuaternion { state.withLock { $0.attitude } }
    open var rotationRate: GCRotationRate { state.withLock { $0.rotationRate } }

    open func setGravity(_ gravity: GCAcceleration) { state.withLock { $0.gravity = gravity; $0.hasGravityAndUserAcceleration = true } }
    open func setUserAcceleration(_ userAcceleration: GCAcceleration) {
        state.withLock { $0.userAcceleration = userAcceleration; $0.hasGravityAndUserAcceleration = true }
    }
    open func setAcceleration(_ acceleration: GCAcceleration) { state.withLock { $0.acceleration = acceleration; $0.hasGravityAndUserAcceleration = false } }
    open func setAttitude(_ attitude: GCQuaternion) { state.withLock { $0.attitude = attitude; $0.hasAttitude = true } }
    open func setRotationRate(_ rotationRate: GCRotationRate) { state.withLock { $0.rotationRate = rotationRate; $0.hasRotationRate = true } }
    /// Copies another motion's values (not its handler).
    open func setStateFrom(_ motion: GCMotion) {
        let other = motion.state.withLock { $0 }
        state.withLock { s in
            let handler = s.handler
            s = other
            s.handler = handler
        }
    }
}
