import Evdev
import HapticCore
import HapticProtocol
import Logging
import NIOConcurrencyHelpers

/// The daemon's entry points — connect, handle a connection's requests, disconnect — and its wiring:
/// pads that `DeviceManager` adds and removes, configuration reloads, the render loop's events. What
/// the daemon knows is a `DaemonState` (clients, players, pads, the library, the configuration);
/// each command is declared in HapticProtocol (`Declarations`), dispatched by `DaemonState.dispatch`
/// (Dispatch.swift) and handled by its family's file in Handlers/.
///
/// `@unchecked Sendable`: `state` and every mutable property are touched only under the render loop's
/// lock — inside `loop.perform`/`performSteps`, or in the loop's event handler, which runs under it.
/// Requests arrive on socket threads, are parsed there, and take the lock to run; replies and events
/// leave as strings.
public final class DaemonCore: @unchecked Sendable {
    public let loop: RenderLoop
    public let logger: Logger
    /// The configuration, from any thread (`DaemonState.shared`): changed only under the render loop's
    /// lock, by a reload or `policy.set`.
    public var config: DaemonConfig { sharedConfig.withLockedValue { $0 } }
    private let sharedConfig: NIOLockedValueBox<DaemonConfig>
    /// `state.uploads`, for the socket threads (Sendable, with its own lock).
    private let uploads: PatternUploads
    public static let version = "0.5.0"

    let state: DaemonState
    let trace: TraceWriter?
    /// Every request line and its outcome, when `HAPTICD_RECORD_REQUESTS` names a file.
    let recorder: RequestRecorder?
    /// Called under the render loop's lock for every device write (benchmarks, tools); the loop's
    /// own event handler belongs to the core.
    var writeObserver: (@Sendable (PadID, Double, MotorMagnitudes) -> Void)?
    /// Called (under the render loop's lock: hop elsewhere before doing I/O) with the path of a
    /// device whose write failed while it stayed plugged in; `DeviceManager` reopens it and calls `addPad`.
    var deviceRecovery: (@Sendable (String) -> Void)?
    /// Device errors raised while the current command's first frame was written.
    var commandDeviceErrors: [String] = []
    /// Rumbles whose first frame was written ahead of them (WriteAhead.swift), for tests.
    private(set) var writesAhead = 0
    /// Set by `shutdown` before it stops the engines: their stops are the daemon going away, which
    /// clients learn from the socket closing (Core Haptics' `serverInterrupted`), not from events
    /// that would read as players finishing.
    private var shuttingDown = false

    public func onDeviceFailure(_ recovery: (@Sendable (String) -> Void)?) {
        loop.perform(ticking: false) { _ in deviceRecovery = recovery }
    }

    public func observeWrites(_ observer: (@Sendable (PadID, Double, MotorMagnitudes) -> Void)?) {
        loop.perform { _ in writeObserver = observer }
    }

    public init(config: DaemonConfig, loop: RenderLoop, logger: Logger, trace: TraceWriter? = nil, recorder: RequestRecorder? = nil) {
        state = DaemonState(config: config)
        sharedConfig = state.shared
        uploads = state.uploads
        self.loop = loop
        self.logger = logger
        self.trace = trace
        self.recorder = recorder
        loop.setEventHandler { [weak self] event in self?.loopEvent(event) }
        reloadLibrary()
        // The handler table is built here, not by the first command that needs it: building it looks
        // up each request type's conformance in the Swift runtime, ~13 M instructions (2.4 ms of the
        // first `rumble` after start — 2.7 ms against 0.3 — a game's first click, docs/benchmarks.md).
        _ = CommandRunner.byCommand.count
    }

    // MARK: configuration

    public func reloadLibrary() {
        let config = self.config
        let lib = PatternLibrary.load(directories: config.patternDirectories, limits: config.patternLimits, builtIns: true, logger: logger)
        loop.perform { _ in state.library = lib }
        // Said apart: the built-in feedback patterns are there with no directory at all, and a
        // directory that is missing is why a pattern named in the docs is not found.
        let builtIn = lib.names.filter { lib[$0]?.path == "built-in" }.count
        let directories = config.patternDirectories.map { lib.unreadableDirectories.contains($0) ? "\($0) (missing or unreadable)" : $0 }
        logger.info("pattern library: \(lib.names.count) patterns, \(builtIn) of them built in, \(lib.names.count - builtIn) from files; directories: \(directories.isEmpty ? "none" : directories.joined(separator: ", "))")
    }

