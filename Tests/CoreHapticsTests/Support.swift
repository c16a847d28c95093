import CoreHaptics
import DaemonTestSupport
import Foundation
import HapticClient
import HapticCore
import Synchronization
import Testing

/// Every suite of this target runs inside this one, one test at a time: they share a socket path.
@Suite(.serialized) struct CoreHapticsSuite {}

/// Every test of this target talks to a daemon at one socket path, as a program would (it reads
/// `$HAPTICD_SOCKET`); each test starts its own daemon there, so the tests run one at a time.
enum Fixture {
    static let socket: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-corehaptics-\(getpid()).sock").path
        setenv("HAPTICD_SOCKET", path, 1)
        return path
    }()

    /// A daemon with one simulated pad (its hot-plug driven by `simulate`), where this process's
    /// Core Haptics looks for it.
    static func daemon(_ config: String = "", patternDirectories: [String]? = nil) throws -> DaemonProcess {
        try DaemonProcess(
            ["--simulate", "1"], config: config, patternDirectories: patternDirectories ?? [repositoryRoot + "/config/patterns"],
            socket: socket, control: true)
    }

    /// The pad's minimum update interval (seconds), as the daemon reports it.
    static func padInterval(_ daemon: DaemonProcess) throws -> Double {
        let c = try daemon.client()
        return number(try c.request("capabilities"), "minimum_update_interval") ?? 0.01
    }
}

/// What the handlers saw, and a bounded wait for it.
final class Recorder<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    private let semaphore = DispatchSemaphore(value: 0)

    func record(_ item: T) {
        items.withLock { $0.append(item) }
        semaphore.signal()
    }

    var all: [T] { items.withLock { $0 } }

    /// Waits until `count` items were recorded, at most `timeout` seconds; whether they were.
    func wait(for count: Int = 1, timeout: Double = 5) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while all.count < count {
            if semaphore.wait(timeout: deadline) == .timedOut { return all.count >= count }
        }
        return true
    }
}

/// Times (trace clock) at which a motor went from still to moving, in a window.
func onsets(_ rows: [(Double, Int, Int, Int)], from: Double, to: Double) -> [Double] {
    var result: [Double] = []
    var moving = false
    for (t, _, s, w) in rows {
        let now = s > 0 || w > 0
        if now && !moving && t >= from && t <= to { result.append(t) }
        moving = now
    }
    return result
}

func transient(_ time: TimeInterval, intensity: Float = 1, sharpness: Float = 0.5) -> CHHapticEvent {
    CHHapticEvent(
        eventType: .hapticTransient,
        parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity), CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness)],
        relativeTime: time)
}

func continuous(_ time: TimeInterval, _ duration: TimeInterval, intensity: Float = 1, sharpness: Float = 0) -> CHHapticEvent {
    CHHapticEvent(
        eventType: .hapticContinuous,
        parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity), CHHapticEventParameter(parameterID: .hapticSharpness, value: sharpness)],
        relativeTime: time, duration: duration)
}
