/// The library's reading of hapticd's engine clock (`CHHapticEngine.currentTime`, the clock every
/// `atTime:` is on), kept from the replies that carry the daemon's time.
///
/// The daemon's clock and this process's `CLOCK_MONOTONIC` are the same machine's and do not drift,
/// so one offset is enough; each reply gives an estimate good to half its round trip, and the one
/// measured over the shortest round trip is kept. A better estimate can move the offset back by up to
/// half the previous round trip, and Apple's `currentTime` never runs backwards (a program that
/// schedules at `currentTime + x` must not find `x` shrunk): a reading is never earlier than one
/// given before it, so after such a correction the clock stands still until it has caught up.
struct EngineClock: Sendable {
    /// Daemon engine clock minus this process's monotonic clock, and the round trip it came from.
    private(set) var offset = 0.0
    private(set) var roundTrip = Double.infinity
    /// The latest reading given out.
    private var lastReading = -Double.infinity

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
    /// already given.
    mutating func reading(now: Double) -> Double {
        let t = now + offset
        if t > lastReading { lastReading = t }
        return lastReading
    }
}
