import Glibc
import HapticCore
import HapticProtocol

/// Who is heard when several programs share a pad (`[policy]`; docs/clients.md, "Policy").
///
/// Modelled on feedbackd: a global mode (feedbackd's "profile") — `full` (everything), `quiet` (only `important` feedback
/// from apps allowed to send it, e.g. an accessibility tool), `silent` (nothing) — a ceiling on
/// strength after mixing, and per-app rules that can only lower what the global settings allow; and
/// on Lofelt/Meta's per-player priority: while a higher-priority player plays on a pad, lower ones are
/// ducked (scaled by `duck`; 0 mutes them). By default every app is alike and everything mixes.
public struct PolicyConfig: Equatable, Sendable {
    public typealias Mode = PolicyMode

    public struct AppRule: Equatable, Sendable {
        /// The app id a client gives in `hello`, or its process name.
        public var id: String
        public var enabled = true
        /// 0…1: scales everything the app plays.
        public var gain = 1.0
        /// The app's players' priority, and the most it may ask for.
        public var priority = 0
        /// Whether its `important` feedback passes the `quiet` mode.
        public var importantAllowed = false
        /// Only clients of these users may claim this id (empty: anyone).
        public var uids: [UInt32] = []

        public init(id: String) { self.id = id }
    }

    public var mode = Mode.full
    public var maxStrength = 1.0
    public var duck = 0.3
    public var apps: [AppRule] = []

    public init() {}

    public func rule(for app: String) -> AppRule? { apps.first { $0.id == app } }

    public static let priorities = -100...100

    /// The priority a player of `app` gets when it asks for `requested`: never above the app's own.
    public func priority(app: String, requested: Int?) -> Int {
        let cap = rule(for: app)?.priority ?? 0
        return min(requested ?? cap, cap)
    }

    /// The gain a player of `app` is heard at: the mode (with `important` feedback of allowed apps
    /// passing `quiet`), then the app's rule.
    public func gain(app: String, important: Bool) -> Double {
        let rule = rule(for: app)
        let appGain = (rule?.enabled ?? true) ? (rule?.gain ?? 1) : 0
        switch mode {
        case .full: return appGain
        case .quiet: return important && rule?.importantAllowed == true ? appGain : 0
        case .silent: return 0
        }
    }
}

/// The policy's hold on every player, under the render loop's lock.
extension DaemonState {
    /// Brings every pad and player in line with the policy: after a reload, `policy.set` or `hello`.
    func applyPolicy(_ access: RenderLoop.PadAccess) {
        let p = config.policy
        for id in pads.ids {
            access.pipeline(id)?.duck = p.duck
            access.pipeline(id)?.maxStrength = p.maxStrength
        }
        for (id, rec) in players.byID {
            guard let engine = access.engine(rec.pad, rec.locality) else { continue }
            let app = rec.owner.flatMap { clients[$0]?.app } ?? rec.app
            try? engine.setPolicyGain(rec.local, p.gain(app: app, important: rec.important))
            try? engine.setPriority(rec.local, p.priority(app: app, requested: rec.requestedPriority))
            if app != rec.app { players.setApp(app, of: id) }
        }
    }

    /// A new player's priority (the request's `priority`, capped by its app's) and gain.
    func applyPolicy(toNew id: Int, _ engine: HapticEngine) {
        guard let rec = players[id] else { return }
        let p = config.policy
        try? engine.setPolicyGain(rec.local, p.gain(app: rec.app, important: rec.important))
        try? engine.setPriority(rec.local, p.priority(app: rec.app, requested: rec.requestedPriority))
    }
}
