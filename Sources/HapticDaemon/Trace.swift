import Glibc
import HapticCore
import HapticProtocol
import NIOConcurrencyHelpers
import SystemPackage

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
        // A pad with a second pair (hidraw: HD rumble, trigger motors) adds its two channels.
        let second = value.hasSecondPair ? ",\(value.third),\(value.fourth)" : ""
        fputs("\(Format.fixed(time, 6)),\(device),\(value.strong),\(value.weak)\(second)\n", f)
        fflush(f)
    }

    public func close() {
        if let f = file { fclose(f) }
        file = nil
    }
}

/// `HAPTICD_RECORD_REQUESTS=FILE` (the bindings check, scripts/bindings-test.sh): appends every request
/// line with its reply's outcome, `ok` or the error code, then a tab; as strict JSON (the daemon reads
/// JSON5 too: a client may splice a JSON5 pattern file in), or as received when it is not JSON at all. Called from every socket thread:
/// each turn is one `write` to a file opened with `O_APPEND`, so daemons and threads that share the file
/// do not interleave within a line. Stops after `limit` bytes.
public final class RequestRecorder: Sendable {
    private let fd: Int32
    private let written = NIOLockedValueBox(0)
    private let limit: Int

    public init?(path: String, limit: Int = 64 << 20) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        self.limit = limit
    }

    deinit { Glibc.close(fd) }

    func record(_ lines: [String], _ replies: [String]) {
        var text = ""
        for (line, reply) in zip(lines, replies) {
            let outcome: String
            switch ReplyLine.parse(reply) {
            case .ok?: outcome = "ok"
            case .failure(_, let code, _, _)?: outcome = code
            default: outcome = "?"
            }
            let json = (try? JSONParser.parse(line)).map { JSONWriter.write($0) } ?? line
            text += outcome + "\t" + json + "\n"
        }
        let bytes = Array(text.utf8)
        let room = written.withLockedValue { total -> Bool in
            guard total + bytes.count <= limit else { return false }
            total += bytes.count
            return true
        }
        guard room else { return }
        _ = try? FileDescriptor(rawValue: fd).writeAll(bytes)  // EINTR retried; a failed trace write is dropped
    }
}
