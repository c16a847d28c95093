import Glibc
import HapticDaemon
import TOMLKit

/// The configuration reader as `DaemonConfig.load` runs it on a file's bytes: UTF-8 validation, the
/// TOML syntax check (TOMLSyntax), toml++ through TOMLKit, and the key reader. toml++ is built with
/// its assertions enabled (a debug build: NDEBUG undefined), so an input that gets past TOMLSyntax
/// and reaches one of toml++'s failure assertions aborts the fuzzer — that is the proof sought.
///
/// With HAPTICD_FUZZ_RAW_TOML set, inputs go straight to toml++ without the syntax check:
/// scripts/fuzz.sh uses it to show that the assertions are live (`[[[` must abort).
let raw = getenv("HAPTICD_FUZZ_RAW_TOML") != nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
    if raw {
        _ = try? TOMLTable(string: text)
        return 0
    }
    do {
        let config = try DaemonConfig.parse(text)
        // A configuration that parsed is within every range the daemon relies on.
        guard config.tickPeriod >= 0.001, config.limits.maxClients >= 1, config.limits.minRate <= config.limits.maxRate
        else { fatalError("accepted an out-of-range configuration") }
    } catch {
        guard error.description.count < 100_000 else { fatalError("an error message without bound") }
    }
    return 0
}
