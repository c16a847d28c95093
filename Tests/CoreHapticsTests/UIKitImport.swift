import DaemonTestSupport
import Testing

extension CoreHapticsSuite {
/// An iOS file's `import UIKit` for the feedback generators (UIKitFile.swift) compiles unchanged and
/// plays.
@Suite struct UIKitImportTests {
    @MainActor @Test func aFileThatImportsUIKitForItsGeneratorsCompilesAndPlays() throws {
        let daemon = try Fixture.daemon()
        TapFeedback().buttonPressed(strength: 0.8)
        #expect(daemon.waitForTrace { rows in rows.contains { $0.2 > 0 || $0.3 > 0 } }, "the pad moved")
        #expect(daemon.terminate() == 0)
    }
}
}
