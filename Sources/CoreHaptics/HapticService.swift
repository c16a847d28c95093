import Dispatch
package import HapticClient
package import HapticCore
import Synchronization

/// The process's one connection to hapticd, shared by every engine, game controller and feedback
/// generator (`GameController` and `HapticFeedback` use it too: `package` access).
///
/// - It connects on first use (`$HAPTICD_SOCKET`, else the daemon's default socket), subscribes to
///   the events Core Haptics needs, and routes them: `player.finished` to the engine that owns the
///   player, `engine.stopped`/`engine.reset` to the engines of that pad and locality, `device.*` to
///   the game-controller listeners.
/// - When the daemon goes away, every engine hears of it (its stopped handler, reason `systemError`);
///   while engines exist, it reconnects in the background (a connection attempt every 0.1 s, doubling
///   up to 2 s) and, once the daemon is back (socket activation starts it again), every engine's reset
///   handler runs, as Core Haptics does after its server restarted.
/// - When hapticd does not answer in time (a hung daemon, or a socket that accepts and never
///   replies), the caller that waited gets `serverInterrupted` after `requestTimeout`, and hapticd
///   counts as gone: an open connection is closed (hapticd stops its players when it reads the
///   close; engines hear it as above and are reset once it answers again), and no caller waits on
///   connecting again — every call fails at once, saying since when, while connecting is retried in
///   the background (as above, every 30 s at most while it does not answer; with no engine, for 30 s
///   after the last call). Unity's `CHHapticPlayer` asks `HardwareSupportsHaptics()` on every
///   `Play()`: that is one wait of at most `requestTimeout` (twice that if the connection's first
///   answer came just in time), then immediate answers, not a stall per call.
/// - Event routing runs on the client's reader thread and only hops: handlers run on each engine's
///   own queue.
package final class HapticService: Sendable {
    package static let shared = HapticService()

    /// The events Core Haptics subscribes to.
    static let events = ["player.finished", "engine.stopped", "engine.reset", "device.added", "device.removed"]
    /// How long a request may wait for its reply (seconds); past it, the daemon counts as gone.
    package static let requestTimeout = 5.0

    private struct State {
        var client: HapticClient?
        var engines: [ObjectIdentifier: Weak<CHHapticEngine>] = [:]
        /// Which engine owns each daemon player (for `player.finished`).
        var owners: [Int: Weak<CHHapticEngine>] = [:]
        var deviceListeners: [Int: @Sendable (String, JSONObject) -> Void] = [:]
        var nextListener = 1
        var reconnecting = false
        /// The connection went away and has not been made again yet.
        var lost = false
        /// The daemon's engine clock, as the replies give it.
        var clock = EngineClock()
        /// Since when (`now()`) hapticd has not answered in time: callers do not wait on connecting
        /// to it until a background attempt connects (or finds no daemon at all). nil: it answers.
        var unanswered: Double?
        /// When a caller last asked for the connection (`client()`): while hapticd does not answer,
        /// background attempts go on for 30 s after it even with no engine (so that
        /// `supportsHaptics` turns true again once hapticd answers), and stop after that.
        var lastAsked = 0.0
        /// Requests `postWithoutWaiting` handed to `reconnectQueue` that have not run yet.
        var postsWaitingForAConnection = 0
        /// How many pads hapticd has connected, and when (`now()`) it said so; nil: ask.
        var pads: (count: Int, at: Double)?
        /// Counts the events that may change `pads`: an answer asked for before one is not kept.
        var padsGeneration: UInt64 = 0
    }

    private let state = Mutex(State())
    private let reconnectQueue = DispatchQueue(label: "hapticd.CoreHaptics.reconnect", qos: .utility)

    private init() {}

    // MARK: the connection

    /// The connection, made if there is none (and the daemon answers).
    package func client() throws(CHHapticError) -> HapticClient {
        let now = Self.now()
        let (current, unanswered) = state.withLock { s in
            s.lastAsked = now
            return (s.client, s.unanswered)
        }
        if let current, current.isConnected { return current }
        if let unanswered {
            reconnect(after: 0.1)
            let since = Format.fixed(max(now - unanswered, 0), 1)
            throw CHHapticError(.serverInterrupted, "hapticd did not answer in time \(since) s ago, and has not answered since; connecting is retried in the background")
        }
        do {
            return try connect()
        } catch {
            if state.withLock({ $0.unanswered != nil }) { reconnect(after: 0.1) }
            throw error
        }
    }

    /// Connects and subscribes. `client()` calls it unless hapticd is known not to answer; the
    /// background reconnection calls it always, and its outcome sets or lifts that gate.
    private func connect() throws(CHHapticError) -> HapticClient {
        let client: HapticClient
        do {
            client = try HapticClient(path: HapticClient.defaultSocketPath())
        } catch {
            // No daemon at all: callers fail at once anyway, so they need not be turned away. A
            // daemon whose connection queue is full does not answer.
            if error == .timeout { unanswered() } else { answered() }
            throw CHHapticError(error == .timeout ? .serverInterrupted : .serverInitFailed, error.description)
        }
        client.setEventHandler { [weak self] event in self?.route(event) }
        client.setDisconnectHandler { [weak self] why in self?.lost(client, why) }
        do {
            _ = try client.request("subscribe", JSONObject(["events": .array(Self.events.map { .string($0) })]), timeout: Self.requestTimeout)
        } catch {
            client.close()
            // Only silence turns callers away: a refusal or a closed connection is an answer, and
            // callers meeting it fail without waiting.
            if error == .timeout { unanswered() } else { answered() }
            throw Self.error(error, .serverInitFailed)
        }
        let (winner, wasLost) = state.withLock { s -> (HapticClient?, Bool) in
            if let c = s.client, c.isConnected { return (c, false) }  // another thread connected first
            // Ended between its answer and here: its disconnect handler found it not current.
            guard client.isConnected else { return (nil, false) }
            s.pads = nil
            s.padsGeneration &+= 1
            s.client = client
            s.unanswered = nil
            defer { s.lost = false }
            return (client, s.lost)
        }
        guard let winner else { throw CHHapticError(.serverInterrupted, "the connection to hapticd ended as it was made") }
        if winner !== client {
            client.close()
        } else if wasLost {
            // hapticd is back after it went away: the engines that lost it are reset, and the
            // game-controller listeners look again.
            for engine in engines { engine.serverReset() }
            for l in state.withLock({ Array($0.deviceListeners.values) }) { l("connection.restored", JSONObject()) }
        }
        return winner
    }

    /// Sends a request and waits for its result; errors as `CHHapticError` (`otherwise` for a daemon
    /// error without a closer match).
    package func request(_ command: String, _ body: JSONObject, otherwise: CHHapticError.Code = .unknownError) throws(CHHapticError) -> JSONObject {
        let c = try client()
        let sent = Self.now()
        do {
            let result = try c.request(command, body, timeout: Self.requestTimeout)
            noteClock(result, sent: sent, received: Self.now())
            return result
        } catch {
            if error == .timeout { abandon(c) }
            throw Self.error(error, otherwise)
        }
    }

    /// Sends a request without waiting (property setters, which cannot fail in Apple's API): errors
    /// go to `failed`, on the client's reader thread.
    package func post(_ command: String, _ body: JSONObject, failed: (@Sendable (CHHapticError) -> Void)? = nil) {
        post(command, body) { error in if let error { failed?(error) } }
    }

    /// Sends a request now (in order with whatever the caller sends next) and calls `completed`
    /// exactly once with its error or nil: once answered, on the client's reader thread (a timeout's
    /// on a global queue), or on the caller's when it could not be sent. The write blocks only while
    /// hapticd does not read, up to `requestTimeout`.
    package func post(_ command: String, _ body: JSONObject, completed: @escaping @Sendable (CHHapticError?) -> Void) {
        // A send that fails after queueing its request both fails it (the connection's end answers
        // every pending request) and throws: the first of the two counts. A caller counting on one
        // call (a DispatchGroup's leave) must not get two.
        final class Once: Sendable { let done = Mutex(false) }
        let once = Once()
        let complete: @Sendable (CHHapticError?) -> Void = { error in
            if once.done.withLock({ d in defer { d = true }; return !d }) { completed(error) }
        }
        let c: HapticClient
        do { c = try client() } catch {
            complete(error)
            return
        }
        do {
            try c.send(command, body, timeout: Self.requestTimeout) { [weak self] result in
                if case .failure(let e) = result {
                    if e == .timeout { self?.abandon(c) }
                    complete(Self.error(e, .unknownError))
                } else {
                    complete(nil)
                }
            }
        } catch {
            complete(Self.error(error, .unknownError))
        }
    }

    /// The most `postWithoutWaiting` requests that wait for a connection at once; more are dropped.
    static let maximumPostsWaitingForAConnection = 64
    /// How old a `postWithoutWaiting` request may be when its connection is made (seconds).
    static let postStaleness = 1.0

    /// `post`, for callers that must never block (UIKit's feedback generators, which never fail
    /// and never block): with a connection it is sent now; without one, connecting (which waits up
    /// to `requestTimeout` for a daemon that does not answer) and sending happen on
    /// `reconnectQueue`, in order, and at most `maximumPostsWaitingForAConnection` wait there — a
    /// feedback that cannot be delivered is not felt, as without hapticd.
    package func postWithoutWaiting(_ command: String, _ body: JSONObject) {
        if let c = state.withLock({ $0.client }), c.isConnected {
            // On this connection, never a new one made on the caller's thread.
            try? c.send(command, body, timeout: Self.requestTimeout) { [weak self] result in
                if case .failure(.timeout) = result { self?.abandon(c) }
            }
            return
        }
        let queued = state.withLock { s -> Bool in
            guard s.postsWaitingForAConnection < Self.maximumPostsWaitingForAConnection else { return false }
            s.postsWaitingForAConnection += 1
            return true
        }
        guard queued else { return }
        let asked = Self.now()
        reconnectQueue.async { [self] in
            state.withLock { $0.postsWaitingForAConnection -= 1 }
            // Feedback is felt when asked for or not at all: one that waited a second for the
            // connection is dropped, not played late.
            guard Self.now() - asked < Self.postStaleness else { return }
            post(command, body)
        }
    }

    // MARK: the engine clock

    /// The daemon's engine clock now: every `atTime:` is on it.
    /// Never earlier than a time it gave before (`EngineClock`).
    package var engineTime: Double {
        let now = Self.now()
        return state.withLock { $0.clock.reading(now: now) }
    }

    /// Learns the daemon clock's offset from a reply that carries its time (`EngineClock`).
    private func noteClock(_ result: JSONObject, sent: Double, received: Double) {
        guard case .number(let t)? = result["engine_time"] ?? result["current_time"] else { return }
        state.withLock { _ = $0.clock.note(daemonTime: t, sent: sent, received: received) }
    }

    /// CLOCK_MONOTONIC in seconds (also the GameController input's timestamps).
    package static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    // MARK: who listens

    func register(_ engine: CHHapticEngine) {
        state.withLock { $0.engines[ObjectIdentifier(engine)] = Weak(engine) }
    }

    func unregister(_ engine: CHHapticEngine) {
        state.withLock { s in
            s.engines[ObjectIdentifier(engine)] = nil
            s.owners = s.owners.filter { $0.value.object != nil && $0.value.object !== engine }
        }
    }

    func own(_ player: Int, by engine: CHHapticEngine) { state.withLock { $0.owners[player] = Weak(engine) } }
    func disown(_ player: Int) { _ = state.withLock { $0.owners.removeValue(forKey: player) } }

    /// Calls `listener` with every `device.added` / `device.removed` event (name, body), on the
    /// client's reader thread. Returns a token for `removeDeviceListener`.
    package func addDeviceListener(_ listener: @escaping @Sendable (String, JSONObject) -> Void) -> Int {
        state.withLock { s in
            let id = s.nextListener
            s.nextListener += 1
            s.deviceListeners[id] = listener
            return id
        }
    }

    package func removeDeviceListener(_ id: Int) { _ = state.withLock { $0.deviceListeners.removeValue(forKey: id) } }

    private var engines: [CHHapticEngine] { state.withLock { s in s.engines.values.compactMap(\.object) } }

    // MARK: events

    private func route(_ event: JSONObject) {
        guard case .string(let name)? = event["event"] else { return }
        if name != "player.finished" { padsChanged() }
        switch name {
        case "player.finished":
            guard case .number(let id)? = event["player"] else { return }
            let player = Int(saturating: id)
            let owner = state.withLock { s in s.owners.removeValue(forKey: player)?.object }
            owner?.playerEnded(player)
        case "engine.stopped", "engine.reset":
            guard case .number(let d)? = event["device"], case .string(let locality)? = event["locality"] else { return }
            let device = Int(saturating: d)
            for engine in engines where engine.isBound(device: device, locality: locality) {
                if name == "engine.reset" {
                    engine.resetByDaemon()
                } else {
                    let reason: String = if case .string(let r)? = event["reason"] { r } else { "systemError" }
                    engine.stoppedByDaemon(reason)
                }
            }
        case "device.added", "device.removed":
            let listeners = state.withLock { Array($0.deviceListeners.values) }
            for l in listeners { l(name, event) }
            if name == "device.removed", case .number(let d)? = event["device"] {
                for engine in engines where engine.isBound(device: Int(saturating: d)) { engine.stoppedByDaemon("gameControllerDisconnect") }
            }
        default: break
        }
    }

    /// The daemon went away: engines stop (and hear why), and, while any exist, the connection is
    /// made again in the background.
    private func lost(_ client: HapticClient, _ why: ClientError) {
        let wasCurrent = state.withLock { s -> Bool in
            guard s.client === client else { return false }
            dropLocked(&s)
            return true
        }
        guard wasCurrent else { return }
        announceLost()
    }

    /// The current connection is gone (under the lock): its players, its pad count.
    private func dropLocked(_ s: inout State) {
        s.pads = nil
        s.padsGeneration &+= 1
        s.client = nil
        s.owners = [:]
        s.lost = true
    }

    /// Engines and game-controller listeners hear the connection went; reconnection starts.
    private func announceLost() {
        for engine in engines { engine.serverLost() }
        for l in state.withLock({ Array($0.deviceListeners.values) }) { l("connection.lost", JSONObject()) }
        reconnect(after: 0.1)
    }

    /// Connects again in the background, one attempt at a time, from `delay` doubling up to 2 s
    /// (30 s while hapticd does not answer: each attempt then leaves a connection in its queue),
    /// while someone would hear of it: an engine, a game-controller listener, or — while hapticd
    /// does not answer — a caller in the last 30 s.
    private func reconnect(after delay: Double) {
        let now = Self.now()
        let start = state.withLock { s -> Bool in
            let interested = !s.engines.values.allSatisfy({ $0.object == nil }) || !s.deviceListeners.isEmpty
                || (s.unanswered != nil && now - s.lastAsked < 30)
            guard !s.reconnecting, interested else { return false }
            s.reconnecting = true
            return true
        }
        guard start else { return }
        reconnectQueue.asyncAfter(deadline: .now() + delay) { [self] in
            state.withLock { $0.reconnecting = false }
            if state.withLock({ $0.client?.isConnected == true }) { return }
            if (try? connect()) == nil {
                let cap = state.withLock { $0.unanswered != nil } ? 30.0 : 2.0
                reconnect(after: min(delay * 2, cap))
            }
        }
    }

    // MARK: how many pads

    /// How long an answer to "how many pads" is kept (seconds), besides the device and engine events
    /// that drop it at once.
    static let padCountLifetime = 1.0

    /// How many pads hapticd has connected: 0 when it does not answer. Unity's `CHHapticPlayer` asks
    /// `HardwareSupportsHaptics()` on every `Play()`, on the game's main thread: the answer is kept
    /// for `padCountLifetime`, and dropped at once by any `device.*`, `engine.stopped`,
    /// `engine.reset` event and by a lost or new connection, so it is a round trip at most once a
    /// second and never older than the events this connection heard.
    package func connectedPadCount() -> Int {
        let now = Self.now()
        let (cached, generation) = state.withLock { s in (s.client?.isConnected == true ? s.pads : nil, s.padsGeneration) }
        if let cached, now - cached.at < Self.padCountLifetime, now >= cached.at { return cached.count }
        guard case .array(let list)? = (try? request("devices", JSONObject()))?["devices"] else { return 0 }
        let count = list.filter { if case .object(let o) = $0 { o["connected"] == .bool(true) } else { false } }.count
        state.withLock { s in
            if s.padsGeneration == generation, s.client?.isConnected == true { s.pads = (count, now) }
        }
        return count
    }

    /// Something that may change how many pads hapticd has happened: the kept answer goes.
    private func padsChanged() {
        state.withLock { s in
            s.pads = nil
            s.padsGeneration &+= 1
        }
    }

    // MARK: a daemon that does not answer

    /// True from a request hapticd did not answer in time until a connection to it is made again
    /// (or there is no daemon at all).
    package var isWaitingForAnAnswer: Bool { state.withLock { $0.unanswered != nil } }

    /// Connecting got no answer in time: callers are turned away until an attempt gets one (the
    /// caller or the background reconnection schedules it). Not while a connection is up: another
    /// attempt may have won meanwhile.
    private func unanswered() {
        let now = Self.now()
        state.withLock { s in
            if s.unanswered == nil, s.client?.isConnected != true { s.unanswered = now }
        }
    }

    /// hapticd answered (or is not there at all): no caller is turned away.
    private func answered() { state.withLock { $0.unanswered = nil } }

    /// A request on `client` got no answer within `requestTimeout`: hapticd counts as gone, as Core
    /// Haptics' server does when it is interrupted. In one step the connection stops being current
    /// and callers are turned away; then it is closed — hapticd stops its players when it reads the
    /// close, so nothing sent meanwhile (or not sent: a stop) leaves a motor running — and engines
    /// hear `serverLost` now and `serverReset` once a new connection is made.
    private func abandon(_ client: HapticClient) {
        let now = Self.now()
        let current = state.withLock { s -> Bool in
            guard s.client === client else { return false }
            s.unanswered = s.unanswered ?? now
            dropLocked(&s)
            return true
        }
        guard current else { return }
        client.close()
        announceLost()
    }

    // MARK: errors

    /// A client error as Core Haptics names it.
    static func error(_ e: ClientError, _ otherwise: CHHapticError.Code) -> CHHapticError {
        switch e {
        case .notRunning: return CHHapticError(.serverInitFailed, e.description)
        case .disconnected, .timeout: return CHHapticError(.serverInterrupted, e.description)
        case .io: return CHHapticError(.unknownError, e.description)
        case .invalidArgument: return CHHapticError(otherwise, e.description)
        case .failed(let code, let message, _):
            let mapped: CHHapticError.Code = switch code {
            case "engine_stopped": .engineNotRunning
            case "player_invalidated": .invalidPatternPlayer
            case "invalid_pattern": .invalidPatternData
            case "limit_exceeded": .resourceNotAvailable
            case "permission_denied": .operationNotPermitted
            case "unsupported": .notSupported
            case "device_error": .resourceNotAvailable
            case "not_found" where message.hasPrefix("no player"): .invalidPatternPlayer
            case "not_found": .notSupported
            case "bad_request" where message.contains("time") || message.contains("\"at\"") || message.contains("\"after\""): .invalidTime
            default: otherwise
            }
            return CHHapticError(mapped, message)
        }
    }
}

/// A weak reference, for the service's tables.
struct Weak<T: AnyObject>: @unchecked Sendable {
    // @unchecked Sendable: a weak reference to a Sendable class (engines are).
    weak var object: T?
    init(_ object: T) { self.object = object }
}
