@testable import CoreHaptics
import DaemonTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// A dropped advanced player's completion handler against a `player.finished` that arrives while
/// the player is being deinitialised (found by a review of the first version). Threads are ordered by the locks they wait
/// for: a thread is known to wait once the kernel says it is in futex(FUTEX_LOCK_PI) (the
/// Synchronization Mutex's slow path on Linux).
extension CoreHapticsSuite {
@Suite struct OrphanRaceTests {
    final class Box: @unchecked Sendable { var player: AdvancedPatternPlayer? }

    /// A thread that records its kernel id, then runs `body`.
    final class Worker: @unchecked Sendable {
        let tid = Mutex<Int32>(0)
        let finished = Mutex(false)
        let done = DispatchSemaphore(value: 0)
        init(_ body: @escaping @Sendable () -> Void) {
            let ready = DispatchSemaphore(value: 0)
            Thread { [self] in
                // /proc/thread-self -> "PID/task/TID" (Glibc does not export gettid)
                let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
                tid.withLock { $0 = Int32(link.split(separator: "/").last ?? "") ?? 0 }
                ready.signal()
                body()
                finished.withLock { $0 = true }
                done.signal()
            }.start()
            ready.wait()
        }
    }

    /// Returns true once `worker` waits in futex(FUTEX_LOCK_PI or _PI2) (syscall 202, op 6 or 13 |
    /// FUTEX_PRIVATE_FLAG), i.e. for a Mutex someone holds; false if it finished instead. Not a
    /// sleep: it polls the kernel's state of the thread, yielding (10 s bound, to fail, not hang).
    static func waitUntilBlockedOnLock(_ worker: Worker) -> Bool {
        let tid = worker.tid.withLock { $0 }
        let deadline = DispatchTime.now() + 10
        while DispatchTime.now() < deadline {
            if worker.finished.withLock({ $0 }) { return false }
            if let s = try? String(contentsOfFile: "/proc/self/task/\(tid)/syscall", encoding: .utf8) {
                let f = s.split(separator: " ")
                if f.count > 2, f[0] == "202", f[2] == "0x86" || f[2] == "0x8d" { return true }
            }
            sched_yield()
        }
        return false
    }

    /// An advanced player of `engine`, playing a 5 s pattern, held by `box` alone; its id. (The
    /// tests deliver its `player.finished` themselves, long before hapticd would.)
    static func playing(_ engine: CHHapticEngine, into box: Box, completion: @escaping @Sendable () -> Void) throws -> Int {
        let event = CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 5)
        box.player = try engine.makeAdvancedPlayer(with: CHHapticPattern(events: [event], parameters: [])) as? AdvancedPatternPlayer
        box.player!.completionHandler = { _ in completion() }
        try box.player!.start(atTime: 0)
        return box.player!.id
    }

    /// A daemon, a started engine and its advanced player `id` playing, held by `box` alone, whose
    /// completion handler records 0 in `called`.
    static func scene() throws -> (DaemonProcess, CHHapticEngine, Box, Int, Recorder<Int>) {
        let daemon = try Fixture.daemon()
        let engine = try CHHapticEngine()
        try engine.start()
        let called = Recorder<Int>()
        let box = Box()
        let id = try playing(engine, into: box) { called.record(0) }
        return (daemon, engine, box, id, called)
    }

    /// playerEnded runs while the dropped player's deinit waits to `release` it: the weak
    /// reference is nil already and `completion` is not stored yet, so nobody calls the handler.
    @Test func aPlayerFinishedDuringTheDropStillCallsTheHandler() throws {
        let (daemon, engine, box, id, called) = try Self.scene()

        // B holds the engine's lock; A (player.finished) queues for it first, then C drops the player.
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0)
        let b = Worker { engine.state.withLock { _ in holding.signal(); letGo.wait() } }
        holding.wait()
        let a = Worker { engine.playerEnded(id) }
        #expect(Self.waitUntilBlockedOnLock(a))
        let c = Worker { box.player = nil }
        #expect(Self.waitUntilBlockedOnLock(c))
        letGo.signal()
        b.done.wait(); a.done.wait(); c.done.wait()
        engine.handlerQueue.sync {}
        #expect(called.all == [0], "the completion handler of a player that finished as it was dropped")
        #expect(engine.state.withLock { $0.players[id] } == nil)
        _ = daemon
    }

    /// playerEnded's weak load of the player keeps it alive under the engine's lock; if the program
    /// drops the player meanwhile, the last release is that load's, under the lock, and the deinit's
    /// `release` takes the same lock again.
    @Test func thePlayersLastReleaseIsNotUnderTheEnginesLock() throws {
        let (daemon, engine, box, id, called) = try Self.scene()
        let player = Unmanaged.passUnretained(box.player!)

        // B holds the player's own lock (unretained); A (player.finished) loads the player under the
        // engine's lock and waits for it in `completionHandlerIfAdvanced`; C drops the player.
        let holding = DispatchSemaphore(value: 0), letGo = DispatchSemaphore(value: 0)
        let b = Worker { player._withUnsafeGuaranteedRef { $0.local.withLock { _ in holding.signal(); letGo.wait() } } }
        holding.wait()
        let a = Worker { engine.playerEnded(id) }
        // (Where player.finished does not wait for the player's lock under the engine's, there is
        // no window: C's drop then comes after A.)
        _ = Self.waitUntilBlockedOnLock(a)
        let c = Worker { box.player = nil }
        c.done.wait()
        letGo.signal()
        b.done.wait()
        #expect(a.done.wait(timeout: .now() + 5) == .success, "player.finished's thread is stuck (the deinit re-took the engine's lock)")
        engine.handlerQueue.sync {}
        #expect(called.all == [0])
        _ = daemon
    }
}
}