    /// SIGHUP: new limits, gains, library and profiles for pads that arrive later; clients stay.
    public func reload(_ newConfig: DaemonConfig) {
        loop.perform { access in state.reload(newConfig, access) }
        reloadLibrary()
    }

    // MARK: pads

    /// Adds a pad (a real device or a simulated one), driven through `sink` with `profile` (nil: its
    /// evdev profile) — evdev, its hidraw node or a simulation, as `backend` says; returns its id. Once
    /// the daemon is stopping (`shutdown`) a pad is not added: its sink is released, and nil.
    @discardableResult
    public func addPad(
        info: DeviceInfo, sink: any MotorSink, simulated: Bool, profile chosen: DeviceProfile? = nil, backend: PadBackend? = nil
    ) -> PadID? {
        if loop.perform(ticking: false, { _ in shuttingDown }) {
            sink.release()
            logger.info("\(info.path): not added, hapticd is stopping")
            return nil
        }
        let config = self.config
        let profile = chosen ?? info.profile(in: config.profiles)
        let backend = backend ?? (simulated ? .simulated : .evdev(fallback: nil))
        // A pad we knew that comes back takes up its old engine: a reset. Connected for commands only
        // once its sink is in the render loop (below): a `capabilities` or a play in between saw the
        // pad without its output.
        let (id, reattached, replaced) = loop.perform { _ in
            state.pads.attach(info, profile: profile, simulated: simulated, backend: backend, connected: false)
        }
        if let replaced {
            loop.removePad(replaced)
            logger.info("pad \(replaced) is back through another backend or profile: now pad \(id)")
        }
        // Usable, and announced: a re-attached pad before its engines reset, a new one once added.
        func connect() {
            state.pads.markConnected(id)
            state.clients.broadcast(.deviceAdded, state.padFields(id))
        }
        if reattached {
            // Connected before its engines reset: a client answering the reset with a start (an
            // engine's `prepare`) saw "no rumble device" in between, and a Core Haptics engine whose
            // start failed there heard nothing of the pad again (found by a stranger's Unity check).
            // Announced before the reset too, so that a reset handler finds its controller listed.
            loop.reattachPad(id, sink: sink, ready: connect)
            logger.info("pad \(id) re-attached: \(info.name) (\(info.path))")
        } else {
            loop.addPad(id, sink: sink, profile: profile, gain: config.gain(for: info.name, usbID: info.usbID)) { engine in
                config.configure(engine)
            }
            logger.info("pad \(id): \(info.name) (\(info.path), \(info.usbID), profile \(profile.name)\(Self.describe(backend)))")
        }
        loop.perform { access in
            // A re-attached pad was marked (and announced) in its `ready` step: marking it again here
            // would undo a failure that came in between (the pad would stay "connected", its recovery
            // attach then matching no disconnected pad).
            // Stopping meanwhile (a `plug` of --simulate-control races SIGTERM): the loop released the
            // sink; the pad is neither connected nor announced.
            guard !shuttingDown else { return }
            if !reattached { connect() }
            state.applyPolicy(access)
        }
        return id
    }

    static func describe(_ backend: PadBackend) -> String {
        switch backend {
        case .hidraw(let node): ", its own reports on \(node)"
        case .usbAudio(let device): ", voice-coil waveforms on its USB audio stream (\(device))"
        case .evdev(let reason?): ", evdev: \(reason)"
        case .evdev(nil), .simulated: ""
        }
    }

    /// The device at `path` is gone.
    public func removeDevice(path: String) {
        // Stopping: every pad is released already, and nobody is told of one more going.
        let id = loop.perform { _ in shuttingDown ? nil : state.pads.detach(path: path) }
        guard let id else { return }
        loop.detachPad(id)
        logger.info("pad \(id) removed (\(path))")
        loop.perform { _ in state.clients.broadcast(.deviceRemoved, state.padFields(id)) }
    }

