import BoundedIO
import Glibc
import HapticCore
import TOMLKit

/// A configuration problem, naming the key it concerns.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var key: String
    public var message: String
    /// The file it was found in, when there is one.
    public var file: String?
    public init(_ key: String, _ message: String, file: String? = nil) {
        self.key = key
        self.message = message
        self.file = file
    }
    public var description: String {
        (file.map { "\($0): " } ?? "") + (key.isEmpty ? message : "\(key): \(message)")
    }
}

/// hapticd's configuration (TOML; every key is described in config/hapticd.toml).
public struct DaemonConfig: Equatable, Sendable {
    public static let defaultPath = "/etc/hapticd/hapticd.toml"
    /// A configuration file larger than this is refused unread.
    public static let maximumFileBytes = 1 << 20

    /// nil: the default for the user (`/run/hapticd/hapticd.sock` as root, else
    /// `$XDG_RUNTIME_DIR/hapticd.sock`).
    public var socketPath: String?
    public var socketMode: UInt32 = 0o660
    /// Group that owns the socket; nil leaves it as created.
    public var socketGroup: String?
    /// Event-loop threads serving the socket (`socket.threads`): each reads, frames, parses and
    /// answers its share of the connections; commands still run one at a time, under the render loop's lock.
    public var socketThreads = 2
    public static let socketThreadsRange = 1...16
    /// `event`: wake only when an output can change (default); `fixed`: tick every `tickPeriod`.
    public var renderMode = RenderMode.event
    public var tickPeriod = 0.004
    /// The render thread's SCHED_FIFO priority (`render.realtime_priority`; 0: none), as far as
    /// RLIMIT_RTPRIO allows (RenderLoop.realtime).
    public var realtimePriority = 10
    public static let realtimePriorityRange = 0...99
    /// `render.onset_lead` (seconds): how much earlier than an onset from silence the render
    /// thread wakes, to wait out the rest awake and start the sound on time (0: wake at the onset,
    /// a timer's lateness after it). At most `RenderLoop.onsetLeadRange`'s 2 ms per onset.
    public var onsetLead = 0.0002
    /// `render.write_ahead`: a game's plain rumble line has its first frame written before the
    /// command is parsed and run, where the pad's output is the rumble's alone (WriteAhead.swift).
    public var writeAhead = true
    /// Seconds of idleness before a pad's engine shuts down (restarting on demand); 0 turns it off.
    public var idleShutdown = 0.0
    public var limits = Limits()
    public var patternLimits = AHAPLimits.default
    public var stopPlayersOnDisconnect = true
    /// How long anything a closed connection left sounding may go on (seconds).
    public var orphanMaxSeconds = 60.0
    /// Peers allowed to send commands (SO_PEERCRED); both empty: everyone who can open the socket.
    public var allowUIDs: [UInt32] = []
    public var allowGIDs: [UInt32] = []
    /// Peers allowed the global controls (besides root): each command's declared permission says which
    /// (`Declaration.permission`: engine.start/stop/reset, gain.set, policy.set, and stop_all for
    /// everyone).
    public var adminUIDs: [UInt32] = []
    public var adminGIDs: [UInt32] = []
    public var patternDirectories = ["/usr/share/hapticd/patterns", "/etc/hapticd/patterns"]
    /// Profiles in match order: configured ones first, then the built-in ones (overridden by name),
    /// hidraw and evdev alike; a pad's hidraw profile and its evdev one are each the first that matches.
    public var profiles = DeviceProfile.allBuiltIn
    /// `[devices] backend`: `auto` drives a pad through its own reports on its hidraw node where a
    /// hidraw profile matches it (docs/devices.md, "hidraw"); `evdev` drives every pad through evdev.
    public var backend = DeviceBackendSetting.auto
    /// `[devices] dualsense_haptics`: `waveform` streams a DualSense's voice coils over Bluetooth
    /// (report `0x32` on its hidraw node, where it works); `rumble` gives it compatible vibration
    /// (`FF_RUMBLE` through hid-playstation) as before. docs/devices.md, "DualSense voice coils".
    public var dualSenseHaptics = DualSenseHapticsSetting.waveform
    /// `[devices.dualsense_haptics]` as a table: per pad, keyed like `gains` ("vvvv:pppp", the pad's
    /// name, or "default"); a pad it does not name gets `dualSenseHaptics`.
    public var dualSenseHapticsByPad: [String: DualSenseHapticsSetting] = [:]
    /// `[devices] hidraw_wait` (seconds): how long a plugged-in pad whose hidraw profile matches waits
    /// for its hidraw node to be there and hapticd's to open (`HidrawBackend.Choice.notYet`) before it
    /// is driven through evdev instead; 0: no wait. Pads present at start never wait.
    public var hidrawWait = 3.0
    public static let hidrawWaitRange = 0.0...60.0
    /// Per-pad software gain 0…1, keyed by "vvvv:pppp", pad name, or "default".
    public var gains: [String: Double] = [:]
    /// Who is heard when several programs share a pad (Policy.swift).
    public var policy = PolicyConfig()

