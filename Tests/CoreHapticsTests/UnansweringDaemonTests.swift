@testable import CoreHaptics
import DaemonTestSupport
import Foundation
import GameController
import HapticClient
import HapticFeedback
import Testing

/// A daemon whose socket accepts connections and never answers (hung, or a socket-activation
/// start that never finishes). Unity's `CHHapticPlayer` asks `HardwareSupportsHaptics()` on every
/// `Play()`: each call waited the whole request timeout (5 s), and so did every `new
/// CHHapticEngine()` — an outside check. Now one caller waits, later ones fail at once, and the
/// library finds the daemon again by itself once it answers.
extension CoreHapticsSuite {
@Suite struct UnansweringDaemonTests {
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = HapticService.now()
        try body()
        return HapticService.now() - start
    }

    /// Whether every thread of the process is stopped ("T" in /proc/PID/task/*/stat), waiting up to
    /// 10 s.
    static func waitStopped(_ pid: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        func stopped(_ task: String) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return true }  // gone: not answering either
            return stat[stat.index(close, offsetBy: 2)...].hasPrefix("T")
        }
        while Date() < deadline {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            if !tasks.isEmpty, tasks.allSatisfy(stopped) { return true }
            sched_yield()
        }
        return false
    }

    /// A daemon that stops answering on an open connection (here SIGSTOP): the request that meets
    /// it waits the timeout, and then hapticd counts as gone, as Core Haptics' server does when it is
    /// interrupted — the engine hears `systemError`, later calls fail at once, and the connection is
    /// closed, so that the daemon, once it runs again, stops what that connection played (no motor
    /// left running on a stop the program could not send). It is then found again, and the engine
    /// reset, with no call made.
    @Test func aDaemonThatStopsAnsweringCountsAsGoneAndComesBackAsAReset() throws {
        let daemon = try Fixture.daemon()
        defer { kill(daemon.process.processIdentifier, SIGCONT) }
        let engine = try CHHapticEngine()
        let stopped = Recorder<CHHapticEngine.StoppedReason>(), reset = Recorder<Bool>()
        engine.stoppedHandler = { stopped.record($0) }
        engine.resetHandler = { reset.record(true) }
        try engine.start()
        let long = CHHapticEvent(eventType: .hapticContinuous, parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 1)],
                                 relativeTime: 0, duration: 20)
        let pattern = try CHHapticPattern(events: [long], parameters: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        try player.start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true }, "it plays")

        kill(daemon.process.processIdentifier, SIGSTOP)
        // Stopped once the kernel says so (kill() only queues the signal: a daemon running on the
        // other core could still answer the next request).
        #expect(Self.waitStopped(daemon.process.processIdentifier), "hapticd is stopped")
        var failure: (any Error)?
        let first = Self.seconds { do { try engine.start() } catch { failure = error } }
        #expect((failure as? CHHapticError)?.code == .serverInterrupted, "\(String(describing: failure))")
        #expect(first >= HapticService.requestTimeout - 0.1, "the first call waits the timeout: \(first) s")
        #expect(stopped.wait() && stopped.all == [.systemError], "the engine heard hapticd go: \(stopped.all)")
        failure = nil
        let second = Self.seconds { do { try engine.start() } catch { failure = error } }
        #expect(second < 1 && (failure as? CHHapticError)?.localizedDescription.contains("has not answered") == true,
                "later calls fail at once: \(second) s, \(String(describing: failure))")

        kill(daemon.process.processIdentifier, SIGCONT)
        #expect(daemon.waitForTrace(timeout: 10) { $0.last.map { $0.2 == 0 && $0.3 == 0 } == true },
                "hapticd stopped the closed connection's player: \(daemon.traceRows().suffix(2))")
        #expect(reset.wait(timeout: 10), "found again: the engine was reset")
        #expect(!HapticService.shared.isWaitingForAnAnswer)
        try engine.start()
        try engine.makePlayer(with: pattern).start(atTime: 0)
        #expect(daemon.waitForTrace { $0.last.map { $0.2 > 0 } == true }, "it plays again")
        engine.stop()
        #expect(daemon.terminate() == 0)
    }

    /// UIKit's generators never block: their first use connects in the background, so a daemon
    /// that does not answer costs the button's action nothing (it waited 5 s — an outside check).
    @MainActor @Test func feedbackGeneratorsDoNotWaitForADaemonThatDoesNotAnswer() throws {
        let path = Fixture.socket
        let fd = try silentSocket(path)
        let impact = UIImpactFeedbackGenerator(style: .medium)
        let took = Self.seconds {
            impact.prepare()
            impact.impactOccurred()
            UISelectionFeedbackGenerator().selectionChanged()
            UINotificationFeedbackGenerator().notificationOccurred(.success)
        }
        #expect(took < 1, "the calls returned at once: \(took) s")
        // The connection made in the background times out, and callers are turned away meanwhile.
        let deadline = HapticService.now() + 3 * HapticService.requestTimeout
        while !HapticService.shared.isWaitingForAnAnswer && HapticService.now() < deadline {
            Thread.sleep(forTimeInterval: 0.01)  // polling a flag, bounded by the deadline
        }
        #expect(HapticService.shared.isWaitingForAnAnswer, "the background connection got no answer")
        close(fd)
        unlink(path)
        while HapticService.shared.isWaitingForAnAnswer && HapticService.now() < deadline + 10 {
            _ = CHHapticEngine.capabilitiesForHardware().supportsHaptics
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(!HapticService.shared.isWaitingForAnAnswer, "no socket at all: no one is turned away")
    }

    /// A hung daemon's queue of connections not yet accepted fills up; a Unix socket's blocking
    /// connect then waits without a bound. Connecting gives up after `connectPatience` instead.
    @Test func connectingToAFullQueueGivesUp() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-full-\(getpid()).sock").path
        let fd = try silentSocket(path, backlog: 0)
        defer { close(fd); unlink(path) }
        var held: [HapticClient] = []
        var failure: ClientError?
        let took = Self.seconds {
            for _ in 0..<4 {
                do throws(ClientError) { held.append(try HapticClient(path: path)) } catch { failure = error; break }
            }
        }
        #expect(failure == .timeout, "the full queue: \(String(describing: failure)) after \(held.count) connections")
        #expect(took < 10, "gave up in \(took) s")
        held.forEach { $0.close() }
    }

    @Test func onlyTheFirstCallerWaitsForADaemonThatDoesNotAnswer() throws {
        let path = Fixture.socket
        let fd = try silentSocket(path)
        var supported = true
        let first = Self.seconds { supported = CHHapticEngine.capabilitiesForHardware().supportsHaptics }
        #expect(!supported)
        #expect(first >= HapticService.requestTimeout - 0.1, "the first caller waits the request timeout: \(first) s")

        // Every later caller fails at once: a query, an engine, as a Unity game makes them per frame.
        var waits: [Double] = []
        for _ in 0..<20 {
            waits.append(Self.seconds { supported = CHHapticEngine.capabilitiesForHardware().supportsHaptics })
            #expect(!supported)
        }
        var failure: (any Error)?
        waits.append(Self.seconds {
            do { _ = try CHHapticEngine() } catch { failure = error }
        })
        let error = try #require(failure as? CHHapticError)
        #expect(error.code == .serverInterrupted)
        #expect(error.localizedDescription.contains("has not answered"), "\(error.localizedDescription)")
        #expect(waits.max() ?? 99 < 1, "later callers do not wait for the timeout: \(waits)")

        // The daemon comes back at that path: the background probe finds it, with no call made.
        close(fd)
        unlink(path)
        let daemon = try Fixture.daemon()
        let deadline = HapticService.now() + 3 * HapticService.requestTimeout
        while HapticService.shared.isWaitingForAnAnswer && HapticService.now() < deadline {
            Thread.sleep(forTimeInterval: 0.01)  // polling a flag, bounded by the deadline
        }
        #expect(!HapticService.shared.isWaitingForAnAnswer, "the probe found the daemon again")
        #expect(CHHapticEngine.capabilitiesForHardware().supportsHaptics)
        let engine = try CHHapticEngine()
        try engine.start()
        engine.stop()
        #expect(daemon.terminate() == 0)
    }
}
}
