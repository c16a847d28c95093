import HapticCore
import HapticProtocol

/// One request line as the daemon receives it (bytes decoded as UTF-8 with replacement, as the line
/// framer does): parsed into a request or an error reply, and every typed accessor the commands use
/// applied to it, each answering a value or a `bad_request`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let request: Request
    do {
        request = try Request.parse(line)
    } catch {
        check(Reply.error(error.id, error.error))
        return 0
    }
    for key in ["player", "device", "gain", "rate", "offset", "loop_end", "at", "after"] {
        _ = try? request.number(key)
        _ = try? request.integer(key)
    }
    for key in ["name", "parameter"] { _ = try? request.string(key) }
    for key in ["loop", "muted", "advanced"] { _ = try? request.bool(key) }
    for now in [0.0, 12.5, 1e9] { _ = try? request.time(now: now) }
    _ = Command(rawValue: request.command)
    check(Reply.ok(request.id, request.body))
    return 0
}

/// A reply line is one line of JSON that a client reads back.
func check(_ reply: String) {
    guard !reply.contains("\n"), ReplyLine.parse(reply) != nil else { fatalError("unreadable reply: \(reply)") }
}
