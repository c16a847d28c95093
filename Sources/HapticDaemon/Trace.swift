import Glibc
import HapticCore

/// `--trace FILE`: appends `time,device,strong,weak` for every device write (monotonic seconds).
/// Used only under the render loop's lock.
public final class TraceWriter: @unchecked Sendable {
    // @unchecked Sendable: `file` is written only under the render loop's lock (from loop events).
    private var file: UnsafeMutablePointer<FILE>?

    public init(path: String) throws(ConfigError) {
        guard let f = fopen(path, "a") else { throw ConfigError("--trace", "cannot open \(path) for appending") }
        file = f
        if ftell(f) == 0 { fputs("time,device,strong,weak\n", f) }
        fflush(f)
    }

    func record(time: Double, device: PadID, value: MotorMagnitudes) {
        guard let f = file else { return }
        fputs("\(Format.fixed(time, 6)),\(device),\(value.strong),\(value.weak)\n", f)
        fflush(f)
    }

    public func close() {
        if let f = file { fclose(f) }
        file = nil
    }
}
