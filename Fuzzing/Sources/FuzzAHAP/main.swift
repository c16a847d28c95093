import HapticCore

/// The AHAP loader on arbitrary bytes: an error list or a pattern, never a trap. A pattern that
/// loaded is written back and must load again to the same pattern, and compiles for a pad, with its
/// signal sampled at a few points (the renderer sees every pattern the loader lets through).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAHAP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let loaded = try? AHAPLoader.load(bytes: bytes) else { return 0 }
    let text = AHAPWriter.text(loaded.pattern)
    let again: LoadedPattern
    do {
        again = try AHAPLoader.load(text: text)
    } catch {
        fatalError("a loaded pattern, written back, does not load: \(error)\n\(text)")
    }
    guard again.pattern == loaded.pattern else { fatalError("load(write(p)) != p:\n\(text)") }
    let compiled = CompiledPattern(loaded.pattern)
    guard compiled.duration.isFinite, compiled.renderEnd.isFinite else { fatalError("non-finite duration:\n\(text)") }
    for k in 0...8 {
        let signal = compiled.frame(at: compiled.renderEnd * Double(k) / 8)
        _ = signal
    }
    return 0
}