    /// Engine and device events, under the render loop's lock: the state's part (`DaemonState.apply`:
    /// registries, client events), then the log, the trace and device recovery.
    func loopEvent(_ event: LoopEvent) {
        if case .wrote(let pad, let time, let value) = event {
            trace?.record(time: time, device: pad, value: value)
            writeObserver?(pad, time, value)
        }
        if shuttingDown { return }
        state.apply(event)
        switch event {
        case .playerEnded:
            break
        case .engineStopped(let pad, let locality, let reason):
            logger.info("pad \(pad) (\(locality.rawValue)): engine stopped (\(reason.rawValue))")
        case .engineReset(let pad, let locality):
            logger.info("pad \(pad) (\(locality.rawValue)): engine reset; its players must be created again")
        case .deviceError(let pad, let message, let disconnected):
            logger.error("pad \(pad): \(message)")
            commandDeviceErrors.append("device \(pad): \(message)")
            // A device that failed but is still there is reopened (by `deviceRecovery`); re-attaching
            // it resets its engine. An unplugged one is left to hot-plug.
            if !disconnected, let path = state.pads.failed(pad) { deviceRecovery?(path) }
        case .wrote:
            break  // recorded above
        }
    }

    // MARK: clients

    /// A new connection: its id, or the error to send it as its last line before closing (not
    /// allowed, or over a connection limit).
    public func connect(credentials: PeerCredentials?, outlet: any ClientOutlet) -> Result<ClientID, ProtocolError> {
        let app = ClientRegistry.defaultAppName(credentials)  // read here, outside the render loop's lock
        return loop.perform(ticking: false) { _ in
            let config = state.config
            return state.clients.admit(credentials, app: app, outlet: outlet, config: config)
        }
    }

    /// The connection closed: its players stop, or play on as orphans (`DaemonState.disconnect`).
    public func disconnect(_ client: ClientID) {
        loop.perform { access in state.disconnect(client, access) }
    }

    // MARK: requests

    /// Handles one request line and returns the reply line.
    public func handle(line: String, from client: ClientID) -> String {
        handle(lines: [line], from: client)[0]
    }

    /// Handles a connection's turn of request lines, in order, and returns their reply lines.
    /// Parsing and decoding (patterns included) and the replies' encoding happen here, on the calling
    /// socket thread — but for a plain rumble alone in its turn, parsed under the lock after its first
    /// frame was written ahead (WriteAhead.swift) — and so do the answers that read nothing of the
    /// daemon's state (`ping`, `version`, `pattern.upload`); the other commands run under the render
    /// loop's lock, taken once for all of them (`RenderLoop.performSteps`), each exactly as alone —
    /// its own render pass, its own device errors. (No command changes what decoding reads: the
    /// limits change only on reload.)
    public func handle(lines: [String], from client: ClientID) -> [String] {
        guard case .answered(let replies) = answer(lines: lines, from: client, offloadBytes: nil) else { return [] }  // not reached
        return replies
    }

    /// A turn whose lines from some point on are decoded elsewhere (`decode`), then finished on the
    /// socket thread that began it (`finish`): what was prepared, and the lines still to prepare.
    public struct PendingTurn: Sendable {
        let lines: [String]
        fileprivate var prepared: [Prepared]
        fileprivate var rest: [String]
    }

    public enum TurnStep: Sendable {
        case answered([String])
        /// Decode it on a decoding thread (`decode`), then `finish` it on this socket thread.
        case decodeElsewhere(PendingTurn)
    }

    /// `handle`, on a socket thread that must not run a long parse (`ConnectionHandler`): with
    /// `offloadBytes`, a turn longer than that, or the rest of one from a line naming an upload (the
    /// parse of up to `limits.max_upload_bytes` of pattern), is left to `decode` — the lines before
    /// it prepared here, in order. Without, as `handle`.
    public func answer(lines: [String], from client: ClientID, offloadBytes: Int?) -> TurnStep {
        if let limit = offloadBytes, lines.reduce(0, { $0 + $1.utf8.count }) > limit {
            return .decodeElsewhere(PendingTurn(lines: lines, prepared: [], rest: lines))
        }
        var context: DecodingContext?
        let decoding = { self.decodingContext(&context, client) }
        // A plain rumble alone in its turn may have its first frame written ahead of it
        // (WriteAhead.swift): then the line is parsed under the lock, after that write. (Not a stop,
        // nor with `render.write_ahead` off: those are parsed here, outside the lock, as any line.)
        let ahead = lines.count == 1 ? RumbleLine.scan(lines[0]).flatMap { r in
            r.duration != nil && sharedConfig.withLockedValue({ $0.writeAhead }) ? r : nil
        } : nil
        if let ahead { return .answered(rumbleAhead(ahead, lines, client, decoding)) }
        var prepared: [Prepared] = []
        prepared.reserveCapacity(lines.count)
        for (i, line) in lines.enumerated() {
            let p = prepare(line, client, deferringUploads: offloadBytes != nil, decoding)
            if case .deferred = p { return .decodeElsewhere(PendingTurn(lines: lines, prepared: prepared, rest: Array(lines[i...]))) }
            prepared.append(p)
        }
        return .answered(finish(PendingTurn(lines: lines, prepared: prepared, rest: []), from: client))
    }

