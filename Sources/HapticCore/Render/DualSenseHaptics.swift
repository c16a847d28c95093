/// The DualSense's voice-coil actuators over Bluetooth: output report `0x32` on the pad's hidraw node,
/// carrying 32 stereo frames of signed 8-bit samples at 3 kHz (10.67 ms) beside a state sub-packet,
/// sealed with the Bluetooth output CRC32 (docs/devices.md, "DualSense voice coils").
///
/// Layout (142 bytes): `32`, then `seq << 4 | tag` (tag 0), then sub-packets each `id | 0x80`
/// (sized) and a length: `0x11` (7 bytes: `FE 00 00 00 00 FF n`, n counting reports) and `0x12`
/// (64 bytes: left, right, left, right, … samples), zeros, and the CRC32 of the seed byte `0xA2`
/// followed by bytes 0…137, little-endian in bytes 138…141 — as hid-playstation seals its own
/// Bluetooth output reports.
///
/// Pure: no I/O; the transport writes what `report` returns.
public enum DualSenseBluetoothHaptics {
    public static let reportID: UInt8 = 0x32
    public static let reportLength = 142
    public static let sampleRate = 3_000.0
    /// Stereo frames per report: 64 samples, left and right interleaved.
    public static let framesPerReport = 32
    /// How often a report is due: one report's frames at 3 kHz.
    public static let reportInterval = Double(framesPerReport) / sampleRate

    /// One report: `frames` (left, right) in −1…1, quantized to signed 8 bits (exactly
    /// `framesPerReport` are used; missing ones are silence), sequence number and counter (low bits).
    public static func report(frames: [(Double, Double)], sequence: UInt8, counter: UInt8) -> [UInt8] {
        var r = [UInt8](repeating: 0, count: reportLength)
        r[0] = reportID
        r[1] = (sequence & 0x0F) << 4
        let state: [UInt8] = [0x91, 7, 0xFE, 0, 0, 0, 0, 0xFF, counter]
        r.replaceSubrange(2..<(2 + state.count), with: state)
        var i = 2 + state.count
        r[i] = 0x92
        r[i + 1] = UInt8(framesPerReport * 2)
        i += 2
        for k in 0..<framesPerReport {
            let (l, rr) = k < frames.count ? frames[k] : (0, 0)
            r[i + 2 * k] = UInt8(bitPattern: int8(l))
            r[i + 2 * k + 1] = UInt8(bitPattern: int8(rr))
        }
        let crc = crc32(seed: 0xA2, r[0..<(reportLength - 4)])
        for b in 0..<4 { r[reportLength - 4 + b] = UInt8((crc >> (8 * UInt32(b))) & 0xFF) }
        return r
    }

    /// Reads a report back (the tests' emulated pad): its sequence number and samples as (left,
    /// right) in −1…1; nil when it is not a haptics report or its CRC is wrong.
    public static func decode(_ bytes: some Collection<UInt8>) -> (sequence: UInt8, frames: [(Double, Double)])? {
        let r = Array(bytes)
        guard r.count == reportLength, r[0] == reportID else { return nil }
        let crc = crc32(seed: 0xA2, r[0..<(reportLength - 4)])
        let stored = (0..<4).reduce(UInt32(0)) { $0 | UInt32(r[reportLength - 4 + $1]) << (8 * UInt32($1)) }
        guard crc == stored else { return nil }
        // Walk the sub-packets to the samples.
        var i = 2
        while i + 1 < reportLength - 4 {
            let id = r[i] & 0x3F, length = Int(r[i + 1])
            guard r[i] & 0x80 != 0, i + 2 + length <= reportLength - 4 else { return nil }
            if id == 0x12 {
                let frames = stride(from: 0, to: length - 1, by: 2).map { k in
                    (Double(Int8(bitPattern: r[i + 2 + k])) / 127, Double(Int8(bitPattern: r[i + 3 + k])) / 127)
                }
                return (r[1] >> 4, frames)
            }
            i += 2 + length
        }
        return nil
    }

    /// A sample in −1…1 as signed 8 bits (saturating; NaN is 0).
    static func int8(_ x: Double) -> Int8 {
        guard !x.isNaN else { return 0 }
        return Int8((min(max(x, -1), 1) * 127).rounded())
    }

    /// CRC-32 (IEEE, reflected) of `seed` followed by `bytes`.
    public static func crc32(seed: UInt8, _ bytes: some Collection<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        func feed(_ b: UInt8) {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        feed(seed)
        for b in bytes { feed(b) }
        return ~crc
    }
}
