import HapticCore

/// JSONParser on arbitrary bytes: it either throws a syntax error or returns a value, and a value it
/// returns survives the writer unchanged (parse ∘ write is the identity on what parse produces), but
/// for non-finite numbers: the parser accepts NaN and ±Infinity so that the AHAP loader can name
/// them in an error, and JSON has no form for them, so the writer writes `null`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let text = JSONWriter.write(value)
    let again: JSONValue
    do {
        again = try JSONParser.parse(text)
    } catch {
        fatalError("the writer's output does not parse: \(error)\n\(text)")
    }
    guard again == finite(value) else { fatalError("parse(write(v)) != v:\n\(text)") }
    return 0
}

/// The value with every non-finite number as null (what the writer makes of it).
func finite(_ v: JSONValue) -> JSONValue {
    switch v {
    case .number(let x) where !x.isFinite: return .null
    case .array(let items): return .array(items.map(finite))
    case .object(var o):
        for i in o.members.indices { o.members[i].value = finite(o.members[i].value) }
        return .object(o)
    default: return v
    }
}
