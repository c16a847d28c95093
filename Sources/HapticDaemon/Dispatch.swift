import HapticCore
import HapticProtocol

/// What a command's handler gets besides its decoded request and the daemon's state: the connection
/// that sent it, and the pads' engines (under the render loop's lock).
struct CommandContext {
    let client: ClientRegistry.Client
    let access: RenderLoop.PadAccess
}

/// The player an `owner` command acts on, its ownership checked (and an orphan adopted).
struct OwnedPlayer {
    let id: Int
    let record: PlayerRegistry.Record
    let engine: HapticEngine
}

/// A command the daemon runs: a function from its decoded request and the daemon's state to the
/// reply's result. Handlers live by family in Handlers/; none parses JSON, checks who may send it or
/// formats an error reply (`DaemonState.dispatch` and `DaemonCore.handle` do).
protocol DaemonCommand: CommandRequest {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject
}

/// A command on one player (`permission: .owner`): it runs on the player its sender may act on.
protocol DaemonPlayerCommand: PlayerCommandRequest {
    func run(_ state: DaemonState, _ player: OwnedPlayer, _ context: CommandContext) throws(ProtocolError) -> JSONObject
}

/// Each command's handler, found once from `Declarations.requestTypes`: the protocol conformance
/// looked up per command type at start, not per request. (`decoded as? any DaemonCommand` on every
/// request was a conformance lookup in the Swift runtime each time, some 2 k instructions of a
/// command's ~40 k before its write — docs/benchmarks.md, "Cutting the rest"; what is left per
/// request is a cast to the concrete type, a comparison of its metadata.)
enum CommandRunner: Sendable {
    case plain(@Sendable (any CommandRequest, DaemonState, CommandContext) throws(ProtocolError) -> JSONObject)
    case onPlayer(@Sendable (any CommandRequest, DaemonState, OwnedPlayer, CommandContext) throws(ProtocolError) -> JSONObject)

    static let byCommand: [Command: CommandRunner] = {
        var table: [Command: CommandRunner] = [:]
        for type in Declarations.requestTypes {
            if let t = type as? any DaemonPlayerCommand.Type {
                table[type.declaration.command] = onPlayer(t)
            } else if let t = type as? any DaemonCommand.Type {
                table[type.declaration.command] = plain(t)
            }
        }
        return table
    }()

    private static func plain<T: DaemonCommand>(_: T.Type) -> CommandRunner {
        .plain { request, state, context throws(ProtocolError) in
            guard let request = request as? T else { throw DaemonState.noHandler(T.declaration) }
            return try request.run(state, context)
        }
    }

    private static func onPlayer<T: DaemonPlayerCommand>(_: T.Type) -> CommandRunner {
        .onPlayer { request, state, player, context throws(ProtocolError) in
            guard let request = request as? T else { throw DaemonState.noHandler(T.declaration) }
            return try request.run(state, player, context)
        }
    }
}

extension DaemonState {
    /// Runs one decoded command: who may send it (its declaration's permission), then its handler. A
    /// request that did not decode fails after the permission check, so that a client learns first
    /// that it may not send the command at all.
    func dispatch(
        _ declaration: CommandDeclaration, _ request: Request, _ decoded: Result<any CommandRequest, ProtocolError>,
        _ context: CommandContext
    ) throws(ProtocolError) -> JSONObject {
        dropDeferredFields()
        switch declaration.permission {
        case .anyone:
            break
        case .admin(let reason):
            guard context.client.isAdmin else {
                throw ProtocolError(.permissionDenied, "\(declaration.name) \(reason): it needs root or an admin (clients.admin_uids, clients.admin_gids)")
            }
        case .owner:
            let id = try Arguments(request, declared: declaration.arguments).required(Args.player)
            let player = try ownedPlayer(id, context)
            guard case .onPlayer(let run) = CommandRunner.byCommand[declaration.command] else { throw Self.noHandler(declaration) }
            return try run(decoded.get(), self, player, context)
        }
        guard case .plain(let run) = CommandRunner.byCommand[declaration.command] else { throw Self.noHandler(declaration) }
        return try run(decoded.get(), self, context)
    }

    /// Every declared command has a handler (a test checks); this answers if one had not.
    static func noHandler(_ declaration: CommandDeclaration) -> ProtocolError {
        ProtocolError(.unknownCommand, "\(declaration.name) has no handler in this daemon")
    }

    // MARK: who may act on a player

    /// The player `id`, for the client that names it. Another connection's player is off limits while
    /// that connection is open; an orphan (its connection closed, `stop_players_on_disconnect = false`
    /// or a finishing one-shot) is taken over by the same user, or root, which lifts its orphan cap.
    func ownedPlayer(_ id: Int, _ context: CommandContext) throws(ProtocolError) -> OwnedPlayer {
        let client = context.client
        guard var rec = players[id] else {
            if players.isInvalidated(id) {
                throw ProtocolError(.playerInvalidated, "player \(id) was invalidated by an engine reset; create it again")
            }
            throw ProtocolError(.notFound, "no player \(id)")
        }
        guard let engine = context.access.engine(rec.pad, rec.locality) else { throw ProtocolError(.notFound, "the device of player \(id) is gone") }
        if rec.owner != client.id {
            let uid = client.peer?.uid
            guard rec.owner == nil, uid == 0 || (uid != nil && uid == rec.ownerUID) else {
                throw ProtocolError(.permissionDenied, "player \(id) belongs to another client")
            }
            try players.requireRoom(for: client, config.limits, adopting: true)
            rec.owner = client.id
            players.setOwner(client.id, of: id)
            clients.addPlayer(id, to: client.id)
            try? engine.clearLifetimeLimit(rec.local)
        }
        return OwnedPlayer(id: id, record: rec, engine: engine)
    }
}
