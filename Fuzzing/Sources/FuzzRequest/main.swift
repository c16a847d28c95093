import HapticCore
import HapticProtocol

/// One request line as the daemon receives it (bytes decoded as UTF-8 with replacement, as the line
/// framer does): parsed into a request or an error reply, then decoded as every declared command,
/// each answering a value or a protocol error. A line the write-ahead scanner reads (`RumbleLine`)
/// must parse, and decode to what the scanner read (or be refused for values a rumble cannot take).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let scanned = RumbleLine.scan(line)
    let request: Request
    do {
        request = try Request.parse(line)
    } catch {
        if scanned != nil { fatalError("RumbleLine read a line the parser refuses: \(line)") }
        check(Reply.error(error.id, error.error))
        return 0
    }
    if let scanned {
        if let r = try? RumbleRequest.decode(request) {
            let decoded = RumbleLine(device: r.placement.target.device, locality: r.placement.target.locality, strong: r.strong,
                                     weak: r.weak, duration: r.duration)
            guard decoded == scanned, r.delay == 0, r.placement.priority == nil else {
                fatalError("RumbleLine read \(scanned), decoding \(decoded): \(line)")
            }
        } else if (0...1).contains(scanned.strong) && (0...1).contains(scanned.weak) && (scanned.duration ?? 1) > 0
                    && (scanned.duration != nil || (scanned.strong == 0 && scanned.weak == 0)) {
            fatalError("decoding refuses a line RumbleLine read with values a rumble takes: \(line)")
        }
    }
    for type in Declarations.requestTypes { _ = try? type.decode(request) }
    _ = Command(rawValue: request.command)
    check(Reply.ok(request.id, request.body))
    return 0
}

/// A reply line is one line of JSON that a client reads back.
func check(_ reply: String) {
    guard !reply.contains("\n"), ReplyLine.parse(reply) != nil else { fatalError("unreadable reply: \(reply)") }
}
