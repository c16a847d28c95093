import HapticCore
import HapticProtocol

/// The pattern library: `patterns`.

extension PatternsRequest: DaemonCommand {
    func run(_ core: DaemonCore, _ context: CommandContext) throws(ProtocolError) -> JSONObject {
        let library = core.library
        let list: [JSONValue] = library.names.map { name in
            let e = library[name]!
            var o = JSONObject(["name": .string(name), "duration": .number(e.pattern.duration), "path": .string(e.path)])
            if let d = e.description { o.append("description", .string(d)) }
            return .object(o)
        }
        return JSONObject(["patterns": .array(list), "problems": .array(library.problems.map { .string($0) })])
    }
}
