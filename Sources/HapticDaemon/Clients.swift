import BoundedIO
import HapticCore
import HapticProtocol

public typealias ClientID = Int

/// Where a client's events go: the socket connection (`ChannelOutlet`), or a test's recorder.
/// Called under the render loop's lock; an implementation never blocks, and may drop events for a client
/// that does not keep up — counted, and reported to it with an `events_dropped` notice.
public protocol ClientOutlet: Sendable {
    func event(_ line: String)
}

/// The connected clients, who they are, what they subscribed to and which players they own.
/// Admission applies the allow-list, the per-user limit and the global limit with its reserve for
/// admins, so that no user can lock the others (or root) out.
/// Part of `DaemonState`, touched only under the render loop's lock.
struct ClientRegistry {
    struct Client {
        let id: ClientID
        /// nil only when the socket could not say (never on a Unix socket).
        let peer: PeerCredentials?
        let isAdmin: Bool
        let outlet: any ClientOutlet
        /// The app it plays for (`hello`, else its process name): the policy's unit.
        var app: String
        var subscriptions: Set<EventName> = []
        var players: Set<Int> = []
        /// The connection's current plain rumble: a new one replaces it.
        var rumble: Int?
    }

    private(set) var byID: [ClientID: Client] = [:]
    private var perUID: [UInt32: Int] = [:]
    private var nextID = 1

    var count: Int { byID.count }

    subscript(id: ClientID) -> Client? { byID[id] }

    /// Admits a new connection, or says why not (its error is the connection's last line).
    mutating func admit(_ peer: PeerCredentials?, app: String, outlet: any ClientOutlet, config: DaemonConfig) -> Result<ClientID, ProtocolError> {
        let limits = config.limits
        if let peer {
            guard config.allows(peer) else {
                return .failure(ProtocolError(.permissionDenied, "\(peer) is not in clients.allow_uids/allow_gids"))
            }
        } else if !(config.allowUIDs.isEmpty && config.allowGIDs.isEmpty) {
            return .failure(ProtocolError(.permissionDenied, "the peer's credentials are unknown and an allow-list is configured"))
        }
        let admin = peer.map(config.isAdmin) ?? false
        if let uid = peer?.uid, let n = perUID[uid], n >= limits.maxClientsPerUID {
            return .failure(ProtocolError(.limitExceeded, "user \(uid) already has \(n) connections (limits.max_clients_per_uid)"))
        }
        let ceiling = limits.maxClients + (admin ? limits.adminReservedClients : 0)
        guard byID.count < ceiling else {
            return .failure(ProtocolError(.limitExceeded, "too many clients: \(byID.count) connected (limits.max_clients)"))
        }
        let id = nextID
        nextID += 1
        byID[id] = Client(id: id, peer: peer, isAdmin: admin, outlet: outlet, app: app)
        if let uid = peer?.uid { perUID[uid, default: 0] += 1 }
        return .success(id)
    }

    mutating func remove(_ id: ClientID) -> Client? {
        guard let c = byID.removeValue(forKey: id) else { return nil }
        if let uid = c.peer?.uid {
            perUID[uid]! -= 1
            if perUID[uid] == 0 { perUID[uid] = nil }
        }
        return c
    }

    func connections(uid: UInt32) -> Int { perUID[uid] ?? 0 }

    mutating func setSubscriptions(_ names: Set<EventName>, of id: ClientID) { update(id) { $0.subscriptions = names } }
    mutating func addPlayer(_ player: Int, to id: ClientID) { update(id) { $0.players.insert(player) } }
    mutating func removePlayer(_ player: Int, from id: ClientID) {
        update(id) { client in
            client.players.remove(player)
            if client.rumble == player { client.rumble = nil }
        }
    }
    mutating func setRumble(_ player: Int?, of id: ClientID) { update(id) { $0.rumble = player } }
    mutating func setApp(_ app: String, of id: ClientID) { update(id) { $0.app = app } }

    /// Changes a client where it is stored: one look-up, no copy of it in and out of the dictionary
    /// (`byID[id]?.field = …` is both; players are added and removed between a command and its
    /// pad's write).
    private mutating func update(_ id: ClientID, _ change: (inout Client) -> Void) {
        guard let i = byID.index(forKey: id) else { return }
        change(&byID.values[i])
    }
}

extension ClientRegistry {
    /// A client's app until it says otherwise: the peer's process name, else its user.
    static func defaultAppName(_ peer: PeerCredentials?) -> String {
        guard let peer else { return "unknown" }
        if peer.pid > 0, let comm = readFirstLine("/proc/\(peer.pid)/comm"), !comm.isEmpty { return comm }
        return "uid:\(peer.uid)"
    }

    static func readFirstLine(_ path: String) -> String? {
        guard case .success(let bytes) = readFile(path, limit: 4096) else { return nil }
        return String(decoding: bytes.prefix { $0 != 0x0A }, as: UTF8.self)
    }
}

