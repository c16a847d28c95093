/// A source of the current time in seconds on a monotonic clock. The core never reads a clock of its
/// own: engines are given one, so that tests drive time by hand.
public protocol HapticClock: AnyObject {
    var now: Double { get }
}

/// A clock that moves only when told to: for deterministic tests and offline rendering.
public final class ManualClock: HapticClock {
    public var now: Double
    public init(_ now: Double = 0) { self.now = now }
    public func advance(by seconds: Double) { now += seconds }
}

/// When a command takes effect: at once, or at a time on the engine's clock (`currentTime`).
/// "Immediately" is its own value, not a time (Core Haptics' `CHHapticTimeImmediate`).
public enum HapticTime: Equatable, Sendable, CustomStringConvertible {
    case immediately
    case at(Double)

    public func resolved(now: Double) -> Double {
        switch self {
        case .immediately: now
        case .at(let t): t
        }
    }

    public var description: String {
        switch self {
        case .immediately: "immediately"
        case .at(let t): "at \(t)"
        }
    }
}
