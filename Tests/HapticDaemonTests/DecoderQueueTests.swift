import Dispatch
@testable import HapticDaemon
import NIOPosix
import Synchronization
import Testing

/// The decoding threads' fairness (`DecoderQueue`): work-conserving, and first to a user with nothing
/// running. Jobs here block on gates the test opens, so what runs when is decided by the test.
@Suite struct DecoderQueueTests {
    final class Gates: Sendable {
        let started = Mutex<[String]>([])
        let gates: [String: DispatchSemaphore]
        let startedSignal = DispatchSemaphore(value: 0)
        init(_ names: [String]) { gates = Dictionary(uniqueKeysWithValues: names.map { ($0, DispatchSemaphore(value: 0)) }) }
        func job(_ name: String) -> @Sendable () -> String {
            { [self] in
                started.withLock { $0.append(name) }
                startedSignal.signal()
                gates[name]!.wait()
                return name
            }
        }
        func waitStarted(_ count: Int) -> Bool {
            (0..<count).allSatisfy { _ in startedSignal.wait(timeout: .now() + 10) == .success }
        }
        var order: [String] { started.withLock { $0 } }
    }

    @Test func aLoneUserHasBothThreadsAndAnotherUserIsNextWhenOneIsFree() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let queue = DecoderQueue()
        queue.start()
        defer { queue.stop() }
        let g = Gates(["a1", "a2", "a3", "b1"])
        let a1 = queue.run(for: 1, on: loop, g.job("a1"))
        let a2 = queue.run(for: 1, on: loop, g.job("a2"))
        #expect(g.waitStarted(2) && Set(g.order) == ["a1", "a2"], "one user alone runs on both threads: \(g.order)")
        let a3 = queue.run(for: 1, on: loop, g.job("a3"))
        let b1 = queue.run(for: 2, on: loop, g.job("b1"))
        g.gates["a1"]!.signal()
        #expect(try a1.wait() == "a1")
        #expect(g.waitStarted(1) && g.order.last == "b1", "the free thread goes to the user with nothing running: \(g.order)")
        g.gates["a2"]!.signal()
        #expect(try a2.wait() == "a2")
        #expect(g.waitStarted(1) && g.order.last == "a3", "\(g.order)")
        g.gates["b1"]!.signal()
        g.gates["a3"]!.signal()
        #expect(try b1.wait() == "b1" && a3.wait() == "a3")
    }

    @Test func jobsWaitingWhenItStopsFailAndLaterOnesAreRefused() throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let loop = group.next()
        let queue = DecoderQueue()
        queue.start()
        let g = Gates(["a", "b", "c"])
        let a = queue.run(for: 1, on: loop, g.job("a"))
        let b = queue.run(for: 2, on: loop, g.job("b"))
        #expect(g.waitStarted(2))
        let c = queue.run(for: 3, on: loop, g.job("c"))
        // stop() fails the waiting job, then waits for the running two: they end once it has failed.
        DispatchQueue.global().async {
            _ = try? c.wait()
            g.gates["a"]!.signal()
            g.gates["b"]!.signal()
        }
        queue.stop()
        #expect(try a.wait() == "a" && b.wait() == "b", "running jobs finish")
        #expect(throws: (any Error).self) { try c.wait() }
        #expect(!g.order.contains("c"), "a waiting job does not run")
        #expect(throws: (any Error).self) { try queue.run(for: 1, on: loop, g.job("c")).wait() }
    }
}