    /// Prepares the rest of a pending turn: parsing and decoding, on the calling (decoding) thread.
    public func decode(_ turn: PendingTurn, from client: ClientID) -> PendingTurn {
        var turn = turn
        var context: DecodingContext?
        for line in turn.rest {
            turn.prepared.append(prepare(line, client, deferringUploads: false) { self.decodingContext(&context, client) })
        }
        turn.rest = []
        return turn
    }

    /// Runs a prepared turn's commands under the render loop's lock and returns its reply lines (on
    /// the socket thread: the events its commands cause go out after them).
    public func finish(_ turn: PendingTurn, from client: ClientID) -> [String] {
        let prepared = turn.prepared
        var outcomes: IndexingIterator<[Result<JSONObject, ProtocolError>]> = [].makeIterator()
        if prepared.contains(where: { if case .command = $0 { true } else { false } }) {
            outcomes = loop.performSteps { steps in runCommands(prepared, client, &steps) }.makeIterator()
        }
        let replies = replyLines(prepared, &outcomes)
        recorder?.record(turn.lines, replies)
        return replies
    }

    /// The decoding context of a turn: the configuration read once, and only for a turn with a
    /// command to decode; this client's uploads.
    private func decodingContext(_ context: inout DecodingContext?, _ client: ClientID) -> DecodingContext {
        if let context { return context }
        // Only the limits decoding needs, not a copy of the whole configuration.
        var made = sharedConfig.withLockedValue { $0.decodingContext }
        let uploads = self.uploads
        made.takeUpload = { n in uploads.take(n, of: client) }
        context = made
        return made
    }

    /// A plain rumble whose first frame is written ahead, then parsed and run under the lock.
    private func rumbleAhead(_ ahead: RumbleLine, _ lines: [String], _ client: ClientID, _ decoding: () -> DecodingContext) -> [String] {
        var prepared: [Prepared] = []
        var outcomes = loop.performSteps { steps in
            let aheadPad: PadID? = steps.ahead { access in
                guard !shuttingDown, let (pad, output) = state.rumbleAhead(ahead, from: client, access),
                      access.writeAhead(pad, output) else { return nil }
                return pad
            }
            if aheadPad != nil { writesAhead &+= 1 }
            prepared = lines.map { prepare($0, client, deferringUploads: false, decoding) }
            let outcomes = runCommands(prepared, client, &steps)
            // A command whose first frame went ahead is one `rumbleAhead` found would be
            // accepted. Were it refused all the same (the pad changed in between: a process held
            // up past `aheadMargin`), the pad must not keep that frame: a render pass gives it
            // what its players make.
            if let pad = aheadPad, outcomes.contains(where: { if case .failure = $0 { true } else { false } }) {
                logger.warning("a rumble written ahead was refused; pad \(pad) rendered again")
                steps.perform(ticking: true) { access in _ = access.pipeline(pad) }
            }
            return outcomes
        }.makeIterator()
        let replies = replyLines(prepared, &outcomes)
        recorder?.record(lines, replies)
        return replies
    }

    /// The prepared turn's commands, in order, under the render loop's lock: their outcomes.
    private func runCommands(_ prepared: [Prepared], _ client: ClientID, _ steps: inout RenderLoop.Steps) -> [Result<JSONObject, ProtocolError>] {
        prepared.compactMap { p -> Result<JSONObject, ProtocolError>? in
            guard case .command(let request, let declaration, let decoded) = p else { return nil }
            return run(declaration, request, decoded, client, &steps)
        }
    }

    /// Each line's reply, in order: the one already due, or its command's outcome.
    private func replyLines(_ prepared: [Prepared], _ outcomes: inout IndexingIterator<[Result<JSONObject, ProtocolError>]>) -> [String] {
        var replies: [String] = []
        replies.reserveCapacity(prepared.count)
        for p in prepared {
            switch p {
            case .reply(let line):
                replies.append(line)
            case .command(let request, _, _):
                switch outcomes.next() {
                case .success(let result)?: replies.append(Reply.ok(request.id, result))
                case .failure(let error)?: replies.append(Reply.error(request.id, error))
                case nil: break  // one outcome per command: not reached
                }
            case .deferred:
                break  // decoded before a turn is finished: not reached
            }
        }
        return replies
    }

