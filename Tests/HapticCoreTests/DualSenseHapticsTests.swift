import Testing
@testable import HapticCore

/// DualSense Bluetooth haptics report 0x32: layout, CRC as hid-playstation computes it, round trip.
@Suite struct DualSenseHapticsTests {
    @Test func theCRCIsTheBluetoothOutputCRC() {
        // The seed byte 0xA2 leaves the CRC state at ~0xEADA2D49 (hid-playstation's own constant).
        var crc: UInt32 = 0xFFFF_FFFF
        crc ^= 0xA2
        for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        #expect(crc == ~UInt32(0xEADA_2D49))
        // And the whole CRC over nothing but the seed is that state inverted.
        #expect(DualSenseBluetoothHaptics.crc32(seed: 0xA2, [UInt8]()) == 0xEADA_2D49)
        // Check value of CRC-32/IEEE: "123456789" without a seed → CBF43926 (same polynomial).
        var plain: UInt32 = 0xFFFF_FFFF
        for b in Array("123456789".utf8) {
            plain ^= UInt32(b)
            for _ in 0..<8 { plain = (plain >> 1) ^ (0xEDB8_8320 & (0 &- (plain & 1))) }
        }
        #expect(~plain == 0xCBF4_3926)
    }

    @Test func aReportCarriesItsSamplesAndSurvivesTheRoundTrip() {
        let frames = (0..<32).map { k in (Double(k) / 31, -Double(k) / 31) }
        let r = DualSenseBluetoothHaptics.report(frames: frames, sequence: 0x1A, counter: 7)
        #expect(r.count == 142 && r[0] == 0x32 && r[1] == 0xA0)
        #expect(Array(r[2..<11]) == [0x91, 7, 0xFE, 0, 0, 0, 0, 0xFF, 7])
        #expect(r[11] == 0x92 && r[12] == 64)
        let back = DualSenseBluetoothHaptics.decode(r)
        #expect(back?.sequence == 0x0A)
        #expect(back?.frames.count == 32)
        for (a, b) in zip(frames, back?.frames ?? []) {
            #expect(abs(a.0 - b.0) <= 0.5 / 127 + 1e-12 && abs(a.1 - b.1) <= 0.5 / 127 + 1e-12)
        }
        var corrupt = r
        corrupt[40] ^= 1
        #expect(DualSenseBluetoothHaptics.decode(corrupt) == nil, "a wrong CRC is refused")
        #expect(DualSenseBluetoothHaptics.decode(r.dropLast()) == nil)
    }

    @Test func samplesSaturateAndShortInputIsSilence() {
        let r = DualSenseBluetoothHaptics.report(frames: [(.nan, 7), (-9, .infinity)], sequence: 0, counter: 0)
        let f = DualSenseBluetoothHaptics.decode(r)!.frames
        #expect(f[0].0 == 0 && f[0].1 == 1 && f[1].0 == -1 && f[1].1 == 1)
        #expect(f[2...].allSatisfy { $0.0 == 0 && $0.1 == 0 })
        #expect(abs(DualSenseBluetoothHaptics.reportInterval - 0.010_667) < 1e-6)
    }
}
