// Apple's `GCDeviceLight` and `GCColor`, so that code setting a controller's light compiles.
// `GCController.light` is nil for every pad: the DualShock 4's and DualSense's light bars are LED
// class devices (hid-sony, hid-playstation) that only root may write, and hapticd does not drive them.
import Foundation
import Synchronization

/// Apple's `GCColor`: a light's colour, each component 0…1.
open class GCColor: NSObject, @unchecked Sendable {
    // @unchecked Sendable: immutable.
    public let red: Float
    public let green: Float
    public let blue: Float
    public init(red: Float, green: Float, blue: Float) {
        self.red = red
        self.green = green
        self.blue = blue
        super.init()
    }
}

/// Apple's `GCDeviceLight` (a controller's light bar). `GCController.light` is nil here; the type is
/// there so that code setting a light compiles and takes its no-light path.
open class GCDeviceLight: NSObject, @unchecked Sendable {
    // @unchecked Sendable: the colour is behind `current`.
    private let current = Mutex(GCColor(red: 0, green: 0, blue: 0))
    open var color: GCColor {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
