import RealModule

/// Nintendo Switch HD rumble (Pro Controller, Joy-Cons): each of the pad's two linear resonant
/// actuators is driven by two oscillators, a high band (about 82–1253 Hz) and a low band (about
/// 41–626 Hz), each with its own frequency and amplitude, packed into 4 bytes; output report `0x10`
/// carries a packet counter and the left and right actuators (docs/rendering.md, "HD rumble").
///
/// The encoding, as hid-nintendo and the pad's public reverse engineering define it:
/// - a frequency is coded in 1/32-octave steps, `code = round(32·log2(f / 10 Hz))`; the high band
///   takes codes 0x61…0xDF as `hf = (code − 0x60)·4` (9 bits, little-endian over bytes 0–1), the low
///   band codes 0x41…0xBF as `lf = code − 0x40` (7 bits, byte 2);
/// - an amplitude is one of 101 levels `e` (0…100): byte 1 adds `2e` (high band), byte 2's top bit
///   is the low band's `e & 1` and byte 3 is `e / 2 + 0x40`. The level's strength is
///   `amplitudeTable[e]` / 1000, rising in three logarithmic segments (below).
///
/// Pure: no I/O. Inputs saturate into range (NaN reads as 0): a bad value never traps.
public enum SwitchHDRumble {
    /// One oscillator: a frequency (Hz) and an amplitude (0…1).
    public struct Band: Equatable, Sendable {
        public var frequency: Double
        public var amplitude: Double
        public init(frequency: Double, amplitude: Double) {
            self.frequency = frequency
            self.amplitude = amplitude
        }
    }

    /// One actuator's two oscillators.
    public struct Actuator: Equatable, Sendable {
        public var high: Band
        public var low: Band
        public init(high: Band, low: Band) {
            self.high = high
            self.low = low
        }

        /// Silent, at the bands' resting frequencies (320 Hz high, 160 Hz low): `00 01 40 40`,
        /// the pad's "neutral" value.
        public static let off = Actuator(high: Band(frequency: 320, amplitude: 0), low: Band(frequency: 160, amplitude: 0))

        public var isSilent: Bool { SwitchHDRumble.level(high.amplitude) == 0 && SwitchHDRumble.level(low.amplitude) == 0 }
    }

    /// The frequencies each band can code (Hz): code 0x61…0xDF and 0x41…0xBF.
    public static let highBand: ClosedRange<Double> = frequency(code: 0x61)...frequency(code: 0xDF)
    public static let lowBand: ClosedRange<Double> = frequency(code: 0x41)...frequency(code: 0xBF)

    /// The strength of each amplitude level, in thousandths: hid-nintendo's `joycon_rumble_amplitudes`
    /// column (from the pad's reverse engineering), close to `2^(e/4)/120` below level 16, `2^(e/16)/17`
    /// below 32 and `2^(e/32)/8.7` from 32 to 100.
    public static let amplitudeTable: [UInt16] = [
        0, 10, 12, 14, 17, 20, 24, 28, 33, 40, 47, 56, 67, 80, 95, 112, 117, 123, 128, 134,
        140, 146, 152, 159, 166, 173, 181, 189, 198, 206, 215, 225, 230, 235, 240, 245, 251, 256, 262, 268,
        273, 279, 286, 292, 298, 305, 311, 318, 325, 332, 340, 347, 355, 362, 370, 378, 387, 395, 404, 413,
        422, 431, 440, 450, 460, 470, 480, 491, 501, 512, 524, 535, 547, 559, 571, 584, 596, 609, 623, 636,
        650, 665, 679, 694, 709, 725, 741, 757, 773, 790, 808, 825, 843, 862, 881, 900, 920, 940, 960, 981,
        1003,
    ]

    /// The frequency (Hz) of a 1/32-octave code.
    public static func frequency(code: Int) -> Double { 10 * pow2(Double(code) / 32) }

