import Glibc
import HapticCore

/// A monotonic clock in seconds: CLOCK_MONOTONIC, the clock of the render loop's timerfd (and of
/// Dispatch's uptime, `DispatchTime.now().uptimeNanoseconds`, on Linux).
public final class MonotonicClock: HapticClock, @unchecked Sendable {
    // @unchecked Sendable: no stored state; reading the system clock is thread-safe.
    public init() {}
    public var now: Double { Double(Self.nowNanoseconds) / 1e9 }
    /// CLOCK_MONOTONIC in nanoseconds.
    public static var nowNanoseconds: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
    /// Seconds as nanoseconds, saturating: negative and NaN give 0, anything past the representable
    /// range gives `UInt64.max / 2` (centuries away; far from overflowing any addition a caller makes).
    public static func nanoseconds(_ seconds: Double) -> UInt64 {
        min(UInt64(saturating: seconds * 1e9), UInt64.max / 2)
    }
}
