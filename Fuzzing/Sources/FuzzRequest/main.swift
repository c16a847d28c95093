import HapticCore
import HapticProtocol

/// One request line as the daemon receives it (bytes decoded as UTF-8 with replacement, as the line
/// framer does): parsed into a request or an error reply, then decoded as every declared command,
/// each answering a value or a protocol error.
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
    for type in Declarations.requestTypes { _ = try? type.decode(request) }
    _ = Command(rawValue: request.command)
    check(Reply.ok(request.id, request.body))
    return 0
}

/// A reply line is one line of JSON that a client reads back.
func check(_ reply: String) {
    guard !reply.contains("\n"), ReplyLine.parse(reply) != nil else { fatalError("unreadable reply: \(reply)") }
}
