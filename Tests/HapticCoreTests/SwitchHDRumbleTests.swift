import Testing
@testable import HapticCore

/// The HD-rumble encoding against the values hid-nintendo's own tables hold (hardware facts), and the
/// intensity/sharpness mapping's promises.
@Suite struct SwitchHDRumbleTests {
    @Test func theAmplitudeTableIsTheDriversTable() {
        // Spot values of hid-nintendo's joycon_rumble_amplitudes (thousandths), every segment.
        let driver: [Int: UInt16] = [0: 0, 1: 10, 2: 12, 4: 17, 8: 33, 12: 67, 15: 112, 16: 117, 20: 140,
                                     31: 225, 32: 230, 50: 340, 63: 450, 80: 650, 99: 981, 100: 1003]
        for (e, amp) in driver { #expect(SwitchHDRumble.amplitudeTable[e] == amp, "level \(e)") }
        #expect(SwitchHDRumble.amplitudeTable.count == 101)
        #expect(zip(SwitchHDRumble.amplitudeTable, SwitchHDRumble.amplitudeTable.dropFirst()).allSatisfy { $0 < $1 })
        // The three logarithmic segments the table follows, to within a thousandth (it was truncated
        // in places).
        for e in 1...100 {
            let x = Double(e)
            let a = e < 16 ? SwitchHDRumble.pow2(x / 4) / 120 : e < 32 ? SwitchHDRumble.pow2(x / 16) / 17 : SwitchHDRumble.pow2(x / 32) / 8.7
            #expect(abs(a * 1000 - Double(SwitchHDRumble.amplitudeTable[e])) <= 1.5, "level \(e)")
        }
    }

    @Test func silenceIsThePadsNeutralValue() {
        #expect(SwitchHDRumble.encode(.off) == [0x00, 0x01, 0x40, 0x40])
        #expect(SwitchHDRumble.report(counter: 0x13, left: .off, right: .off) == [0x10, 0x03, 0x00, 0x01, 0x40, 0x40, 0x00, 0x01, 0x40, 0x40])
    }

    @Test func bandEdgesAndTheDriversCarriers() {
        // 1253 Hz is the top high-band code (FC 01), 41 Hz the bottom low-band one (lf 0x01).
        let top = SwitchHDRumble.Actuator(high: .init(frequency: 1253, amplitude: 0), low: .init(frequency: 41, amplitude: 0))
        #expect(SwitchHDRumble.encode(top) == [0xFC, 0x01, 0x01, 0x40])
        #expect(abs(SwitchHDRumble.highBand.upperBound - 1252.6) < 0.1)
        #expect(abs(SwitchHDRumble.highBand.lowerBound - 81.7) < 0.1)
        #expect(abs(SwitchHDRumble.lowBand.lowerBound - 40.9) < 0.1)
        #expect(abs(SwitchHDRumble.lowBand.upperBound - 626.3) < 0.1)
        // Out of band and NaN saturate to the band's edges; nothing traps.
        let wild = SwitchHDRumble.Actuator(high: .init(frequency: 1e9, amplitude: .nan), low: .init(frequency: -5, amplitude: 7))
        let bytes = SwitchHDRumble.encode(wild)
        let back = SwitchHDRumble.decode(bytes)
        #expect(back?.high.frequency == SwitchHDRumble.highBand.upperBound)
        #expect(back?.low.frequency == SwitchHDRumble.lowBand.lowerBound)
        #expect(back?.high.amplitude == 0)
        #expect(back?.low.amplitude == 1.003)
    }

    @Test func everyLevelAndStepRoundTrips() {
        for e in 0...100 {
            let a = Double(SwitchHDRumble.amplitudeTable[e]) / 1000
            for code in stride(from: 0x61, through: 0xDF, by: 7) {
                let f = SwitchHDRumble.frequency(code: code)
                let act = SwitchHDRumble.Actuator(high: .init(frequency: f, amplitude: a),
                                                  low: .init(frequency: f / 2, amplitude: Double(SwitchHDRumble.amplitudeTable[100 - e]) / 1000))
                let back = SwitchHDRumble.decode(SwitchHDRumble.encode(act))
                #expect(back == act, "level \(e), code \(code)")
            }
        }
        #expect(SwitchHDRumble.decode([0x01, 0x01, 0x40, 0x40]) == nil, "hf not a multiple of 4")
        #expect(SwitchHDRumble.decode([0x00, 0x01, 0x40]) == nil)
    }

    @Test func sharpnessBecomesPitchAndIntensityStrength() {
        let dull = SwitchHDRumble.actuator(intensity: 1, sharpness: 0)
        #expect(dull.low == .init(frequency: 80, amplitude: 1) && dull.high.amplitude == 0)
        let sharp = SwitchHDRumble.actuator(intensity: 1, sharpness: 1)
        #expect(sharp.high == .init(frequency: 640, amplitude: 1) && sharp.low.amplitude == 0)
        // Half sharpness: hid-nintendo's own 160/320 Hz carriers, at half strength each.
        let mid = SwitchHDRumble.actuator(intensity: 0.8, sharpness: 0.5)
        #expect(abs(mid.low.frequency - 160) < 1e-9 && abs(mid.high.frequency - 320) < 1e-9)
        #expect(abs(mid.low.amplitude - 0.4) < 1e-9 && abs(mid.high.amplitude - 0.4) < 1e-9)
        // A sweep rises monotonically in pitch, and the total never exceeds the intensity.
        var last = 0.0
        for k in 0...20 {
            let s = Double(k) / 20
            let a = SwitchHDRumble.actuator(intensity: 0.9, sharpness: s)
            #expect(a.low.frequency > last)
            last = a.low.frequency
            #expect(a.low.amplitude + a.high.amplitude <= 0.9 + 1e-12)
        }
        #expect(SwitchHDRumble.actuator(intensity: .nan, sharpness: .infinity).isSilent)
        #expect(SwitchHDRumble.level(0.0001) == 1, "a faint value is felt, not dropped")
    }
}

/// The Xbox Bluetooth rumble report with its trigger motors.
@Suite struct XboxImpulseTriggersTests {
    @Test func theReportCarriesAllFourMotors() {
        #expect(XboxImpulseTriggers.report(.off) == [0x03, 0x0F, 0, 0, 0, 0, 0xFF, 0x00, 0xEB])
        let m = XboxImpulseTriggers.Motors(leftTrigger: 1, rightTrigger: 0.5, strong: 0.25, weak: 0.001)
        #expect(XboxImpulseTriggers.report(m) == [0x03, 0x0F, 100, 50, 25, 1, 0xFF, 0x00, 0xEB])
        #expect(XboxImpulseTriggers.decode(XboxImpulseTriggers.report(m)) == .init(leftTrigger: 1, rightTrigger: 0.5, strong: 0.25, weak: 0.01))
        // hid-microsoft's own handle-only report: the triggers' enable bits are clear.
        #expect(XboxImpulseTriggers.decode([0x03, 0x03, 0x00, 0x00, 40, 60, 0xFF, 0x00, 0xFF]) == .init(strong: 0.4, weak: 0.6))
        #expect(XboxImpulseTriggers.decode([0x02, 0x0F, 1, 1, 1, 1]) == nil)
        let wild = XboxImpulseTriggers.Motors(leftTrigger: .nan, rightTrigger: 7, strong: -1, weak: .infinity)
        #expect(XboxImpulseTriggers.report(wild) == [0x03, 0x0F, 0, 100, 0, 100, 0xFF, 0x00, 0xEB])
    }
}
