/// The DualSense's USB audio stream (docs/rendering.md §13, issue 25): 4 channels at 48 kHz, signed
/// 16-bit; channels 1–2 are the speaker or headphones, 3–4 the left and right voice-coil actuators.
public enum DualSenseAudio {
    public static let channels = 4
    public static let rate = 48_000

    /// The ALSA name of a card's first playback device.
    public static func device(card: Int) -> String { "hw:CARD=\(card),DEV=0" }

    /// Interleaved frames with `left` on channel 3 and `right` on channel 4 (samples −1…1, scaled to
    /// 16 bits, saturating; NaN is silence) and channels 1–2 silent. The shorter side is padded with
    /// silence.
    public static func frames(left: [Float], right: [Float]) -> [Int16] {
        let count = max(left.count, right.count)
        var out = [Int16](repeating: 0, count: count * channels)
        for i in 0..<count {
            out[i * channels + 2] = sample(i < left.count ? left[i] : 0)
            out[i * channels + 3] = sample(i < right.count ? right[i] : 0)
        }
        return out
    }

    static func sample(_ x: Float) -> Int16 {
        guard !x.isNaN else { return 0 }
        return Int16((min(max(x, -1), 1) * 32767).rounded())
    }
}
