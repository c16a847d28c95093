// Apple's `GCMotion` and its value types, so that code reading a controller's motion compiles.
// `GCController.motion` is nil for every pad hapticd lists: their motion sensors (the DualSense's
// and DualShock 4's, which hid-playstation and hid-sony give an evdev node of their own) are not
// read. Apple's `motion` is nil for a controller without motion sensors, and code written for it
// checks: a game sees a controller without motion, as on a pad that has none.
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

/// A controller's motion: Apple's `GCMotion`. Made only by code (`GCController.motion` is nil here);
/// its values are what was set.
open class GCMotion: NSObject, @unchecked Sendable {
    // @unchecked Sendable: every value is behind `state`.
    private struct State {
        var handler: Unchecked<GCMotionValueChangedHandler?> = Unchecked(nil)
        var sensorsActive = false
        var gravity = GCAcceleration(), userAcceleration = GCAcceleration(), acceleration = GCAcceleration()
        var attitude = GCQuaternion(), rotationRate = GCRotationRate()
        var hasGravityAndUserAcceleration = false, hasAttitude = false, hasRotationRate = false
    }
    private let state = Mutex(State())
    weak var owner: GCController?

    public override init() { super.init() }

    open var controller: GCController? { owner }
    open var valueChangedHandler: GCMotionValueChangedHandler? {
        get { state.withLock { $0.handler.value } }
        set { let h = Unchecked(newValue); state.withLock { $0.handler = h } }
    }
    open var sensorsRequireManualActivation: Bool { false }
    open var sensorsActive: Bool {
        get { state.withLock { $0.sensorsActive } }
        set { state.withLock { $0.sensorsActive = newValue } }
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
