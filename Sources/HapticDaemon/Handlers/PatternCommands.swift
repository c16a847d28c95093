import HapticCore
import HapticProtocol

/// The pattern library: `patterns`.

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
