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

    @Test func aBetterEstimateNeverMovesTheClockBack() {
        var clock = EngineClock()
        clock.note(daemonTime: 100.010, sent: 0.000, received: 0.010)  // offset 100.005
        let before = clock.reading(now: 1.0)
        #expect(abs(before - 101.005) < 1e-9)
        // The truth was 100.000: the offset moves back 5 ms.
        clock.note(daemonTime: 101.0005, sent: 1.0, received: 1.001)
        // A reading 1 ms later would be 101.001 by the new offset: earlier than the one already given.
        let after = clock.reading(now: 1.001)
        #expect(after >= before)
        // The clock stands still until the new estimate has caught up, then runs with it.
        let stillStanding = clock.reading(now: 1.003)
        #expect(abs(stillStanding - before) < 1e-9)
        let caughtUp = clock.reading(now: 1.010)
        #expect(abs(caughtUp - 101.010) < 1e-9)
    }

    @Test func readingsFollowTheProcessClock() {
        var clock = EngineClock()
        let first = clock.reading(now: 5)  // before any reply: this process's clock
        let second = clock.reading(now: 6)
        let stale = clock.reading(now: 5.5)  // a caller's stale `now` does not move it back
        #expect(first == 5 && second == 6 && stale == 6)
    }
}
