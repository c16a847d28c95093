import HapticCore
import HapticProtocol

/// The pattern library (`patterns`) and patterns sent in pieces (`pattern.upload`).

extension PatternsRequest: DaemonCommand {
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let library = state.library
        let list: [JSONValue] = library.names.map { name in
            let e = library[name]!
            var o = JSONObject(["name": .string(name), "duration": .number(e.pattern.duration), "path": .string(e.path)])
            if let d = e.description { o.append("description", .string(d)) }
            return .object(o)
        }
        return JSONObject(["patterns": .array(list), "problems": .array(library.problems.map { .string($0) })])
    }
}

extension PatternUploadRequest: DaemonCommand {
    /// Answered in `DaemonCore.handle` without the render loop's lock, as `ping`: a piece of several hundred
    /// kilobytes needs no render lock. This is the same step for a caller of `dispatch`.
    func run(_ state: DaemonState, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        try Self.store(self, state.uploads, context.client.id, state.config.limits)
    }

    static func store(_ r: PatternUploadRequest, _ uploads: PatternUploads, _ client: ClientID, _ limits: DaemonConfig.Limits) throws(ProtocolError) -> JSONObject {
        let bytes = try uploads.append(r.text, to: r.upload, of: client, limits)
        return JSONObject(["upload": .number(Double(r.upload)), "bytes": .number(Double(bytes))])
    }
}
