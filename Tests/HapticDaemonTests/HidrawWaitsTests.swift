import Testing
@testable import HapticDaemon

/// A plugged-in pad waiting for its hidraw node: until a deadline set at its first look, no longer.
@Suite struct HidrawWaitsTests {
    @Test func aPadWaitsUntilItsFirstLooksDeadlineAndNoLonger() {
        var waits = HidrawWaits()
        var outcome = waits.notReady("/dev/input/event5", now: 10, limit: 3)
        #expect(outcome == .wait(until: 13))
        // Looking again (a change to some hidraw node) does not extend the wait.
        outcome = waits.notReady("/dev/input/event5", now: 12.5, limit: 3)
        #expect(outcome == .wait(until: 13))
        outcome = waits.notReady("/dev/input/event7", now: 11, limit: 3)
        #expect(outcome == .wait(until: 14))
        #expect(waits.waiting == ["/dev/input/event5", "/dev/input/event7"])
        #expect(waits.isWaiting("/dev/input/event5") && !waits.isWaiting("/dev/input/event9"))
        outcome = waits.notReady("/dev/input/event5", now: 13, limit: 3)
        #expect(outcome == .giveUp)
        #expect(waits.waiting == ["/dev/input/event7"], "given up: no longer waiting")
        var was = waits.settled("/dev/input/event7")
        #expect(was)
        was = waits.settled("/dev/input/event7")
        #expect(!was, "settled once")
        #expect(waits.waiting.isEmpty)
        // Plugged in again after giving up: a wait of its own.
        outcome = waits.notReady("/dev/input/event5", now: 20, limit: 3)
        #expect(outcome == .wait(until: 23))
    }

    @Test func noWaitAllowedGivesUpAtOnce() {
        var waits = HidrawWaits()
        var outcome = waits.notReady("/dev/input/event5", now: 10, limit: 0)
        #expect(outcome == .giveUp)
        outcome = waits.notReady("/dev/input/event5", now: 10, limit: -1)
        #expect(outcome == .giveUp)
        #expect(waits.waiting.isEmpty)
    }
}
