@testable import HapticDaemon
import Testing

/// The order in which the turns of busy connections are given (`FairShare`, used by `TurnQueue`).
@Suite struct FairShareTests {
    /// Gives every waiting turn, charging each `cost(key)`, and returns the keys in the order given.
    func drain(_ f: inout FairShare<UInt32, Int>, cost: (UInt32) -> UInt64 = { _ in 100 }) -> [UInt32] {
        var order: [UInt32] = []
        while let (key, _) = f.next() {
            order.append(key)
            f.charge(key, nanoseconds: cost(key))
        }
        return order
    }

    @Test func aQuietUserGoesBeforeTheManyTurnsOfABusyOne() {
        var f = FairShare<UInt32, Int>()
        // A busy user with 300 connections' turns queued and given some already.
        for i in 0..<300 { f.enqueue(1000, i) }
        for _ in 0..<10 {
            let (key, _) = f.next()!
            f.charge(key, nanoseconds: 100)
        }
        // A quiet user's one turn arrives: it is the very next one, not the 291st.
        f.enqueue(2000, 0)
        #expect(f.next()?.key == 2000)
        f.charge(2000, nanoseconds: 100)
        #expect(f.count == 290)
    }

    @Test func busyUsersShareTimeNotTurns() {
        var f = FairShare<UInt32, Int>()
        // User 1's turns cost 3 units, user 2's cost 1: over a long run user 2 gets three turns for
        // each of user 1's, whatever the number of connections behind them.
        for i in 0..<40 { f.enqueue(1, i) }
        for i in 0..<400 { f.enqueue(2, i) }
        var given: [UInt32: Int] = [:]
        for _ in 0..<80 {
            let (key, _) = f.next()!
            given[key, default: 0] += 1
            f.charge(key, nanoseconds: key == 1 ? 300 : 100)
        }
        #expect(given[1] == 20)
        #expect(given[2] == 60)
    }

    @Test func turnsOfOneUserGoInOrder() {
        var f = FairShare<UInt32, Int>()
        for i in 0..<5 { f.enqueue(7, i) }
        var turns: [Int] = []
        while let (key, turn) = f.next() {
            turns.append(turn)
            f.charge(key, nanoseconds: 1)
        }
        #expect(turns == [0, 1, 2, 3, 4])
    }

    @Test func idlingBanksNoCredit() {
        var f = FairShare<UInt32, Int>()
        // User 1 works alone for a long time; user 2 was idle all along.
        for i in 0..<100 { f.enqueue(1, i) }
        _ = drain(&f)
        // Both become busy: user 2 does not get 100 turns in a row for having been idle.
        for i in 0..<20 { f.enqueue(1, i) }
        for i in 0..<20 { f.enqueue(2, i) }
        let order = drain(&f)
        let firstOnes = order.prefix(10)
        #expect(firstOnes.filter { $0 == 1 }.count >= 4)
        #expect(firstOnes.filter { $0 == 2 }.count >= 4)
    }

    @Test func wouldGoNextOnlyWhenNoOneWaitingHasHadLess() {
        var f = FairShare<UInt32, Int>()
        #expect(f.wouldGoNext(1), "nothing waits")
        f.enqueue(1, 0)
        #expect(!f.wouldGoNext(1), "its own turn waits already")
        #expect(f.wouldGoNext(2), "a user who has had nothing goes next")
        // User 2 took a turn at once and was charged a lot: now user 1 goes first.
        f.charge(2, nanoseconds: 1_000_000)
        #expect(!f.wouldGoNext(2))
        #expect(f.next()?.key == 1)
    }

    @Test func theKeysKeptAreBounded() {
        var f = FairShare<UInt32, Int>()
        // 10 000 users, each one turn then gone: their records do not pile up.
        for uid in 0..<10_000 {
            f.enqueue(UInt32(uid), 0)
            let (key, _) = f.next()!
            f.charge(key, nanoseconds: 1)
        }
        #expect(f.keys <= 300)
    }

    @Test func chargesSaturate() {
        var f = FairShare<UInt32, Int>()
        f.enqueue(1, 0)
        f.enqueue(1, 1)
        _ = f.next()
        f.charge(1, nanoseconds: .max)
        f.charge(1, nanoseconds: .max)
        #expect(f.next()?.turn == 1, "a saturated time still gets its turn")
    }
}
