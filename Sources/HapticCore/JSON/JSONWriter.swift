/// Serialises `JSONValue`s as strict JSON (no JSON5 extensions), compact or indented.
public enum JSONWriter {
    /// Written as UTF-8 bytes and made a `String` once: every reply and event of the daemon goes
    /// through here, and appending to a `String` scalar by scalar was a tenth of its time under
    /// load (the soak test's profile, docs/robustness.md §2).
    public static func write(_ value: JSONValue, pretty: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, into: &out, pretty: pretty, indent: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `value`, compact, to `out` (a line being built without a `String` in between).
    public static func append(_ value: JSONValue, to out: inout [UInt8]) {
        write(value, into: &out, pretty: false, indent: 0)
    }

    /// Appends `s` as a JSON string literal to `out`.
    public static func append(string s: String, to out: inout [UInt8]) {
        writeString(s, into: &out)
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let x):
            // Integers (ids, devices, players) digit by digit: no `String` made.
            if x == x.rounded(), abs(x) < 1e15 { appendInteger(Int64(x), to: &out) } else { out.append(contentsOf: formatNumber(x).utf8) }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                write(item, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            if o.members.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { newline(&out, indent + 1) }
                writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int) {
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(indent * 2) { out.append(UInt8(ascii: " ")) }
    }

    /// The shortest text that reads back as the same Double; integers without a fraction.
    /// Non-finite numbers have no JSON form and are written as `null`.
    public static func formatNumber(_ x: Double) -> String {
        guard x.isFinite else { return "null" }
        if x == x.rounded(), abs(x) < 1e15 { return String(Int64(x)) }
        return String(x)  // Swift prints the shortest round-tripping form, e.g. 0.1, 1e-05
    }

    static func appendInteger(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var m = n.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[count] = UInt8(ascii: "0") + UInt8(m % 10)
                m /= 10
                count += 1
            } while m > 0
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(d[i]) }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A string literal: `"` and `\\` escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`;
    /// everything else (UTF-8, which a Swift `String` always is) copied as it is.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var run = 0  // start of the bytes not copied yet
            for (i, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                default: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)]])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
