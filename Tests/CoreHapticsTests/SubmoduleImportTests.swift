// Imported as some real code does: one of Apple's header submodules for each file's needs.
import CoreHaptics.CHHapticDeviceCapability
import CoreHaptics.CHHapticEngine
import CoreHaptics.CHHapticErrors
import CoreHaptics.CHHapticEvent
import CoreHaptics.CHHapticParameter
import CoreHaptics.CHHapticPattern
import CoreHaptics.CHHapticPatternPlayer
import Testing

/// Apple's CoreHaptics is a framework module with a submodule per header; `import
/// CoreHaptics.CHHapticEngine` compiles and brings the API, as there (Sources/CoreHapticsHeaders).
@Suite struct SubmoduleImportTests {
    @Test func eachOfApplesHeadersIsASubmoduleThatBringsTheAPI() throws {
        let event = CHHapticEvent(
            eventType: .hapticTransient, parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: 0.5)], relativeTime: 0)
        let pattern = try CHHapticPattern(events: [event], parameters: [])
        #expect(pattern.duration >= 0)
        #expect(CHHapticError.Code.engineNotRunning.rawValue == -4805)
        let parameter = CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 0.25, relativeTime: 0)
        #expect(parameter.value == 0.25)
        #expect(CHHapticTimeImmediate == 0)
    }

    /// The capability protocol, named as Apple's header declares it.
    func supportsHaptics(_ capability: any CHHapticDeviceCapability) -> Bool { capability.supportsHaptics }
}
