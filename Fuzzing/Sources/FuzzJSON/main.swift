import HapticCore

/// JSONParser on arbitrary bytes: it either throws a syntax error or returns a value, and a value it
/// returns survives the writer unchanged (parse ∘ write is the identity on what parse produces).
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
    guard again == value else { fatalError("parse(write(v)) != v:\n\(text)") }
    return 0
}
