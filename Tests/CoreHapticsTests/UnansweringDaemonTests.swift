@testable import CoreHaptics
import DaemonTestSupport
import Foundation
import GameController
import Testing

/// A daemon whose socket accepts connections and never answers (hung, or a socket-activation
/// start that never finishes). Unity's `CHHapticPlayer` asks `HardwareSupportsHaptics()` on every
/// `Play()`: each call waited the whole request timeout (5 s), and so did every `new
/// CHHapticEngine()` — an outside check. Now one caller waits, later ones fail at once, and the
/// library finds the daemon again by itself once it answers.
extension CoreHapticsSuite {
@Suite struct UnansweringDaemonTests {
    /// A Unix socket at `path` that is listened on and never accepted from: the kernel completes
    /// every connection, and nothing ever reads or answers.
    static func silentSocket(_ path: String) throws -> CInt {
        unlink(path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try #require(fd >= 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: addr.sun_path))
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(fd, 64) == 0)
        return fd
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = HapticService.now()
        try body()
        return HapticService.now() - start
    }

    @Test func onlyTheFirstCallerWaitsForADaemonThatDoesNotAnswer() throws {
        let path = Fixture.socket
        let fd = try Self.silentSocket(path)
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
