import Evdev
import HapticCore

/// Where a pad's paced output goes: a real evdev pad, a simulated one, or a test recorder.
/// Sinks are used only under the render loop's lock.
public protocol MotorSink: AnyObject {
    func apply(_ write: Pacer.Write) throws(DeviceError)
    /// Stops the motors and releases the device (erase the effect, close the node).
    func release()
    /// Readies the device so that the first write is as quick as the next (`prepare`); true when
    /// that did something (an effect uploaded).
    func prepare() throws(DeviceError) -> Bool
}

extension MotorSink {
    public func prepare() throws(DeviceError) -> Bool { false }
}

extension RumbleDevice: MotorSink {
    public func apply(_ write: Pacer.Write) throws(DeviceError) {
        switch write {
        case .set(let m): try set(m)
        case .refresh: try refresh()
        }
    }

    public func release() { close() }
}

/// A pad with no hardware behind it (`hapticd --simulate`): it keeps the last value so that clients
/// and the terminal view can show what a real pad would be doing.
public final class SimulatedPad: MotorSink {
    public let info: DeviceInfo
    public private(set) var current = MotorMagnitudes.zero
    public private(set) var writes = 0
    public private(set) var isClosed = false

    public init(index: Int) {
        info = DeviceInfo(
            path: "sim://pad\(index)", name: "Simulated rumble pad \(index)", bus: 0x06, vendor: 0, product: UInt16(index),
            version: 1, phys: "hapticd-simulated", uniq: "sim\(index)", effectSlots: 16, hasRumble: true, supportsGain: true)
    }

    public func apply(_ write: Pacer.Write) throws(DeviceError) {
        if isClosed { throw DeviceError(kind: .closed, operation: .upload, path: info.path) }
        switch write {
        case .set(let m): current = m
        case .refresh(let m): current = m
        }
        writes += 1
    }

    public func release() {
        current = .zero
        isClosed = true
    }
}