    /// Every bound on what clients can make the daemon hold or do (`[limits]`).
    public struct Limits: Equatable, Sendable {
        /// Longest request line, in bytes.
        public var maxLineBytes = 1 << 20
        /// Unsent output to one client above which the daemon stops reading its requests and drops
        /// its events (counted, and reported with an `events_dropped` notice).
        public var outputBufferBytes = 64 << 10
        /// A client over `outputBufferBytes` this long is closed (seconds).
        public var outputStallTimeout = 30.0
        /// Connections at once (not counting the admins' reserve), and per user.
        public var maxClients = 64
        public var maxClientsPerUID = 16
        /// Connections beyond `maxClients` that only root and admins may take.
        public var adminReservedClients = 4
        /// Players one connection, one user (orphans included) and the whole daemon may hold. A
        /// program's Core Haptics engines share its one connection, and Apple advises making players
        /// up front (an outside check's game made 33): 128 a connection, 256 a user.
        public var maxPlayersPerClient = 128
        public var maxPlayersPerUID = 256
        public var maxPlayers = 512
        /// Commands and future parameter changes one player, and one connection, may hold.
        public var maxScheduledPerPlayer = 64
        public var maxScheduledPerClient = 512
        /// How far ahead anything may be scheduled, and the longest seek, loop end or played length.
        public var timeHorizon = 86_400.0
        /// Control points of a curve sent to a player (`player.schedule_curve`).
        public var maxCurvePoints = 1024
        /// The text one connection may hold in uploads (`pattern.upload`: a pattern too long for
        /// one line, sent in pieces), all of its uploads together, in bytes; and how many at once.
        /// 4 MiB holds the longest real exports (1.4–2.2 MB, a song's worth of transients).
        public var maxUploadBytes = 4 << 20
        public var maxUploads = 4
        public var minRate = 0.01
        public var maxRate = 100.0

        public init() {}

        public var engine: EngineLimits {
            EngineLimits(timeHorizon: timeHorizon, rates: minRate...maxRate, maximumScheduledPerPlayer: maxScheduledPerPlayer)
        }
    }

    public init() {}

    /// How a DualSense is driven: its USB id's setting, else its name's, else the default.
    public func dualSenseHaptics(for name: String, usbID: String) -> DualSenseHapticsSetting {
        dualSenseHapticsByPad[usbID] ?? dualSenseHapticsByPad[name] ?? dualSenseHapticsByPad["default"] ?? dualSenseHaptics
    }

    public func gain(for name: String, usbID: String) -> Double {
        gains[usbID] ?? gains[name] ?? gains["default"] ?? 1
    }

    /// Whether this peer may send commands at all (the allow-list).
    public func allows(_ peer: PeerCredentials) -> Bool {
        if allowUIDs.isEmpty && allowGIDs.isEmpty { return true }
        return allowUIDs.contains(peer.uid) || peer.allGroups.contains { allowGIDs.contains($0) }
    }

    /// Whether this peer may use the controls that affect every client: root, or an admin.
    public func isAdmin(_ peer: PeerCredentials) -> Bool {
        peer.uid == 0 || adminUIDs.contains(peer.uid) || peer.allGroups.contains { adminGIDs.contains($0) }
    }

    /// Parses TOML text. Unknown keys and bad values are errors naming the key.
    public static func parse(_ text: String) throws(ConfigError) -> DaemonConfig {
        do {
            try TOMLSyntax.validate(text)
        } catch {
            throw ConfigError("", error.description)
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError("", "line \(error.source.begin.line), column \(error.source.begin.column): \(error.description)")
        } catch {
            throw ConfigError("", "\(error)")
        }
        var reader = ConfigReader()
        return try reader.read(JSONValue.from(table))
    }

    /// Reads the configuration file. A missing file is an error unless it is the default path and
    /// nobody asked for it (`explicit` false): then the built-in defaults apply. Anything unreadable or
    /// malformed is an error that names the path: the daemon refuses to start, and a reload keeps the
    /// running configuration — it never falls back to defaults (which would drop an allow-list).
    public static func load(path: String, explicit: Bool) throws(ConfigError) -> DaemonConfig {
        let bytes: [UInt8]
        switch readFile(path, limit: maximumFileBytes) {
        case .success(let b): bytes = b
        case .failure(let e) where e.errno == ENOENT && !explicit: return DaemonConfig()
        case .failure(let e): throw ConfigError("", e.description, file: path)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError("", "not valid UTF-8", file: path)
        }
        do {
            return try parse(text)
        } catch {
            throw ConfigError(error.key, error.message, file: path)
        }
    }
}

extension JSONValue {
    /// TOML as the JSON-like tree the rest of hapticd validates (dates become strings).
    static func from(_ value: any TOMLValueConvertible) -> JSONValue {
        if let t = value.table { return from(t) }
        if let a = value.array { return .array(a.map { from($0) }) }
        if let b = value.bool { return .bool(b) }
        if let i = value.int { return .number(Double(i)) }
        if let d = value.double { return .number(d) }
        if let s = value.string { return .string(s) }
        return .string(value.tomlValue.debugDescription)
    }

    static func from(_ table: TOMLTable) -> JSONValue {
        var o = JSONObject()
        for key in table.keys { o.append(key, from(table[key]!)) }
        return .object(o)
    }
}

/// `[devices] dualsense_haptics`.
public enum DualSenseHapticsSetting: String, Sendable, CaseIterable {
    case waveform
    case rumble
}

/// `[devices] backend`.
public enum DeviceBackendSetting: String, Sendable, CaseIterable {
    case auto
    case evdev
}
