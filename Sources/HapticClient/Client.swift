import Dispatch
import Glibc
import HapticCore
import HapticProtocol
import Synchronization

/// A failed exchange with the daemon.
public enum ClientError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No daemon at that path (or it refused): the message says what to do.
    case notRunning(path: String, reason: String)
    /// The daemon answered with an error (`code` is one of docs/PROTOCOL.md's error codes).
    case failed(code: String, message: String, details: [String])
    /// The connection is gone: the daemon stopped or crashed, or `close()` was called. Nothing sent
    /// on this client will be answered; connect again.
    case disconnected(String)
    /// A request that cannot be sent as it is (too long, a newline inside a request), or a system
    /// call that failed.
    case io(String)
    /// A value the request cannot carry — a number that is not finite (NaN, ±infinity: JSON has no
    /// form for it) — found before anything was sent; the message names the member.
    case invalidArgument(String)
    /// The daemon did not answer within the request's timeout (the connection stays usable; the late
    /// answer is discarded), or, connecting, did not take the connection: its queue of connections
    /// not yet accepted stayed full for `connectPatience` (2 s).
    case timeout

    public var description: String {
        switch self {
        case .notRunning(let path, let reason):
            "hapticd is not running at \(path) (\(reason)). Start it (systemctl start hapticd, or hapticd --simulate "
                + "for a simulated pad), or point to its socket with --socket PATH or $HAPTICD_SOCKET."
        case .failed(let code, let message, let details):
            ([message + " (" + code + ")"] + details.map { "  " + $0 }).joined(separator: "\n")
        case .disconnected(let why): "the connection to hapticd is gone: \(why)"
        case .io(let what): "connection to hapticd failed: \(what)"
        case .invalidArgument(let what): what
        case .timeout: "hapticd did not answer in time"
        }
    }
}

/// A connection to hapticd's socket (docs/PROTOCOL.md), for any number of threads and tasks at once.
///
/// - **Requests** go out on the calling thread, at once, in call order; their replies are matched
///   to them in order (the daemon answers a connection's requests in order). Each has three forms:
///   blocking (`request(_:_:timeout:)` from synchronous code), `async` (the same name from
///   asynchronous code), and a completion handler (`send(_:_:timeout:completion:)`).
/// - **Events** (`subscribe`) go to the handler set with `setEventHandler`, or, while none is set,
///   wait in a bounded queue for `nextEvent(timeout:)`.
/// - One thread of the client's own reads the socket. Completion handlers, event handlers and the
///   disconnect handler run on it, in the order the daemon wrote: keep them short, and hop to a
///   queue of your own for anything more (they must not wait for another reply of this client).
///
/// Every wait is bounded (`timeout`, default 10 s); lines are bounded by `maximumLineBytes` both
/// ways; queued events by `maximumQueuedEvents` (the oldest are dropped). When the daemon goes away,
/// every waiting request fails with `.disconnected`, and so does every later one.
public final class HapticClient: Sendable {
    public let path: String
    /// The longest line sent or accepted (the daemon's own default, `limits.max_line_bytes`).
    public static let maximumLineBytes = 1 << 20
    /// Events kept for `nextEvent` while no handler is set; older ones are dropped.
    public static let maximumQueuedEvents = 4096
    /// Requests sent and not yet answered, at most (a pattern's pieces count, each); a request past it
    /// is refused (`.io`, naming this bound).
    public static let maximumPendingRequests = 1024
    /// A request's `pattern` whose JSON is longer than this goes ahead of it in pieces of
    /// `uploadPieceBytes` (`pattern.upload`), and the request names the upload: a pattern is then
    /// bounded by the daemon's `limits.max_upload_bytes` (4 MiB), not by its line limit (1 MiB).
    public static let inlinePatternBytes = 256 << 10
    public static let uploadPieceBytes = 64 << 10

    let connection: ClientConnection  // (internal: tests reach its hooks)

