/// A JSON document tree that keeps object members in source order.
///
/// hapticd parses AHAP itself rather than through `JSONDecoder` because its diagnostics need what the
/// decoder does not give: the line and column of a syntax error, the exact path of every value, and the
/// original member order for writing a pattern back out.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's kind, for "expected X, found Y" messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}

/// An ordered JSON object. Lookup returns the last member with a key, as most JSON readers do.
public struct JSONObject: Equatable, Sendable {
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { Member(key: $0.key, value: $0.value) }
    }

    public subscript(key: String) -> JSONValue? {
        members.last(where: { $0.key == key })?.value
    }

    public var keys: [String] { members.map(\.key) }

    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }
}
