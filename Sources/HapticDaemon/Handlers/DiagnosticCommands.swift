import HapticCore
import HapticProtocol

/// `ping`, `version` (both answered on the socket thread, `DaemonCore.handle`, without the render
/// loop's lock) and `subscribe`.

extension PingRequest: DaemonCommand {
    static let result = JSONObject(["pong": .bool(true)])
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject { Self.result }
}

extension VersionRequest: DaemonCommand {
    static let result = JSONObject(["version": .string(DaemonCore.version), "protocol": .number(Double(protocolVersion))])
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject { Self.result }
}

extension SubscribeRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let names = events ?? Set(EventName.allCases).subtracting([.deviceOutput])
        state.clients.setSubscriptions(names, of: context.client.id)
        return JSONObject(["events": .array(names.map(\.rawValue).sorted().map { .string($0) })])
    }
}
