import HapticCore
import HapticProtocol

/// `ping`, `version` (both answered on the socket thread, `DaemonCore.prepare`, without the render
/// loop's lock) and `subscribe`.

extension PingRequest: DaemonCommand {
    func run(_ core: DaemonCore, _ context: CommandContext) throws(ProtocolError) -> JSONObject { DaemonCore.pong }
}

extension VersionRequest: DaemonCommand {
    func run(_ core: DaemonCore, _ context: CommandContext) throws(ProtocolError) -> JSONObject { DaemonCore.versionResult }
}

extension SubscribeRequest: DaemonCommand {
    func run(_ core: DaemonCore, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let names = events ?? Set(EventName.allCases).subtracting([.deviceOutput])
        core.clients.setSubscriptions(names, of: context.client.id)
        return JSONObject(["events": .array(names.map(\.rawValue).sorted().map { .string($0) })])
    }
}