    /// A request line made ready outside the render loop's lock: the command to run with its request
    /// decoded (or the error decoding it gave, reported after the permission check), the reply
    /// already due, or (`deferringUploads`) a line naming an upload, left to a decoding thread.
    fileprivate enum Prepared: Sendable {
        case command(Request, CommandDeclaration, Result<any CommandRequest, ProtocolError>)
        case reply(String)
        case deferred
    }

    private func prepare(_ line: String, _ client: ClientID, deferringUploads: Bool, _ context: () -> DecodingContext) -> Prepared {
        let request: Request
        do {
            request = try Request.parse(line)
        } catch {
            return .reply(Reply.error(error.id, error.error))
        }
        guard let command = Command(rawValue: request.command) else {
            let known = Command.allCases.map(\.rawValue).joined(separator: ", ")
            return .reply(Reply.error(request.id, ProtocolError(.unknownCommand, "unknown command \"\(request.command)\" (known: \(known))")))
        }
        // Answered here, on the socket thread: they read nothing of the daemon's state. A flood of
        // pings then never takes the render lock that every other client's commands need
        // (docs/robustness.md §2).
        switch command {
        case .ping: return .reply(Reply.ok(request.id, PingRequest.result))
        case .version: return .reply(Reply.ok(request.id, VersionRequest.result))
        case .patternUpload:
            // A piece of a long pattern: kept for this connection, outside the render loop's lock.
            do throws(ProtocolError) {
                let r = try PatternUploadRequest.decode(request)
                let result = try PatternUploadRequest.store(r, uploads, client, sharedConfig.withLockedValue { $0.limits })
                return .reply(Reply.ok(request.id, result))
            } catch {
                return .reply(Reply.error(request.id, error))
            }
        case .play, .playerCreate:
            // Its pattern taken from an upload: a parse of up to limits.max_upload_bytes. (Read from
            // the parsed request, however the member's name was spelt.)
            if deferringUploads, request.optional(PatternSource.uploadMember) != nil { return .deferred }
        default: break
        }
        let type = Declarations.requestType(command)
        do throws(ProtocolError) {
            return .command(request, type.declaration, .success(try type.decode(request, context: context())))
        } catch {
            return .command(request, type.declaration, .failure(error))
        }
    }

    /// One command, under the render loop's lock: dispatched on the state, then its first frame.
    private func run(
        _ declaration: CommandDeclaration, _ request: Request, _ decoded: Result<any CommandRequest, ProtocolError>, _ client: ClientID,
        _ steps: inout RenderLoop.Steps
    ) -> Result<JSONObject, ProtocolError> {
        let changesEngines = declaration.effect == .changes
        do {
            commandDeviceErrors = []
            let result = try steps.perform(ticking: changesEngines, adjusting: declaration.command.adjustsParameters) { access throws(ProtocolError) in
                // Between the motors' stop and the connections' close (hapticd's SIGTERM): no pad is there.
                guard !shuttingDown else { throw ProtocolError(.badRequest, "hapticd is stopping") }
                guard let c = state.clients[client] else { throw ProtocolError(.badRequest, "the connection is closing") }
                return try state.dispatch(declaration, request, decoded, CommandContext(client: c, access: access))
            }
            // The first frame of a command is written right after it (inside `perform`); a device
            // that failed then fails the command.
            if changesEngines, let failure = commandDeviceErrors.first {
                state.dropDeferredFields()
                throw ProtocolError(.deviceError, failure)
            }
            // What the handler left to after the write (`DaemonState.deferFields`).
            return .success(state.finishReply(result))
        } catch let error as ProtocolError {
            state.dropDeferredFields()
            return .failure(error)
        } catch {
            state.dropDeferredFields()
            return .failure(ProtocolError(.badRequest, "\(error)"))
        }
    }

    /// Every command's declaration as one line of JSON (`hapticd --dump-protocol`).
    public static var protocolDump: String { JSONWriter.write(Declarations.json) }

    /// Stops every motor and closes every device (shutdown).
    public func shutdown() {
        loop.perform(ticking: false) { _ in shuttingDown = true }
        loop.shutdown()
        trace?.close()
    }

    public func padIDs() -> [PadID] { loop.perform(ticking: false) { _ in state.pads.ids } }

    /// How many players and connections the daemon holds (tests, the soak test's checks).
    public func census() -> (clients: Int, players: Int) {
        loop.perform(ticking: false) { _ in (state.clients.count, state.players.count) }
    }
}
