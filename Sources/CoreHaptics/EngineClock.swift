/// The library's reading of hapticd's engine clock (`CHHapticEngine.currentTime`, the clock every
/// `atTime:` is on), kept from the replies that carry the daemon's time.
///
/// The daemon's clock and this process's `CLOCK_MONOTONIC` are the same machine's and do not drift,
/// so one offset is enough; each reply gives an estimate good to half its round trip, and the one
/// measured over the shortest round trip is kept. A better estimate can move the offset back by up to
/// half the previous round trip (a first request answered while socket activation was still
/// starting hapticd can be hundreds of milliseconds), and Apple's `currentTime` never runs backwards
/// nor stops: after such a correction the clock runs at half speed until it has caught up with the
/// better estimate (twice the correction's length), then with it.
struct EngineClock: Sendable {
    /// Daemon engine clock minus this process's monotonic clock, and the round trip it came from.
    private(set) var offset = 0.0
    private(set) var roundTrip = Double.infinity
    /// The latest reading given out, and the process time it was given at.
    private var lastReading = -Double.infinity
    private var lastNow = -Double.infinity

    /// Learns from a reply that carried the daemon's time `daemonTime`, for a request sent at `sent`
    /// and answered at `received` (both on this process's monotonic clock). Returns whether the
    /// estimate changed. Non-finite or inverted times are ignored.
    @discardableResult
    mutating func note(daemonTime: Double, sent: Double, received: Double) -> Bool {
        guard daemonTime.isFinite, sent.isFinite, received.isFinite, received >= sent else { return false }
        let trip = received - sent
        guard trip < roundTrip else { return false }
        roundTrip = trip
        offset = daemonTime - (sent + received) / 2
        return true
    }

    /// The engine clock at `now` (this process's monotonic clock): never earlier than a reading
    /// already given; while ahead of the estimate, advancing at half the rate of `now`.
    mutating func reading(now: Double) -> Double {
        let target = now + offset
        if target >= lastReading {
            lastReading = target
        } else {
            // A `now` older than the last one (a racing caller's) does not move it.
            lastReading += max(0, now - lastNow) / 2
        }
        lastNow = max(lastNow, now)
        return lastReading
    }
}
