/// Which waiting turn goes next: the daemon's time shared fairly between users, then between a
/// user's connections.
///
/// Start-time fair queueing keyed by user (uid). Every user with turns waiting has a virtual time —
/// the daemon time its turns have cost so far — and the next turn is the first of the user who has
/// had the least; within a user, turns go in the order they came (round-robin over its
/// connections, as each queues its next turn behind the others'). A user who becomes busy again
/// starts at the virtual time of the last turn given, so idling banks no credit and a busy user is
/// never starved by one who comes back. So a user with one quiet connection waits at most about one
/// turn of each other busy user — never behind the hundreds of connections one other user may
/// hold (the soak test's 1 000 clients: docs/robustness.md §2). Pure: times are given in, as
/// nanoseconds.
struct FairShare<Key: Hashable, Turn> {
    private struct Share {
        var time: UInt64
        var turns: [Turn] = []
        var head = 0
        var waiting: Int { turns.count - head }
    }
    private var shares: [Key: Share] = [:]
    /// The virtual time of the last turn given.
    private var now: UInt64 = 0
    private var charges = 0
    /// Turns waiting, over every key.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    /// Keys recorded: those with turns waiting, and recently served ones (bounded: `forgetIdle`).
    var keys: Int { shares.count }

    mutating func enqueue(_ key: Key, _ turn: Turn) {
        var share = shares[key] ?? Share(time: now)
        if share.waiting == 0 {
            share.time = max(share.time, now)
            share.turns.removeAll(keepingCapacity: true)
            share.head = 0
        }
        share.turns.append(turn)
        shares[key] = share
        count += 1
    }

    /// The next turn: the oldest of the key that has had the least time (ties: any of them).
    mutating func next() -> (key: Key, turn: Turn)? {
        var best: Key?
        var bestTime = UInt64.max
        for (key, share) in shares where share.waiting > 0 && (best == nil || share.time < bestTime) {
            best = key
            bestTime = share.time
        }
        guard let key = best, var share = shares.removeValue(forKey: key) else { return nil }
        now = max(now, bestTime)
        let turn = share.turns[share.head]
        share.head += 1
        if share.head > 64 && share.head * 2 > share.turns.count {
            share.turns.removeFirst(share.head)
            share.head = 0
        }
        shares[key] = share
        count -= 1
        return (key, turn)
    }

    /// Whether a turn of `key` queued now would be the next one given: the key waits for nothing and
    /// has had no more time than any key that waits. Such a turn may be taken at once (and charged)
    /// without being queued: the order is the same.
    func wouldGoNext(_ key: Key) -> Bool {
        let mine = max(shares[key]?.time ?? now, now)
        if let share = shares[key], share.waiting > 0 { return false }
        for share in shares.values where share.waiting > 0 && share.time < mine { return false }
        return true
    }

    /// Charges a turn's cost (nanoseconds, at least 1) to its key — one given by `next` or taken at
    /// once after `wouldGoNext`; forgets keys that wait for nothing and are owed nothing.
    mutating func charge(_ key: Key, nanoseconds: UInt64) {
        var share = shares[key] ?? Share(time: now)
        if share.waiting == 0 { share.time = max(share.time, now) }
        let (sum, overflow) = share.time.addingReportingOverflow(max(nanoseconds, 1))
        share.time = overflow ? .max : sum
        shares[key] = share
        charges &+= 1
        if charges % 256 == 0 && shares.count > 8 { forgetIdle() }
    }

    /// Drops keys with nothing waiting: behind the virtual time they would start at it anyway, and
    /// ahead of it they lose a little credit — the price of keeping at most a few keys per user
    /// with turns waiting, however many users come and go.
    private mutating func forgetIdle() {
        shares = shares.filter { $0.value.waiting > 0 }
    }
}
