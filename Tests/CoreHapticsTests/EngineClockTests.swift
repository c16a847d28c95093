@testable import CoreHaptics
import Testing

/// `CHHapticEngine.currentTime` through the library's estimate of hapticd's clock: it improves with
/// shorter round trips, and never runs backwards when it does.
@Suite struct EngineClockTests {
    private func noted(_ clock: inout EngineClock, daemonTime: Double, sent: Double, received: Double) -> Bool {
        clock.note(daemonTime: daemonTime, sent: sent, received: received)
    }

    @Test func theEstimateOfTheShortestRoundTripIsKept() {
        var clock = EngineClock()
        // Daemon time 100.010 seen over a 10 ms round trip (sent 0.000, received 0.010): offset 100.005.
        #expect(noted(&clock, daemonTime: 100.010, sent: 0.000, received: 0.010))
        #expect(abs(clock.offset - 100.005) < 1e-9)
        // A longer round trip teaches nothing.
        #expect(!noted(&clock, daemonTime: 200.0, sent: 1.0, received: 1.5))
        #expect(abs(clock.offset - 100.005) < 1e-9)
        // A shorter one replaces it.
        #expect(noted(&clock, daemonTime: 101.0005, sent: 1.0, received: 1.001))
        #expect(abs(clock.offset - 100.0) < 1e-9)
        // Nonsense is ignored: not finite, or answered before it was sent.
        #expect(!noted(&clock, daemonTime: .nan, sent: 2, received: 2.0001))
        #expect(!noted(&clock, daemonTime: 5, sent: 3, received: 2.9))
        #expect(abs(clock.offset - 100.0) < 1e-9)
    }

    @Test func aBetterEstimateNeverMovesTheClockBackNorStopsIt() {
        var clock = EngineClock()
        _ = noted(&clock, daemonTime: 100.010, sent: 0.000, received: 0.010)  // offset 100.005
        let before = clock.reading(now: 1.0)
        #expect(abs(before - 101.005) < 1e-9)
        // The truth was 100.000: the estimate moves back 5 ms.
        _ = noted(&clock, daemonTime: 101.0005, sent: 1.0, received: 1.001)
        // Readings by the new offset would be 5 ms earlier: the clock runs on at half speed instead,
        // never back and never still, and meets the new estimate after twice the correction (10 ms).
        var last = before
        for step in 1...9 {
            let now = 1.0 + Double(step) * 0.001
            let t = clock.reading(now: now)
            #expect(t > last, "at \(now): \(t) after \(last)")
            #expect(abs((t - last) - 0.0005) < 1e-9, "half speed at \(now)")
            #expect(t > now + 100.0, "still ahead of the new estimate at \(now)")
            last = t
        }
        let caughtUp = clock.reading(now: 1.010)
        #expect(abs(caughtUp - 101.010) < 1e-9)
        let after = clock.reading(now: 1.020)
        #expect(abs(after - 101.020) < 1e-9, "then with the estimate")
    }

    @Test func readingsFollowTheProcessClock() {
        var clock = EngineClock()
        let first = clock.reading(now: 5)  // before any reply: this process's clock
        let second = clock.reading(now: 6)
        let stale = clock.reading(now: 5.5)  // a caller's stale `now` does not move it back
        #expect(first == 5 && second == 6 && stale == 6)
    }
}