    /// $HAPTICD_SOCKET, else the daemon's default for this user: /run/hapticd/hapticd.sock for root
    /// (and as the last resort), $XDG_RUNTIME_DIR/hapticd.sock otherwise.
    public static func defaultSocketPath() -> String {
        if let env = getenv("HAPTICD_SOCKET").map({ String(cString: $0) }), !env.isEmpty { return env }
        if getuid() != 0, let dir = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), !dir.isEmpty {
            let user = dir + "/hapticd.sock"
            if access(user, F_OK) == 0 || access("/run/hapticd/hapticd.sock", F_OK) != 0 { return user }
        }
        return "/run/hapticd/hapticd.sock"
    }

    /// Connects: at once, or an error at once — except while the daemon's queue of connections not
    /// yet accepted is full (a hung daemon), which is waited out for at most 2 s (`.timeout`).
    public init(path: String = HapticClient.defaultSocketPath()) throws(ClientError) {
        self.path = path
        connection = try ClientConnection(path: path)
    }

    deinit { connection.close("the client was released") }

    /// Closes the connection: waiting requests fail with `.disconnected`; the daemon stops (or, for a
    /// non-looping `play`, lets finish) this connection's players.
    public func close() { connection.close("close() was called") }

    /// Whether the connection is still up.
    public var isConnected: Bool { connection.isOpen }

    // MARK: requests

    /// Sends a request and waits for its result (blocking the calling thread, at most `timeout` s).
    public func request(_ command: String, _ body: JSONObject = JSONObject(), timeout: Double = 10) throws(ClientError) -> JSONObject {
        let waiter = Waiter()
        try connection.send(command, body, timeout: timeout) { waiter.finish($0) }
        return try Self.result(waiter.wait(timeout: timeout))
    }

    /// Sends a request and suspends until its result (at most `timeout` s).
    public func request(_ command: String, _ body: JSONObject = JSONObject(), timeout: Double = 10) async throws(ClientError) -> JSONObject {
        let outcome: Result<ReplyLine, ClientError> = await withCheckedContinuation { continuation in
            let once = Once(continuation)
            do throws(ClientError) {
                try connection.send(command, body, timeout: timeout) { once.resume($0) }
            } catch {
                once.resume(.failure(error))
                return
            }
            // The timeout: whichever comes first resumes; the other is ignored.
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.clamped(timeout)) { once.resume(.failure(.timeout)) }
        }
        return try Self.result(outcome)
    }

    /// Sends a request; `completion` runs once, on the client's reader thread, with the result (or
    /// `.timeout` after `timeout` s, or `.disconnected`, also when writing it failed). Throws only
    /// when the request could not be sent at all (the connection closed, too many pending, a number
    /// in it that is not finite: `.invalidArgument`), and then `completion` does not run.
    public func send(
        _ command: String, _ body: JSONObject = JSONObject(), timeout: Double = 10,
        completion: @escaping @Sendable (Result<JSONObject, ClientError>) -> Void
    ) throws(ClientError) {
        let once = OnceCallback(completion)
        try connection.send(command, body, timeout: timeout) { outcome in
            once.call(Result { () throws(ClientError) in try Self.result(outcome) })
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.clamped(timeout)) { once.call(.failure(.timeout)) }
    }

    /// Sends raw text (one line, or several separated by newlines: each non-blank one is a request)
    /// and returns the reply to the first as the daemon wrote it; the others' replies come from
    /// `nextLine`. For `hapticctl request` and tests of the protocol itself.
    public func raw(_ text: String, timeout: Double = 10) throws(ClientError) -> String {
        try connection.sendRaw(text, timeout: timeout)
        guard let line = try connection.nextRawReply(timeout: timeout) else { throw .timeout }
        return line
    }

    /// The next reply to a `raw` line not yet returned, waiting up to `timeout` seconds (nil: none came).
    public func nextLine(timeout: Double) throws(ClientError) -> String? {
        try connection.nextRawReply(timeout: timeout)
    }

    // MARK: events

    /// Receives every event line the daemon sends (after `subscribe`), on the reader thread, in
    /// order. nil: events queue for `nextEvent` instead. Setting a handler hands it the queued ones first.
    public func setEventHandler(_ handler: (@Sendable (JSONObject) -> Void)?) { connection.setEventHandler(handler) }

    /// Called once, on the reader thread, when the connection goes away (not after `close()`).
    public func setDisconnectHandler(_ handler: (@Sendable (ClientError) -> Void)?) { connection.setDisconnectHandler(handler) }

    /// The next queued event, waiting up to `timeout` seconds (nil: none arrived). Only while no
    /// event handler is set.
    public func nextEvent(timeout: Double) throws(ClientError) -> JSONObject? { try connection.nextEvent(timeout: timeout) }

    /// Every event from now on, as an asynchronous sequence (it sets the event handler; it ends
    /// when the connection does). Keeps the newest `maximumQueuedEvents` a slow reader has not taken.
    public func events() -> AsyncStream<JSONObject> {
        let (stream, continuation) = AsyncStream.makeStream(of: JSONObject.self, bufferingPolicy: .bufferingNewest(Self.maximumQueuedEvents))
        setEventHandler { continuation.yield($0) }
        connection.addTermination { continuation.finish() }
        return stream
    }

    /// The refusal a request with this body would get before anything is sent (a number in it that
    /// is not finite, named by its JSON path), or nil: for checking arguments before connecting.
    public static func refusal(of body: JSONObject) -> ClientError? {
        ClientConnection.nonFiniteNumber(in: body).map { .invalidArgument("\($0) is not a finite number: nothing was sent") }
    }

    // MARK: helpers

    static func result(_ outcome: Result<ReplyLine, ClientError>) throws(ClientError) -> JSONObject {
        switch outcome {
        case .failure(let e): throw e
        case .success(.ok(_, let result)): return result
        case .success(.failure(_, let code, let message, let details)): throw .failed(code: code, message: message, details: details)
        case .success(.event): throw .io("an event came where a reply was due")
        }
    }

    /// Seconds for a wait: finite, at least 1 ms, at most a day.
    static func clamped(_ timeout: Double) -> Double { timeout.isFinite ? min(max(timeout, 0.001), 86_400) : 86_400 }
}

