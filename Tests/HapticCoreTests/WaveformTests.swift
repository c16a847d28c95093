import Glibc
import Testing
@testable import HapticCore

/// The voice-coil waveform renderer on the manual clock: frequencies against sharpness, amplitude
/// against intensity, sample-accurate onsets, block invariance, silence after the end, soft clipping.
@Suite struct WaveformTests {
    let rate = 48_000.0

    func compiled(_ events: String, _ extra: String = "") throws -> CompiledPattern {
        CompiledPattern(try PatternLoader.load(text: #"{"Pattern":[\#(events)\#(extra)]}"#).pattern)
    }

    func continuous(_ t: Double, _ d: Double, intensity: Double, sharpness: Double) -> String {
        #"{"Event":{"EventType":"HapticContinuous","Time":\#(t),"EventDuration":\#(d),"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(intensity)},{"ParameterID":"HapticSharpness","ParameterValue":\#(sharpness)}]}}"#
    }

    func transient(_ t: Double, intensity: Double, sharpness: Double) -> String {
        #"{"Event":{"EventType":"HapticTransient","Time":\#(t),"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(intensity)},{"ParameterID":"HapticSharpness","ParameterValue":\#(sharpness)}]}}"#
    }

    func render(_ p: CompiledPattern, seconds: Double, block: Int? = nil) -> [Double] {
        let r = WaveformRenderer(sampleRate: rate)
        let n = Int(seconds * rate)
        var out = [Double](repeating: 0, count: n)
        var state = WaveformRenderer.State()
        let step = block ?? n
        var i = 0
        while i < n {
            r.render(p, from: Double(i) / rate, count: min(step, n - i), into: &out, at: i, state: &state)
            i += step
        }
        return out
    }

    /// Upward zero crossings per second over a window (the carrier's frequency).
    func frequency(_ x: ArraySlice<Double>) -> Double {
        var crossings = 0
        var idx = x.startIndex
        while idx < x.endIndex - 1 {
            if x[idx] <= 0 && x[idx + 1] > 0 { crossings += 1 }
            idx += 1
        }
        return Double(crossings) / (Double(x.count) / rate)
    }

    @Test func sharpnessIsTheCarriersFrequencyAndIntensityItsAmplitude() throws {
        for (s, hz) in [(0.0, 40.0), (0.5, 113.1), (1.0, 320.0)] {
            let out = render(try compiled(continuous(0, 1, intensity: 0.6, sharpness: s)), seconds: 1)
            // Away from the attack and release: whole seconds of carrier.
            let f = frequency(out[4_800..<43_200])
            #expect(abs(f - hz) <= 2, "sharpness \(s): \(f) Hz")
            let peak = out[4_800..<43_200].map(abs).max() ?? 0
            #expect(abs(peak - 0.6) < 0.01, "sharpness \(s): peak \(peak)")
        }
        #expect(abs(WaveformRenderer.carrierFrequency(sharpness: 0.5) - 113.137) < 0.01)
    }

    /// Golden: a known pattern renders to a known waveform, sample by sample within a tolerance —
    /// a continuous event at intensity 0.5 and sharpness 1 is 0.5·sin(2π·320 Hz·t) from its start
    /// (the carrier's phase begins with the event), and nothing after its end.
    @Test func aContinuousEventIsItsSineSampleBySample() throws {
        let out = render(try compiled(continuous(0, 0.4, intensity: 0.5, sharpness: 1)), seconds: 0.5)
        var worst = 0.0
        for i in 2_400..<16_800 {
            let t = Double(i) / rate
            worst = max(worst, abs(out[i] - 0.5 * sin(2 * Double.pi * 320 * t)))
        }
        #expect(worst < 0.02, "largest difference from 0.5·sin(2π·320·t) over 0.05–0.35 s: \(worst)")
        #expect(out[20_000..<24_000].allSatisfy { $0 == 0 }, "silent after its end")
    }

    @Test func aSharpnessCurveSweepsTheFrequencyUp() throws {
        let curve = #",{"ParameterCurve":{"ParameterID":"HapticSharpnessControl","Time":0,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":-0.5},{"Time":2,"ParameterValue":0.5}]}}"#
        let out = render(try compiled(continuous(0, 2, intensity: 1, sharpness: 0.5), curve), seconds: 2)
        let quarters = (0..<4).map { q in frequency(out[(q * 24_000)..<((q + 1) * 24_000)]) }
        #expect(zip(quarters, quarters.dropFirst()).allSatisfy { $0 < $1 }, "\(quarters)")
        #expect(quarters[0] < 60 && quarters[3] > 200, "\(quarters)")
    }

    @Test func transientsStartOnTheirSampleAndFollowSharpness() throws {
        let t0 = 0.123_45
        let dull = render(try compiled(transient(t0, intensity: 1, sharpness: 0)), seconds: 0.3)
        let sharp = render(try compiled(transient(t0, intensity: 0.5, sharpness: 1)), seconds: 0.3)
        let onset = Int((t0 * rate).rounded(.up))
        for out in [dull, sharp] {
            #expect(out[..<onset].allSatisfy { $0 == 0 })
            #expect(out[onset..<(onset + 10)].contains { $0 != 0 })
        }
        let dullLength = dull.lastIndex { $0 != 0 }! - onset
        let sharpLength = sharp.lastIndex { $0 != 0 }! - onset
        #expect(abs(Double(dullLength) - 2 / 80 * rate) <= 2, "two periods of 80 Hz")
        #expect(abs(Double(sharpLength) - 2 / 320 * rate) <= 2, "two periods of 320 Hz")
        #expect((sharp.map(abs).max() ?? 0) <= 0.5 + 1e-9)
        // Two periods under a Hann window peak at 0.87 of the intensity.
        #expect((dull.map(abs).max() ?? 0) > 0.85)
    }

    @Test func blocksOfAnySizeRenderTheSameSamples() throws {
        let p = try compiled(continuous(0, 0.4, intensity: 0.7, sharpness: 0.3) + "," + transient(0.05, intensity: 1, sharpness: 0.8)
                             + "," + continuous(0.2, 0.3, intensity: 0.5, sharpness: 0.9))
        let whole = render(p, seconds: 0.6)
        for block in [240, 1, 97] {
            let parts = render(p, seconds: 0.6, block: block)
            #expect(zip(whole, parts).allSatisfy { abs($0 - $1) < 1e-9 }, "block \(block)")
        }
    }

    @Test func silenceAfterTheEnd() throws {
        let out = render(try compiled(continuous(0, 0.1, intensity: 1, sharpness: 0.5)), seconds: 0.5)
        #expect(out[0..<4_800].contains { abs($0) > 0.5 })
        // The default release is short; well after it every sample is exactly zero.
        #expect(out[14_400...].allSatisfy { $0 == 0 })
    }

    @Test func softClipIsLinearThenBounded() {
        #expect(WaveformRenderer.softClip(0.5) == 0.5)
        #expect(WaveformRenderer.softClip(-0.8) == -0.8)
        var last = -2.0
        for k in 0...400 {
            let x = -4 + Double(k) / 50
            let y = WaveformRenderer.softClip(x)
            #expect(y >= last && abs(y) <= 1)
            last = y
        }
        #expect(WaveformRenderer.softClip(.nan) == 0 && WaveformRenderer.softClip(.infinity) == 1)
    }

    @Test func badArgumentsRenderNothingAndNeverTrap() throws {
        let p = try compiled(continuous(0, 1, intensity: 1, sharpness: 0.5))
        let r = WaveformRenderer(sampleRate: .nan)
        #expect(r.sampleRate == 48_000)
        var out = [Double](repeating: 0, count: 10)
        var state = WaveformRenderer.State()
        r.render(p, from: .nan, count: 10, into: &out, state: &state)
        r.render(p, from: 0, count: 1_000_000, into: &out, at: 5, state: &state)
        r.render(p, from: 0, count: 10, into: &out, at: 50, state: &state)
        r.render(p, from: 0, count: -3, into: &out, state: &state)
        #expect(out[0..<5].allSatisfy { $0 == 0 })
        #expect(Locality.leftHandle.actuatorGains! == (1, 0) && Locality.triggers.actuatorGains == nil)
    }
}
