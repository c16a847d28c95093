import HapticCore
import Testing
@testable import HapticTools

/// `render --format wav`: a valid 16-bit stereo WAV of the voice-coil actuators, routed by locality.
@Suite struct WAVTests {
    func pattern() throws -> CompiledPattern {
        let text = #"{"Pattern":[{"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":0.2,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.5},{"ParameterID":"HapticSharpness","ParameterValue":1}]}},{"Event":{"EventType":"HapticTransient","Time":0.3}}]}"#
        return CompiledPattern(try PatternLoader.load(text: text).pattern, profile: DeviceProfile.named("dualsense") ?? .generic)
    }

    func wav(_ locality: Locality, rate: Int = 48_000) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try Offline.wav(try pattern(), .init(step: 0.01), sampleRate: rate, locality: locality) { bytes += $0 }
        return bytes
    }

    func u32(_ b: [UInt8], _ i: Int) -> Int {
        let a = Int(b[i]), c = Int(b[i + 1]) << 8, d = Int(b[i + 2]) << 16, e = Int(b[i + 3]) << 24
        return a | c | d | e
    }
    func i16(_ b: [UInt8], _ i: Int) -> Int16 {
        let lo = UInt16(b[i]), hi = UInt16(b[i + 1])
        return Int16(bitPattern: lo | (hi << 8))
    }
    func samples(_ b: [UInt8]) -> [(Int16, Int16)] {
        stride(from: 44, to: b.count - 3, by: 4).map { (i: Int) -> (Int16, Int16) in (i16(b, i), i16(b, i + 2)) }
    }

    @Test func aValidStereoFileOfTheWholePattern() throws {
        let b = try wav(.default)
        #expect(Array(b[0..<4]) == Array("RIFF".utf8) && Array(b[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(u32(b, 24) == 48_000 && b[22] == 2 && b[34] == 16)
        #expect(u32(b, 40) == b.count - 44 && u32(b, 4) == b.count - 8)
        let s = samples(b)
        #expect(s.allSatisfy { $0.0 == $0.1 }, "default: both actuators alike")
        // The continuous part at half intensity, the transient at full scale (Hann peak ≈ 0.87).
        let early = s[2_400..<7_200].map { abs(Int($0.0)) }.max() ?? 0
        #expect(abs(Double(early) / 32767 - 0.5) < 0.02)
        let tap = s[14_400...].map { abs(Int($0.0)) }.max() ?? 0
        #expect(Double(tap) / 32767 > 0.8)
    }

    @Test func handlesRouteToOneSide() throws {
        let left = samples(try wav(.leftHandle))
        #expect(left.contains { $0.0 != 0 } && left.allSatisfy { $0.1 == 0 })
        let right = samples(try wav(.rightHandle))
        #expect(right.contains { $0.1 != 0 } && right.allSatisfy { $0.0 == 0 })
    }

    @Test func refusalsSayWhy() throws {
        #expect(throws: Offline.RenderError.self) { try wav(.triggers) }
        #expect(throws: Offline.RenderError.self) { try wav(.default, rate: 1) }
        var small = Offline.Window(step: 0.01)
        small.maximumSamples = 100
        #expect(throws: Offline.RenderError.self) { try Offline.wavFrames(try pattern(), small, sampleRate: 48_000, locality: .default) }
    }
}
