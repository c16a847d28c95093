import CoreHaptics
import Foundation
import Testing

/// `CHHapticError` and `NSError`, cast both ways as Apple's platforms cast them. Nothing here needs a
/// daemon.
@Suite struct ErrorBridgingTests {
    func failing() throws { throw CHHapticError(.engineNotRunning, userInfo: [NSLocalizedDescriptionKey: "the engine is stopped"]) }

    /// A function that does not throw, with `catch let error as NSError` as its only clause: the
    /// compiler takes the clause as exhaustive (it is, on Apple's platforms), so a `CHHapticError` that
    /// did not cast reached no clause and crashed the program (an outside check).
    func caughtAsNSError() -> (domain: String, code: Int, message: String) {
        do {
            try failing()
            return ("", 0, "")
        } catch let error as NSError {
            return (error.domain, error.code, error.localizedDescription)
        }
    }

    @Test func aCoreHapticsErrorIsCaughtAsAnNSError() {
        let caught = caughtAsNSError()
        #expect(caught.domain == CoreHapticsErrorDomain && caught.code == -4805)
        #expect(caught.message == "the engine is stopped")
        let anything: Any = CHHapticError(.serverInterrupted)
        #expect((anything as? NSError)?.domain == "com.apple.CoreHaptics")
    }

    @Test func anNSErrorOfTheDomainCastsToACoreHapticsError() throws {
        let ns = NSError(domain: CoreHapticsErrorDomain, code: -4812, userInfo: [NSLocalizedDescriptionKey: "gone"])
        let error = try #require(ns as? CHHapticError)
        #expect(error.code == .invalidPatternPlayer && error.localizedDescription == "gone")
        #expect(((ns as any Error) as? CHHapticError)?.code == .invalidPatternPlayer)
        // `catch CHHapticError.invalidPatternPlayer` matches it, as Apple's imported codes do.
        var matched = false
        do { throw ns } catch CHHapticError.invalidPatternPlayer { matched = true } catch {}
        #expect(matched)
        // Another domain, or a code Apple does not have: no cast.
        #expect(NSError(domain: NSPOSIXErrorDomain, code: -4812) as? CHHapticError == nil)
        #expect(NSError(domain: CoreHapticsErrorDomain, code: 12345) as? CHHapticError == nil)
        // Back and forth keeps the code and the message.
        let round = try #require((CHHapticError(.fileNotFound, userInfo: [NSLocalizedDescriptionKey: "x.ahap"]) as NSError) as? CHHapticError)
        #expect(round.code == .fileNotFound && round.localizedDescription == "x.ahap")
    }
}
