import HapticCore

/// The pattern loader on arbitrary bytes, as files and inline patterns reach it (`PatternLoader`,
/// format detected from the content: AHAP or a `.haptic` clip): an error list or a pattern, never a
/// trap. A pattern that loaded is written out as AHAP and must load again: to the same pattern when
/// it came from AHAP (the writer's promise), to a pattern when it came from a `.haptic` clip (whose
/// envelopes AHAP expresses as curves). It then compiles for a pad, with its signal sampled at a few
/// points (the renderer sees every pattern the loader lets through).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAHAP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let loaded = try? PatternLoader.load(bytes: bytes) else { return 0 }
    let isAHAP = (try? JSONParser.parse(bytes)).map { PatternLoader.detect($0) == .ahap } ?? true
    let text = AHAPWriter.text(loaded.pattern)
    let again: LoadedPattern
    do {
        again = try AHAPLoader.load(text: text)
    } catch {
        fatalError("a loaded pattern, written as AHAP, does not load: \(error)\n\(text)")
    }
    if isAHAP { guard again.pattern == loaded.pattern else { fatalError("load(write(p)) != p:\n\(text)") } }
    for pattern in isAHAP ? [loaded.pattern] : [loaded.pattern, again.pattern] {
        let compiled = CompiledPattern(pattern)
        guard compiled.duration.isFinite, compiled.renderEnd.isFinite else { fatalError("non-finite duration:\n\(text)") }
        for k in 0...8 {
            let signal = compiled.frame(at: compiled.renderEnd * Double(k) / 8)
            guard signal.intensity.isFinite, signal.sharpness.isFinite else { fatalError("non-finite signal at \(k)/8:\n\(text)") }
        }
    }
    return 0
}
