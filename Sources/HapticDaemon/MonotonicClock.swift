import Dispatch
import HapticCore

/// A monotonic clock in seconds (CLOCK_MONOTONIC through Dispatch's uptime clock).
public final class MonotonicClock: HapticClock, @unchecked Sendable {
    // @unchecked Sendable: no stored state; reading the system clock is thread-safe.
    public init() {}
    public var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
    /// Seconds as nanoseconds, saturating: negative and NaN give 0, anything past the representable
    /// range gives `UInt64.max / 2` (centuries away; far from overflowing any addition a caller makes).
    public static func nanoseconds(_ seconds: Double) -> UInt64 {
        min(UInt64(saturating: seconds * 1e9), UInt64.max / 2)
    }
}