/// Every player the daemon holds, by its daemon-wide number: which pad and engine player it is, who
/// owns it (nil: its connection closed and it plays on, an orphan), and the owner's user, whom it
/// counts against even as an orphan. Part of `DaemonState`, touched only under the render loop's lock.
struct PlayerRegistry {
    /// How a player came to be, which decides what happens when its connection closes.
    enum Kind: Equatable {
        /// `player.create`: stopped and destroyed with its connection (or kept, by configuration).
        case created
        /// `play` and `feedback`: a one-shot that, not looping, finishes its pattern after its
        /// connection closed (capped as an orphan).
        case play
        /// `rumble`: a one-shot that stops with its connection, like SDL's rumble with its game.
        case rumble

        var isOneShot: Bool { self != .created }
    }

    struct Record {
        let pad: PadID
        let locality: Locality
        let local: PlayerID
        var owner: ClientID?
        let ownerUID: UInt32?
        let kind: Kind
        /// For the policy: the owner's app (kept by orphans), the `important` flag of a feedback, and
        /// the priority the request asked for.
        var app: String
        var important = false
        var requestedPriority: Int?
        var oneShot: Bool { kind.isOneShot }
    }

    /// An engine: a pad's locality.
    struct EngineKey: Hashable {
        let pad: PadID
        let locality: Locality
    }

    private(set) var byID: [Int: Record] = [:]
    private var byLocal: [EngineKey: [PlayerID: Int]] = [:]
    private var perUID: [UInt32: Int] = [:]
    /// Numbers of players an engine reset invalidated, so that their use gets a precise error.
    private var invalidated: Set<Int> = []
    private var nextID = 1

    var count: Int { byID.count }
    subscript(id: Int) -> Record? { byID[id] }
    func count(uid: UInt32) -> Int { perUID[uid] ?? 0 }
    func find(pad: PadID, locality: Locality, local: PlayerID) -> Int? { byLocal[EngineKey(pad: pad, locality: locality)]?[local] }
    func isInvalidated(_ id: Int) -> Bool { invalidated.contains(id) }

    mutating func add(
        pad: PadID, locality: Locality, local: PlayerID, owner: ClientID, ownerUID: UInt32?, kind: Kind, app: String,
        important: Bool = false, requestedPriority: Int? = nil
    ) -> Int {
        let id = nextID
        nextID += 1
        byID[id] = Record(
            pad: pad, locality: locality, local: local, owner: owner, ownerUID: ownerUID, kind: kind, app: app, important: important,
            requestedPriority: requestedPriority)
        byLocal[EngineKey(pad: pad, locality: locality), default: [:]][local] = id
        if let ownerUID { perUID[ownerUID, default: 0] += 1 }
        return id
    }

    @discardableResult
    mutating func remove(_ id: Int) -> Record? {
        guard let rec = byID.removeValue(forKey: id) else { return nil }
        byLocal[EngineKey(pad: rec.pad, locality: rec.locality)]?[rec.local] = nil
        if let uid = rec.ownerUID {
            perUID[uid]! -= 1
            if perUID[uid] == 0 { perUID[uid] = nil }
        }
        return rec
    }

    mutating func setOwner(_ owner: ClientID?, of id: Int) { byID[id]?.owner = owner }
    mutating func setApp(_ app: String, of id: Int) { byID[id]?.app = app }

    /// Removes every player of an engine that was reset, remembering their numbers.
    mutating func invalidate(pad: PadID, locality: Locality) -> [(Int, Record)] {
        let gone = byID.filter { $0.value.pad == pad && $0.value.locality == locality }.sorted { $0.key < $1.key }
        for (id, _) in gone {
            remove(id)
            invalidated.insert(id)
        }
        // Remembered only for the error message; the oldest are forgotten first.
        if invalidated.count > 4096 { invalidated = Set(invalidated.sorted().suffix(2048)) }
        return gone
    }

    /// The players of a user: every connection of theirs, and their orphans.
    func ids(uid: UInt32) -> [Int] { byID.filter { $0.value.ownerUID == uid }.keys.sorted() }
}

extension PlayerRegistry {
    /// Whether `client` may hold one more player: players are bounded per connection, per user
    /// (counting orphans still playing after their connection closed) and for the whole daemon. A
    /// client taking over an orphan (`adopting`) is bounded per connection only: the orphan already
    /// counts for its user and the daemon.
    func requireRoom(for client: ClientRegistry.Client, _ limits: DaemonConfig.Limits, adopting: Bool = false) throws(ProtocolError) {
        guard client.players.count < limits.maxPlayersPerClient else {
            throw ProtocolError(.limitExceeded, "this connection already has \(client.players.count) players (limits.max_players_per_client); destroy some")
        }
        guard !adopting else { return }
        if let uid = client.peer?.uid, count(uid: uid) >= limits.maxPlayersPerUID {
            throw ProtocolError(.limitExceeded, "user \(uid) already has \(count(uid: uid)) players, counting those still playing after their connection closed (limits.max_players_per_uid)")
        }
        guard count < limits.maxPlayers else {
            throw ProtocolError(.limitExceeded, "the daemon holds \(count) players, its limit (limits.max_players)")
        }
    }
}
