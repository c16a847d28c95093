import BoundedIO
import HapticCore
import HapticDaemon

/// CPU for voice-coil waveforms: `players` patterns rendered by `WaveformRenderer` at 48 kHz in 5 ms
/// blocks into one mix, softly clipped, for `seconds` of output; returns the percentage of one core
/// (render time over output time). Each player loops its pattern.
func waveformCost(players: Int, seconds: Double, patternDirectory: String) -> Double {
    let names = ["heartbeat", "rumble-long", "sos", "success", "double-click", "thud", "rumble-short", "tick"]
    var patterns: [CompiledPattern] = []
    for k in 0..<players {
        let path = patternDirectory + "/" + names[k % names.count] + ".ahap"
        guard case .success(let bytes) = readFile(path, limit: 16 << 20), let loaded = try? PatternLoader.load(bytes: bytes) else { continue }
        patterns.append(CompiledPattern(loaded.pattern))
    }
    guard !patterns.isEmpty else { return .nan }
    let rate = 48_000.0
    let renderer = WaveformRenderer(sampleRate: rate)
    let block = 240
    var mix = [Double](repeating: 0, count: block)
    var states = [WaveformRenderer.State](repeating: .init(), count: patterns.count)
    var sink = 0.0
    let blocks = Int(seconds * rate) / block
    let c0 = cpuSeconds()
    for b in 0..<blocks {
        for i in 0..<block { mix[i] = 0 }
        let t = Double(b * block) / rate
        for (i, p) in patterns.enumerated() {
            let length = max(p.renderEnd, 0.5)
            renderer.render(p, from: t.truncatingRemainder(dividingBy: length), count: block, into: &mix, state: &states[i])
        }
        for i in 0..<block { sink += WaveformRenderer.softClip(mix[i]) }
    }
    let used = cpuSeconds() - c0
    if sink.isNaN { print("") }  // keeps the work observable
    return used / seconds * 100
}
