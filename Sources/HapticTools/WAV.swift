import HapticCore

extension Offline {
    /// `render --format wav`: the voice-coil actuators' waveforms (`WaveformRenderer`) as a 16-bit
    /// stereo WAV — left and right actuator — at `sampleRate`, through the window's `from`…end (its
    /// `step` is unused), routed by `locality`. Streamed in blocks: `write` receives the header, then
    /// pieces of about 20 KB. The sample count is bounded by the window's `maximumSamples`.
    public static func wav(
        _ compiled: CompiledPattern, _ window: Window, sampleRate: Int = 48_000, locality: Locality = .default,
        write: ([UInt8]) -> Void
    ) throws(RenderError) {
        let count = try wavFrames(compiled, window, sampleRate: sampleRate, locality: locality)
        let gains = locality.actuatorGains ?? (1, 1)
        write(wavHeader(frames: count, sampleRate: sampleRate))
        let renderer = WaveformRenderer(sampleRate: Double(sampleRate))
        var state = WaveformRenderer.State()
        let block = 4_800
        var mono = [Double](repeating: 0, count: block)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(block * 4)
        var done = 0
        while done < count {
            let n = min(block, count - done)
            for i in 0..<n { mono[i] = 0 }
            renderer.render(compiled, from: window.from + Double(done) / Double(sampleRate), count: n, into: &mono, state: &state)
            bytes.removeAll(keepingCapacity: true)
            for i in 0..<n {
                let y = WaveformRenderer.softClip(mono[i])
                for g in [gains.left, gains.right] { append(pcm16(y * g), to: &bytes) }
            }
            write(bytes)
            done += n
        }
    }

    /// The frames `wav` writes, or the reason it refuses (checked before an output file is made).
    public static func wavFrames(_ compiled: CompiledPattern, _ window: Window, sampleRate: Int, locality: Locality) throws(RenderError) -> Int {
        guard (8_000...192_000).contains(sampleRate) else { throw RenderError("the sample rate must be 8000–192000 Hz") }
        guard locality.actuatorGains != nil else { throw RenderError("\(locality.rawValue) has no voice-coil actuator") }
        let seconds = window.end(compiled) - window.from
        guard seconds.isFinite, seconds >= 0 else { throw RenderError("the window is empty") }
        let frames = (seconds * Double(sampleRate)).rounded(.up)
        guard frames <= Double(window.maximumSamples) else {
            throw RenderError("rendering \(Format.fixed(seconds, 3)) s at \(sampleRate) Hz takes \(frames < 9e15 ? String(Int(frames)) : "too many") samples, over the limit of \(window.maximumSamples): choose a window with --from/--to or raise --max-samples")
        }
        return Int(frames)
    }

    /// A 44-byte RIFF/WAVE header for 16-bit PCM, two channels.
    static func wavHeader(frames: Int, sampleRate: Int) -> [UInt8] {
        let data = UInt32(clamping: frames * 4)
        var h: [UInt8] = Array("RIFF".utf8)
        le32(36 &+ data, &h)
        h += Array("WAVEfmt ".utf8)
        le32(16, &h)
        le16(1, &h)  // PCM
        le16(2, &h)  // channels: left, right actuator
        le32(UInt32(sampleRate), &h)
        le32(UInt32(sampleRate * 4), &h)
        le16(4, &h)
        le16(16, &h)
        h += Array("data".utf8)
        le32(data, &h)
        return h
    }

    static func pcm16(_ x: Double) -> Int16 {
        guard x.isFinite else { return 0 }
        return Int16((min(max(x, -1), 1) * 32767).rounded())
    }

    static func append(_ v: Int16, to bytes: inout [UInt8]) { le16(UInt16(bitPattern: v), &bytes) }
    static func le16(_ v: UInt16, _ out: inout [UInt8]) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32, _ out: inout [UInt8]) { out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
}
