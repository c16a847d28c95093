import BoundedIO
import Dispatch
import Glibc
import Synchronization
import HapticCore
import HapticProtocol
import SystemPackage

/// The socket, the requests waiting for their replies, and the thread that reads (see `HapticClient`).
///
/// `@unchecked Sendable`: `state` is read and written only while `monitor` is held; `fd` is set once
/// (in `init`) and closed only in `deinit`, when neither the client nor the reader thread (which
/// holds a reference until it returns) can use it any more.
final class ClientConnection: @unchecked Sendable {
    /// A request sent and not yet answered: what to do with its reply.
    private enum Slot {
        case request(id: Int, completion: @Sendable (Result<ReplyLine, ClientError>) -> Void)
        /// A line of `raw` text: its reply goes to `rawReplies` as written.
        case raw
    }

    private struct State {
        var open = true
        /// Why the connection ended (set once).
        var ended: ClientError?
        var closedByUser = false
        /// A write failed (`fail`): no more requests, while the reader thread ends the connection.
        var writeFailed = false
        var pending: [Slot] = []
        var pendingHead = 0
        var nextID = 1
        var events: [JSONObject] = []
        var eventsDropped = 0
        var rawReplies: [String] = []
        var eventHandler: (@Sendable (JSONObject) -> Void)?
        var disconnectHandler: (@Sendable (ClientError) -> Void)?
        var terminations: [@Sendable () -> Void] = []
        /// The daemon's refusal (an error line without an id, then the end: not allowed, over a connection
        /// limit), while it is the last line read.
        var refusal: ClientError?
        /// Tests only: called with a piece's index after it is written, holding no lock but the
        /// upload lock.
        var afterPiece: (@Sendable (Int) -> Void)?

        var pendingCount: Int { pending.count - pendingHead }
        /// Places held for the lines of requests sent in pieces, not yet queued.
        var reserved = 0

        mutating func popSlot() -> Slot? {
            guard pendingHead < pending.count else { return nil }
            let slot = pending[pendingHead]
            pendingHead += 1
            if pendingHead > 64 && pendingHead * 2 > pending.count {
                pending.removeFirst(pendingHead)
                pendingHead = 0
            }
            return slot
        }
    }

    private let fd: Int32
    private let path: String
    private let monitor = Monitor()
    private var state = State()
    /// Serialises writers, so that slots are queued in the order their lines are written.
    private let writeLock = Monitor()
    /// Held by a request sent in pieces from its first piece to the request itself (taken before
    /// `writeLock`): one upload at a time on the connection, as the daemon's `limits.max_uploads`
    /// would otherwise refuse the fifth of several threads' long patterns at once.
    private let uploadLock = Monitor()
    /// The longest line read from the daemon.
    static let maximumReadLine = 16 << 20