    /// The code of the step nearest `frequency`, within `band`'s codes.
    static func code(_ frequency: Double, in band: ClosedRange<Int>) -> Int {
        guard frequency.isFinite, frequency > 0 else { return band.lowerBound }
        let c = (32 * log2(frequency / 10)).rounded()
        return c <= Double(band.lowerBound) ? band.lowerBound : c >= Double(band.upperBound) ? band.upperBound : Int(c)
    }

    /// The amplitude level (0…100) whose strength is nearest `amplitude` (0…1); any amplitude above 0
    /// gets at least level 1, so a faint value is felt, not dropped.
    public static func level(_ amplitude: Double) -> Int {
        guard amplitude.isFinite, amplitude > 0 else { return 0 }
        let target = min(amplitude, 1.003) * 1000
        var best = 1
        for e in 1...100 where abs(Double(amplitudeTable[e]) - target) < abs(Double(amplitudeTable[best]) - target) { best = e }
        return best
    }

    /// The 4 bytes of one actuator.
    public static func encode(_ actuator: Actuator) -> [UInt8] {
        let hf = (code(actuator.high.frequency, in: 0x61...0xDF) - 0x60) * 4
        let lf = code(actuator.low.frequency, in: 0x41...0xBF) - 0x40
        let eh = level(actuator.high.amplitude)
        let el = level(actuator.low.amplitude)
        return [UInt8(hf & 0xFF), UInt8((hf >> 8) + 2 * eh), UInt8(lf | ((el & 1) << 7)), UInt8(el / 2 + 0x40)]
    }

    /// Reads 4 bytes back (the emulated pads of the tests decode what reaches them); nil when they are
    /// not a valid encoding.
    public static func decode(_ bytes: some Collection<UInt8>) -> Actuator? {
        let b = Array(bytes)
        guard b.count == 4 else { return nil }
        let hf = Int(b[0]) | (Int(b[1] & 1) << 8)
        let eh = Int(b[1] >> 1)
        let lf = Int(b[2] & 0x7F)
        guard b[3] >= 0x40 else { return nil }
        let el = (Int(b[3]) - 0x40) * 2 + Int(b[2] >> 7)
        guard hf % 4 == 0, eh <= 100, el <= 100 else { return nil }
        let hcode = hf / 4 + 0x60, lcode = lf + 0x40
        return Actuator(high: Band(frequency: frequency(code: hcode), amplitude: Double(amplitudeTable[eh]) / 1000),
                        low: Band(frequency: frequency(code: lcode), amplitude: Double(amplitudeTable[el]) / 1000))
    }

    /// Output report `0x10` (rumble only): id, packet counter (low 4 bits), left actuator, right.
    public static func report(counter: UInt8, left: Actuator, right: Actuator) -> [UInt8] {
        [0x10, counter & 0x0F] + encode(left) + encode(right)
    }

    // MARK: from Core Haptics' intensity and sharpness

    /// The fundamental for a sharpness (0…1): two octaves from 80 Hz (dull) to 320 Hz (sharp), evenly
    /// spaced in pitch, as frequency is felt: `80 · 4^sharpness` Hz.
    public static func fundamental(sharpness: Double) -> Double {
        80 * pow2(2 * clamp01(sharpness))
    }

    /// An actuator for an intensity and a sharpness (each 0…1): the low band plays the fundamental
    /// with `intensity·(1 − sharpness)`, the high band its octave with `intensity·sharpness`. Dull
    /// content is a pure low tone (80 Hz), sharp content a pure high one (640 Hz); half sharpness is
    /// 160 Hz and 320 Hz at half strength each — the carriers hid-nintendo itself uses. The two
    /// amplitudes sum to the intensity, never above 1 (the pad's documented safe total).
    public static func actuator(intensity: Double, sharpness: Double) -> Actuator {
        let i = clamp01(intensity), s = clamp01(sharpness)
        let f = fundamental(sharpness: s)
        return Actuator(high: Band(frequency: 2 * f, amplitude: i * s), low: Band(frequency: f, amplitude: i * (1 - s)))
    }

    // MARK: helpers

    static func clamp01(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }
    static func pow2(_ x: Double) -> Double { Double.exp2(x) }
    static func log2(_ x: Double) -> Double { Double.log2(x) }
}