/// One blocking wait for one reply.
private final class Waiter: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<ReplyLine, ClientError>?>(nil)

    func finish(_ r: Result<ReplyLine, ClientError>) {
        outcome.withLock { $0 = r }
        semaphore.signal()
    }

    func wait(timeout: Double) -> Result<ReplyLine, ClientError> {
        if semaphore.wait(timeout: .now() + HapticClient.clamped(timeout)) == .timedOut { return .failure(.timeout) }
        return outcome.withLock { $0! }
    }
}

/// A continuation resumed once, by the reply or by the timeout, whichever comes first.
private final class Once: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<ReplyLine, ClientError>, Never>?>
    init(_ c: CheckedContinuation<Result<ReplyLine, ClientError>, Never>) { continuation = Mutex(c) }
    func resume(_ r: Result<ReplyLine, ClientError>) {
        let c = continuation.withLock { c in
            defer { c = nil }
            return c
        }
        c?.resume(returning: r)
    }
}

/// A completion handler called once, by the reply or by the timeout.
private final class OnceCallback: Sendable {
    private let handler: Mutex<(@Sendable (Result<JSONObject, ClientError>) -> Void)?>
    init(_ h: @escaping @Sendable (Result<JSONObject, ClientError>) -> Void) { handler = Mutex(h) }
    func call(_ r: Result<JSONObject, ClientError>) {
        let h = handler.withLock { h in
            defer { h = nil }
            return h
        }
        h?(r)
    }
}