    init(path: String) throws(ClientError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io("socket: \(String(cString: strerror(errno)))") }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else {
            Glibc.close(fd)
            throw .notRunning(path: path, reason: "the socket path is longer than a Unix socket address holds")
        }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        // Non-blocking from the start: a Unix socket's connect blocks, without a bound, while the
        // daemon's queue of connections not yet accepted is full (a daemon that hangs); without
        // blocking it says EAGAIN at once, and is tried again for `connectPatience` seconds.
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var r: Int32
        let deadline = Self.now() + Self.connectPatience
        repeat {
            r = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if r != 0 && errno == EAGAIN {
                if Self.now() >= deadline {
                    Glibc.close(fd)
                    throw .timeout
                }
                usleep(5_000)  // a full queue gives no event to wait on; retried within the bound
                continue
            }
        } while r != 0 && (errno == EINTR || errno == EAGAIN)
        if r != 0 {
            let e = errno
            Glibc.close(fd)
            let reason = switch e {
            case ENOENT: "no such socket"
            case ECONNREFUSED: "connection refused"
            case EACCES: "permission denied: the socket belongs to another user or group (see socket.group in hapticd.toml)"
            default: String(cString: strerror(e))
            }
            throw .notRunning(path: path, reason: reason)
        }
        self.fd = fd
        startReader()
    }

    deinit { Glibc.close(fd) }

    /// How long connecting waits while hapticd's queue of connections is full (seconds).
    static let connectPatience = 2.0

    var isOpen: Bool { monitor.locked { state.open && !state.closedByUser && !state.writeFailed } }

    /// Tests only: requests waiting for their replies and places held for lines not yet sent.
    var heldPlaces: Int { monitor.locked { state.pendingCount + state.reserved } }

    /// Tests only (`State.afterPiece`).
    func afterEachPiece(_ hook: (@Sendable (Int) -> Void)?) { monitor.locked { state.afterPiece = hook } }

    /// Ends the connection from this side: the reader thread wakes, fails what waits, and closes.
    func close(_ why: String) {
        let first = monitor.locked { () -> Bool in
            guard state.open, !state.closedByUser else { return false }
            state.closedByUser = true
            if state.ended == nil { state.ended = .disconnected(why) }
            return true
        }
        if first { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    // MARK: sending

    /// The JSON path of the first number in `body` that is not finite (`rate`, `parameters.intensity`,
    /// `pattern.Pattern[3].Event.Time`, with its value), or nil.
    static func nonFiniteNumber(in body: JSONObject) -> String? {
        // A plain walk first: every request pays it (a song-length pattern's hundred thousand
        // numbers too), the path is made only for the one that fails.
        func anyNonFinite(_ value: JSONValue) -> Bool {
            switch value {
            case .number(let x): return !x.isFinite
            case .array(let items): return items.contains(where: anyNonFinite)
            case .object(let o): return o.members.contains { anyNonFinite($0.value) }
            case .null, .bool, .string: return false
            }
        }
        guard body.members.contains(where: { anyNonFinite($0.value) }) else { return nil }
        func find(_ value: JSONValue, _ path: String) -> String? {
            switch value {
            case .number(let x): return x.isFinite ? nil : "\(path) (\(x))"
            case .array(let items):
                for (i, item) in items.enumerated() { if let p = find(item, "\(path)[\(i)]") { return p } }
                return nil
            case .object(let o):
                for m in o.members { if let p = find(m.value, path.isEmpty ? m.key : "\(path).\(m.key)") { return p } }
                return nil
            case .null, .bool, .string: return nil
            }
        }
        return find(.object(body), "")
    }

    func send(
        _ command: String, _ body: JSONObject, timeout: Double, completion: @escaping @Sendable (Result<ReplyLine, ClientError>) -> Void
    ) throws(ClientError) {
        // JSON has no form for NaN or an infinity (the writer would make it `null`, which the daemon
        // reads as "not given": a `rate` of NaN would play at the default rate).
        if let refusal = HapticClient.refusal(of: body) { throw refusal }
        // A pattern too long to go inline goes first, in pieces (`pattern.upload`), and the request
        // names it: a line is bounded by the daemon's `limits.max_line_bytes`, a pattern only by
        // its `limits.max_upload_bytes`.
        // (Written once: inline below when it is short enough.)
        var patternText: [UInt8]?
        if let pattern = body["pattern"] {
            var text: [UInt8] = []
            JSONWriter.append(pattern, to: &text)
            patternText = text
        }
        let pieces = (patternText?.count ?? 0) > HapticClient.inlinePatternBytes
            ? Self.pieces(of: patternText!, at: HapticClient.uploadPieceBytes) : []
        // The pieces' outcome: the first failure among them is the request's (their replies come
        // first, in order).
        let uploadFailure = UploadFailure()
        let pieceDone: @Sendable (Result<ReplyLine, ClientError>) -> Void = { uploadFailure.note($0) }
        var final = completion
        if !pieces.isEmpty {
            final = { (outcome: Result<ReplyLine, ClientError>) -> Void in
                if let failure = uploadFailure.first {
                    completion(Result<ReplyLine, ClientError>.failure(failure))
                } else {
                    completion(outcome)
                }
            }
        }
        let whenAnswered = final
        if pieces.isEmpty {
            try sendLine(command, body, nil, patternText, timeout, whenAnswered)
            return
        }
        // Each piece under the write lock on its own, so that another thread's request on this
        // connection (a CoreHaptics engine shares one) goes out between two pieces rather than after
        // the whole pattern; the upload lock keeps one upload at a time. Places for all of the call's
        // lines are held from the start (`State.reserved`).
        var unanswered: ClientError?
        try uploadLock.lockedThrowing { () throws(ClientError) in
            var held = pieces.count + 1
            try monitor.lockedThrowing { () throws(ClientError) in
                try requireOpen()
                try requireRoom(for: held)
                state.reserved += held
            }
            defer { if held > 0 { monitor.locked { state.reserved -= held } } }
            var upload = 0
            var queued = false
            for (n, piece) in pieces.enumerated() {
                // A piece refused (its reply read already): the rest would be refused too. The
                // request below still names the upload, so that the daemon frees it (a failed upload
                // is kept until a request takes it), and its completion hears the piece's failure.
                if n > 0, uploadFailure.first != nil { break }
                do throws(ClientError) {
                    try writeLock.lockedThrowing { () throws(ClientError) in
                        let id = try monitor.lockedThrowing { () throws(ClientError) -> Int in
                            try requireOpen()
                            let id = state.nextID
                            state.nextID &+= 1
                            state.pending.append(.request(id: id, completion: pieceDone))
                            state.reserved -= 1
                            held -= 1
                            queued = true
                            return id
                        }
                        if n == 0 { upload = id }
                        var line: [UInt8] = []
                        line.reserveCapacity(piece.utf8.count + piece.utf8.count / 4 + 64)
                        line.append(contentsOf: #"{"id":"#.utf8)
                        JSONWriter.append(.number(Double(id)), to: &line)
                        line.append(contentsOf: #","cmd":"pattern.upload","upload":"#.utf8)
                        JSONWriter.append(.number(Double(upload)), to: &line)
                        line.append(contentsOf: #","text":"#.utf8)
                        JSONWriter.append(string: piece, to: &line)
                        line.append(contentsOf: "}\n".utf8)
                        try write(bytes: &line, timeout: timeout)
                    }
                } catch {
                    // Nothing queued yet: not sent at all, thrown. Else the connection has ended (a
                    // failed write ends it): the request is answered with its end, as a request
                    // whose own line failed — queued unsent, answered by the reader thread, or here
                    // when it has ended already.
                    if !queued { throw error }
                    unanswered = monitor.locked { () -> ClientError? in
                        guard state.open else { return state.ended ?? error }
                        state.pending.append(.request(id: state.nextID, completion: whenAnswered))
                        state.nextID &+= 1
                        state.reserved -= 1
                        held -= 1
                        return nil
                    }
                    return
                }
                monitor.locked { state.afterPiece }?(n)
            }
            do throws(ClientError) {
                try sendLine(command, body, upload, patternText, timeout, whenAnswered)
                held -= 1  // its place taken by sendLine (`upload` set)
            } catch {
                unanswered = error  // the connection ended after the pieces: they heard it too
            }
        }
        // The connection ended before the reader thread could answer it: not on this thread, which
        // may hold its caller's lock (as the timeouts, on Dispatch's).
        if let unanswered { DispatchQueue.global().async { whenAnswered(.failure(unanswered)) } }
    }

    /// The request's own line, its pattern inline or named by `upload` (whose pieces checked the
    /// room for it).
    private func sendLine(
        _ command: String, _ body: JSONObject, _ upload: Int?, _ patternText: [UInt8]?, _ timeout: Double,
        _ whenAnswered: @escaping @Sendable (Result<ReplyLine, ClientError>) -> Void
    ) throws(ClientError) {
        try writeLock.lockedThrowing { () throws(ClientError) in
            let id = try monitor.lockedThrowing { () throws(ClientError) -> Int in
                try requireOpen()
                if upload == nil { try requireRoom(for: 1) } else { state.reserved -= 1 }
                let id = state.nextID
                state.nextID &+= 1
                state.pending.append(.request(id: id, completion: whenAnswered))
                return id
            }
            do {
                // The line built as bytes, straight from the body: on the way to the pad.
                var line: [UInt8] = []
                line.reserveCapacity(96 + (upload == nil ? patternText?.count ?? 0 : 0))
                line.append(contentsOf: #"{"id":"#.utf8)
                JSONWriter.append(.number(Double(id)), to: &line)
                line.append(contentsOf: #","cmd":"#.utf8)
                JSONWriter.append(string: command, to: &line)
                for m in body.members where m.key != "id" && m.key != "cmd" {
                    line.append(UInt8(ascii: ","))
                    if m.key == "pattern", let patternText {
                        if let upload {
                            line.append(contentsOf: #""upload":"#.utf8)
                            JSONWriter.append(.number(Double(upload)), to: &line)
                        } else {
                            line.append(contentsOf: #""pattern":"#.utf8)
                            line.append(contentsOf: patternText)
                        }
                        continue
                    }
                    JSONWriter.append(string: m.key, to: &line)
                    line.append(UInt8(ascii: ":"))
                    JSONWriter.append(m.value, to: &line)
                }
                line.append(contentsOf: "}\n".utf8)
                try write(bytes: &line, timeout: timeout)
            } catch {
                // Queued already: a failed write ends the connection, and its end answers every
                // pending request — this one too — with the reason. Thrown as well, a caller would
                // hear of it twice.
                return
            }
        }
    }

    /// The first failure among a request's upload pieces.
    private final class UploadFailure: Sendable {
        private let failure = Mutex<ClientError?>(nil)
        var first: ClientError? { failure.withLock { $0 } }

        func note(_ outcome: Result<ReplyLine, ClientError>) {
            let error: ClientError?
            switch outcome {
            case .failure(let e): error = e
            case .success(.failure(_, let code, let message, let details)): error = .failed(code: code, message: message, details: details)
            case .success: error = nil
            }
            guard let error else { return }
            failure.withLock { f in if f == nil { f = error } }
        }
    }

    /// A pattern's text cut into pieces of at most `size` bytes, each whole UTF-8 (a piece is a
    /// JSON string).
    static func pieces(of text: [UInt8], at size: Int) -> [String] {
        var out: [String] = []
        var start = 0
        while start < text.count {
            var end = min(start + size, text.count)
            // Not inside a character: back up over continuation bytes (10xxxxxx) — or, for a
            // character longer than a piece, take it whole.
            while end < text.count, end > start, text[end] & 0xC0 == 0x80 { end -= 1 }
            if end == start {
                end += 1
                while end < text.count, text[end] & 0xC0 == 0x80 { end += 1 }
            }
            out.append(String(decoding: text[start..<end], as: UTF8.self))
            start = end
        }
        return out
    }

    func sendRaw(_ text: String, timeout: Double) throws(ClientError) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" } }
        guard !lines.isEmpty else { throw .io("nothing to send: the text is blank") }
        try writeLock.lockedThrowing { () throws(ClientError) in
            try monitor.lockedThrowing { () throws(ClientError) in
                try requireOpen()
                for _ in lines { state.pending.append(.raw) }
            }
            try write(text + "\n", timeout: timeout)
        }
    }

    /// Under `monitor`: room for `lines` more requests waiting for their replies.
    private func requireRoom(for lines: Int) throws(ClientError) {
        guard state.pendingCount + state.reserved + lines <= HapticClient.maximumPendingRequests else {
            throw .io("\(HapticClient.maximumPendingRequests) requests are waiting for their replies already (HapticClient.maximumPendingRequests)")
        }
    }

    /// Under `monitor`.
    private func requireOpen() throws(ClientError) {
        guard state.open, !state.closedByUser, !state.writeFailed else { throw state.ended ?? .disconnected("the connection is closed") }
    }

    /// Writes the whole text (under `writeLock`). A write that cannot finish in time leaves half a
    /// line on the socket, so it ends the connection.
    private func write(_ text: String, timeout: Double) throws(ClientError) {
        var bytes = Array(text.utf8)
        try write(bytes: &bytes, timeout: timeout)
    }

    private func write(bytes: inout [UInt8], timeout: Double) throws(ClientError) {
        let deadline = Self.now() + HapticClient.clamped(timeout)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n >= 0 {
                sent += n
                continue
            }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK {
                let left = deadline - Self.now()
                if left > 0 {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&p, 1, Int32(min(left, 1) * 1000) + 1)  // writable, interrupted or timed out: try again
                    continue
                }
                fail(.disconnected("hapticd did not take a request for \(timeout) s (it is not reading this connection)"))
                throw .timeout
            }
            // The daemon may have refused this connection (an error line, then close): its reason
            // says more than a broken pipe, and the reader thread has it once it read to the end.
            let error = endReason(within: 1) ?? .disconnected("send: \(String(cString: strerror(e)))")
            fail(error)
            throw error
        }
    }

    /// Why the connection ended, once the reader thread has seen it end (waiting at most `seconds`).
    private func endReason(within seconds: Double) -> ClientError? {
        let deadline = Self.now() + seconds
        return monitor.locked { () -> ClientError? in
            while state.open, deadline > Self.now() { monitor.wait(seconds: deadline - Self.now()) }
            return state.open ? nil : state.ended
        }
    }

    // MARK: waiting for queued lines

    func nextRawReply(timeout: Double) throws(ClientError) -> String? {
        try take(timeout: timeout) { () -> String? in state.rawReplies.isEmpty ? nil : state.rawReplies.removeFirst() }
    }

    func nextEvent(timeout: Double) throws(ClientError) -> JSONObject? {
        try take(timeout: timeout) { () -> JSONObject? in state.events.isEmpty ? nil : state.events.removeFirst() }
    }

    /// Waits (bounded) until `pick` finds something, under `monitor`; nil on timeout. Once the
    /// connection is gone and nothing is left, throws why.
    private func take<T>(timeout: Double, _ pick: () -> T?) throws(ClientError) -> T? {
        let deadline = Self.now() + max(0, timeout.isFinite ? min(timeout, 86_400) : 86_400)
        return try monitor.lockedThrowing { () throws(ClientError) -> T? in
            while true {
                if let item = pick() { return item }
                if !state.open { throw state.ended ?? .disconnected("the connection is closed") }
                let left = deadline - Self.now()
                if left <= 0 { return nil }
                monitor.wait(seconds: left)
            }
        }
    }

    // MARK: handlers

    func setEventHandler(_ handler: (@Sendable (JSONObject) -> Void)?) {
        let queued = monitor.locked { () -> [JSONObject] in
            state.eventHandler = handler
            guard handler != nil else { return [] }
            defer { state.events = [] }
            return state.events
        }
        for e in queued { handler?(e) }
    }

    func setDisconnectHandler(_ handler: (@Sendable (ClientError) -> Void)?) { monitor.locked { state.disconnectHandler = handler } }

    /// Runs `body` when the connection ends (at once if it has).
    func addTermination(_ body: @escaping @Sendable () -> Void) {
        let now = monitor.locked { () -> Bool in
            if !state.open { return true }
            state.terminations.append(body)
            return false
        }
        if now { body() }
    }

    // MARK: reading

    private func startReader() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { raw in
            let connection = Unmanaged<ClientConnection>.fromOpaque(raw!).takeRetainedValue()
            connection.read()
            return nil
        }, context)
        if r != 0 {
            Unmanaged<ClientConnection>.fromOpaque(context).release()
            end(.io("cannot start the client's reader thread: \(String(cString: strerror(r)))"))
        } else {
            pthread_detach(thread)
        }
    }

    /// The reader thread: lines in, replies to their requests, events to their handler.
    private func read() {
        var chunk = BoundedChunk()
        var lines = LineSplitter(maximumLength: Self.maximumReadLine)
        let socket = FileDescriptor(rawValue: fd)
        var why: ClientError?
        loop: while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, -1) < 0 {
                if errno == EINTR { continue }
                why = .disconnected("poll: \(String(cString: strerror(errno)))")
                break
            }
            let n: Int
            do {
                n = try chunk.read(from: socket)
            } catch .resourceTemporarilyUnavailable {
                continue
            } catch {
                why = .disconnected("recv: \(error)")
                break
            }
            if n == 0 { break }
            for piece in lines.feed(chunk.bytes) {
                guard case .line(let line) = piece else {
                    why = .disconnected("hapticd sent a line longer than \(Self.maximumReadLine) bytes")
                    break loop
                }
                deliver(String(decoding: line, as: UTF8.self))
            }
            if lines.isSkippingOverlongLine {
                why = .disconnected("hapticd sent a line longer than \(Self.maximumReadLine) bytes")
                break
            }
        }
        end(monitor.locked { state.refusal } ?? why ?? .disconnected("hapticd closed the connection (it stopped, or was restarted)"))
    }

    private func deliver(_ line: String) {
        let parsed = ReplyLine.parse(line)
        if case .event(_, let body)? = parsed {
            let handler = monitor.locked { () -> (@Sendable (JSONObject) -> Void)? in
                if let h = state.eventHandler { return h }
                state.events.append(body)
                if state.events.count > HapticClient.maximumQueuedEvents {
                    state.events.removeFirst(state.events.count - HapticClient.maximumQueuedEvents)
                    state.eventsDropped += 1
                }
                monitor.broadcast()
                return nil
            }
            handler?(body)
            return
        }
        let slot = monitor.locked { () -> Slot? in
            // The daemon refuses a connection with an error without an id, then closes it. When the
            // last line before the end is such an error, it is why the connection ended — even when a
            // request took it as its reply, and that request's write then failed on the closed socket.
            if case .failure(.null, let code, let message, let details)? = parsed {
                state.refusal = .failed(code: code, message: message, details: details)
            } else {
                state.refusal = nil
            }
            guard let slot = state.popSlot() else {
                // Nothing asked: an error line here is the daemon's refusal, whatever its id.
                if case .failure(_, let code, let message, let details)? = parsed {
                    state.refusal = .failed(code: code, message: message, details: details)
                }
                return nil
            }
            if case .raw = slot {
                state.rawReplies.append(line)
                if state.rawReplies.count > HapticClient.maximumQueuedEvents { state.rawReplies.removeFirst() }
                monitor.broadcast()
            }
            return slot
        }
        guard case .request(let id, let completion)? = slot else { return }
        switch parsed {
        case .ok(let rid, _)?, .failure(let rid, _, _, _)?:
            if rid == .number(Double(id)) || rid == .null {
                completion(.success(parsed!))
            } else {
                completion(.failure(.io("a reply for request \(JSONWriter.write(rid)) came where request \(id)'s was due")))
            }
        default:
            completion(.failure(.io("hapticd sent a line that is not a reply: \(line.prefix(200))")))
        }
    }

    /// A write failed: the connection ends with `why`. The reader thread, woken by the shutdown, ends
    /// it (`end`): what waits is answered there, as every reply is — not on this writer, which holds
    /// the write lock that a completion sending again would need.
    private func fail(_ why: ClientError) {
        let first = monitor.locked { () -> Bool in
            guard state.open, !state.writeFailed else { return false }
            state.writeFailed = true
            if state.ended == nil { state.ended = why }
            return true
        }
        if first { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// The connection is over: everything waiting fails with `why`; handlers hear of it once.
    private func end(_ why: ClientError) {
        let (slots, handler, terminations, reason) = monitor.locked { () -> ([Slot], (@Sendable (ClientError) -> Void)?, [@Sendable () -> Void], ClientError) in
            guard state.open else { return ([], nil, [], why) }
            state.open = false
            let reason = state.ended ?? why
            state.ended = reason
            let slots = Array(state.pending[state.pendingHead...])
            state.pending = []
            state.pendingHead = 0
            defer { state.terminations = [] }
            monitor.broadcast()
            return (slots, state.closedByUser ? nil : state.disconnectHandler, state.terminations, reason)
        }
        for case .request(_, let completion) in slots { completion(.failure(reason)) }
        handler?(reason)
        for t in terminations { t() }
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A mutex with a condition: what `ClientConnection`'s blocking waits need (Synchronization's
/// `Mutex` has no condition variable).
///
/// `@unchecked Sendable`: the pthread objects are heap-allocated once, never moved, and used only
/// through pthread calls, which are thread-safe.
final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    func lockedThrowing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits (with the lock held) for a `broadcast`, at most `seconds`.
    func wait(seconds: Double) {
        let deadline = ClientConnection.now() + seconds
        var ts = timespec()
        ts.tv_sec = Int(deadline)
        ts.tv_nsec = Int((deadline - Double(Int(deadline))) * 1e9)
        pthread_cond_timedwait(condition, mutex, &ts)
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
