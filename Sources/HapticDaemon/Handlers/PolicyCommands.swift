import HapticCore
import HapticProtocol

/// The policy commands: `hello` (a client names its app), `policy`, `policy.set` (admins).

extension HelloRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let client = context.client
        if let rule = state.config.policy.rule(for: app), !rule.uids.isEmpty, !rule.uids.contains(client.peer?.uid ?? UInt32.max) {
            throw ProtocolError(.permissionDenied, "the app id \"\(app)\" is reserved for users \(rule.uids.map(String.init).joined(separator: ", ")) (policy.app uids)")
        }
        state.clients.setApp(app, of: client.id)
        state.applyPolicy(context.access)
        var result = JSONObject(["app": .string(app), "client": .number(Double(client.id))])
        if let peer = client.peer { result.append("uid", .number(Double(peer.uid))) }
        result.append("process", .string(ClientRegistry.defaultAppName(client.peer)))
        result.append("policy", .object(state.policyFields(state.clients[client.id]!)))
        return result
    }
}

extension PolicyRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        state.policyFields(context.client)
    }
}

extension PolicySetRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        var p = state.config.policy
        if let mode { p.mode = mode }
        if let maxStrength { p.maxStrength = maxStrength }
        if let duck { p.duck = duck }
        state.config.policy = p
        state.applyPolicy(context.access)
        return state.policyFields(context.client)
    }
}

extension DaemonState {
    /// The effective policy for one client.
    func policyFields(_ client: ClientRegistry.Client) -> JSONObject {
        let p = config.policy
        let rule = p.rule(for: client.app)
        return JSONObject([
            // `profile`: the mode's name until hapticd 0.5, still sent for clients written then.
            "mode": .string(p.mode.rawValue), "profile": .string(p.mode.rawValue), "max_strength": .number(p.maxStrength), "duck": .number(p.duck),
            "app": .object(JSONObject([
                "id": .string(client.app), "configured": .bool(rule != nil), "enabled": .bool(rule?.enabled ?? true),
                "gain": .number(rule?.gain ?? 1), "priority": .number(Double(rule?.priority ?? 0)),
                "important_allowed": .bool(rule?.importantAllowed ?? false),
                "heard_at": .number(p.gain(app: client.app, important: false)),
            ])),
        ])
    }
}
