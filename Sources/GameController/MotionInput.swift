// Reads a pad's motion sensors for `GCMotion`: the evdev node hid-playstation and hid-sony give the
// DualSense's and DualShock 4's accelerometer and gyroscope (INPUT_PROP_ACCELEROMETER; ABS_X/Y/Z the
// acceleration, ABS_RX/RY/RZ the rotation rate about the same axes, each axis' resolution its units
// per g and per degree per second, calibrated by the driver). In the program's own process, on a
// thread of its own, as the gamepad's node is read (GamepadInput.swift).
import CEvdev
import Dispatch
import Foundation
import Glibc
import Synchronization

final class MotionInput: @unchecked Sendable {
    // @unchecked Sendable: `device` is used by the reading thread only once `start` has handed it
    // over; the file descriptors are set once and closed by the thread as it ends.
    private let fd: Int32
    private let device: OpaquePointer
    private let wake: (read: Int32, write: Int32)
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let scale: MotionScale

    /// The node's reader; nil when it cannot be opened or is not a motion sensor with both sensors'
    /// axes and resolutions.
    static func open(path: String) -> MotionInput? {
        guard let (fd, dev, wake) = EvdevNode.open(path) else { return nil }
        func resolution(_ code: Int32) -> Int32 {
            guard libevdev_has_event_code(dev, UInt32(EV_ABS), UInt32(code)) == 1, let a = libevdev_get_abs_info(dev, UInt32(code)) else { return 0 }
            return a.pointee.resolution
        }
        let accelerometer = libevdev_has_property(dev, UInt32(INPUT_PROP_ACCELEROMETER)) == 1
        guard accelerometer, let scale = MotionScale(acceleration: [ABS_X, ABS_Y, ABS_Z].map(resolution), rotation: [ABS_RX, ABS_RY, ABS_RZ].map(resolution)) else {
            EvdevNode.release(fd: fd, device: dev, wakeRead: wake.read)
            close(wake.write)
            return nil
        }
        return MotionInput(fd: fd, device: dev, wake: wake, scale: scale)
    }

    private init(fd: Int32, device: OpaquePointer, wake: (read: Int32, write: Int32), scale: MotionScale) {
        self.fd = fd
        self.device = device
        self.wake = wake
        self.scale = scale
    }

    /// Reads until `stop()`, the node goes away, or `motion` does; each report's values go to it.
    /// Once: later calls do nothing.
    func start(motion: GCMotion, queue: @escaping @Sendable () -> DispatchQueue) {
        guard !stopped.load(ordering: .acquiring), !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let weakMotion = WeakBox(motion)
        let thread = Thread { [self] in
            var frame = MotionFrame(scale: scale)
            for code in MotionFrame.codes {
                _ = frame.apply(type: EvdevCode.evAbs, code: code, value: libevdev_get_event_value(device, UInt32(EV_ABS), UInt32(code)))
            }
            EvdevNode.read(fd: fd, device: device, wake: wake.read, stopped: stopped) { ev in
                guard let report = frame.apply(type: ev.type, code: ev.code, value: ev.value) else { return true }
                guard let m = weakMotion.object else { return false }
                m.deliver(acceleration: report.acceleration, rotationRate: report.rotationRate, on: queue())
                return true
            }
            EvdevNode.release(fd: fd, device: device, wakeRead: wake.read)
        }
        thread.name = "GameController motion"
        thread.start()
    }

    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        EvdevNode.wake(wake.write)
    }

    deinit {
        stop()
        // Never started: the thread that would have closed them never ran.
        if !started.load(ordering: .acquiring) { EvdevNode.release(fd: fd, device: device, wakeRead: wake.read) }
    }
}

/// Units per g of each accelerometer axis and per degree per second of each gyroscope axis (the
/// nodes' resolutions; hid-playstation and hid-sony: 8192 and 1024).
struct MotionScale: Equatable {
    var acceleration: [Int32]
    var rotation: [Int32]

    /// nil unless all six resolutions are positive.
    init?(acceleration: [Int32], rotation: [Int32]) {
        guard acceleration.count == 3, rotation.count == 3, (acceleration + rotation).allSatisfy({ $0 > 0 }) else { return nil }
        self.acceleration = acceleration
        self.rotation = rotation
    }
}

/// A motion node's events gathered into reports (pure: tests feed it events).
struct MotionFrame {
    let scale: MotionScale
    private var raw: [Int32] = Array(repeating: 0, count: 6)
    private var changed = false

    init(scale: MotionScale) { self.scale = scale }

    /// The axes, in the order of `raw`: the acceleration's x, y, z, then the rotation's.
    static let codes = [EvdevCode.absX, EvdevCode.absY, EvdevCode.absZ, EvdevCode.absRX, EvdevCode.absRY, EvdevCode.absRZ]

    /// One event; at a SYN_REPORT after a change, the report: acceleration in g, rotation rate in
    /// radians per second, about the node's axes.
    mutating func apply(type: UInt16, code: UInt16, value: Int32) -> (acceleration: GCAcceleration, rotationRate: GCRotationRate)? {
        typealias C = EvdevCode
        if type == C.evAbs {
            if let index = Self.codes.firstIndex(of: code), raw[index] != value {
                raw[index] = value
                changed = true
            }
            return nil
        }
        guard type == C.evSyn, code == C.synReport, changed else { return nil }
        changed = false
        return report
    }

    var report: (acceleration: GCAcceleration, rotationRate: GCRotationRate) {
        func g(_ i: Int) -> Double { Double(raw[i]) / Double(scale.acceleration[i]) }
        func radians(_ i: Int) -> Double { Double(raw[3 + i]) / Double(scale.rotation[i]) * .pi / 180 }
        return (GCAcceleration(x: g(0), y: g(1), z: g(2)), GCRotationRate(x: radians(0), y: radians(1), z: radians(2)))
    }
}
