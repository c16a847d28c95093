/// A syntax error with its 1-based line and column.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public init(line: Int, column: Int, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    public var description: String { "malformed JSON at line \(line), column \(column): \(reason)" }
}

/// A JSON reader with the JSON5 tolerances that real AHAP files need.
///
/// Accepted beyond strict JSON: trailing commas in arrays and objects, `//` and `/* */` comments,
/// single-quoted strings, unquoted identifier keys, a leading `+`, and the literals `NaN`, `Infinity`
/// and `-Infinity` (so that a non-finite value gets a precise error from the AHAP loader, not a syntax
/// error). Everything else is reported with its line and column.
public struct JSONParser {
    /// Nesting deeper than this is rejected rather than risking the stack on hostile input.
    public static let maximumDepth = 128

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.index = 3
            parser.lineStart = 3
        }
        try parser.skipTrivia()
        guard parser.index < bytes.count else { throw parser.error("the document is empty") }
        let value = try parser.parseValue()
        try parser.skipTrivia()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the document")
        }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    // MARK: - Errors and positions

    private func error(_ reason: String) -> JSONSyntaxError {
        // Columns count characters, not bytes: skip UTF-8 continuation bytes.
        var column = 1
        var i = lineStart
        while i < min(index, bytes.count) {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return JSONSyntaxError(line: line, column: column, reason: reason)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    // MARK: - Trivia

    private mutating func skipTrivia() throws(JSONSyntaxError) {
        while let b = current {
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1  // not a newline: no line bookkeeping
            case UInt8(ascii: "\n"):
                advance()
            case UInt8(ascii: "/"):
                guard index + 1 < bytes.count else { throw error("unexpected '/'") }
                if bytes[index + 1] == UInt8(ascii: "/") {
                    while let c = current, c != UInt8(ascii: "\n") { advance() }
                } else if bytes[index + 1] == UInt8(ascii: "*") {
                    let startLine = line
                    advance(); advance()
                    var closed = false
                    while index < bytes.count {
                        if bytes[index] == UInt8(ascii: "*"), index + 1 < bytes.count,
                           bytes[index + 1] == UInt8(ascii: "/") {
                            advance(); advance()
                            closed = true
                            break
                        }
                        advance()
                    }
                    if !closed { throw error("the comment opened on line \(startLine) is never closed") }
                } else {
                    throw error("unexpected '/' (comments start with // or /*)")
                }
            default:
                return
            }
        }
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
        guard let b = current else { throw error("expected a value, found end of file") }
        switch b {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""), UInt8(ascii: "'"): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            let word = peekIdentifier()
            switch word {
            case "true": consume(word); return .bool(true)
            case "false": consume(word); return .bool(false)
            case "null": consume(word); return .null
            case "NaN": consume(word); return .number(.nan)
            case "Infinity": consume(word); return .number(.infinity)
            case "": throw error("expected a value, found \(describeCurrent())")
            default: throw error("expected a value, found '\(word)' (strings need quotes)")
            }
        }
    }

    private func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
            || b == UInt8(ascii: "$")
    }

    private func peekIdentifier() -> String {
        var end = index
        while end < bytes.count, isIdentifierByte(bytes[end]) { end += 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    private mutating func consume(_ word: String) {
        for _ in word.utf8 { advance() }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        let openLine = line
        advance()  // {
        var object = JSONObject()
        // Room for a request's members at once (a `rumble` has six): growing 1 → 2 → 4 → 8 copied
        // the members three times.
        object.members.reserveCapacity(8)
        while true {
            try skipTrivia()
            guard let b = current else { throw error("the object opened on line \(openLine) is never closed") }
            if b == UInt8(ascii: "}") { advance(); break }
            let key: String
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                key = try parseString()
            } else {
                let word = peekIdentifier()
                guard !word.isEmpty, !(word.first!.isNumber) else {
                    throw error("expected a member name or '}', found \(describeCurrent())")
                }
                consume(word)
                key = word
            }
            try skipTrivia()
            guard current == UInt8(ascii: ":") else {
                throw error("expected ':' after the member name \"\(key)\", found \(describeCurrent())")
            }
            advance()
            try skipTrivia()
            let value = try parseValue()
            object.append(key, value)
            try skipTrivia()
            guard let next = current else { throw error("the object opened on line \(openLine) is never closed") }
            if next == UInt8(ascii: ",") { advance(); continue }
            if next == UInt8(ascii: "}") { advance(); break }
            throw error("expected ',' or '}' after the value of \"\(key)\", found \(describeCurrent())")
        }
        depth -= 1
        return .object(object)
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        let openLine = line
        advance()  // [
        var elements: [JSONValue] = []
        while true {
            try skipTrivia()
            guard let b = current else { throw error("the array opened on line \(openLine) is never closed") }
            if b == UInt8(ascii: "]") { advance(); break }
            if b == UInt8(ascii: ",") { throw error("expected a value or ']', found ','") }
            elements.append(try parseValue())
            try skipTrivia()
            guard let next = current else { throw error("the array opened on line \(openLine) is never closed") }
            if next == UInt8(ascii: ",") { advance(); continue }
            if next == UInt8(ascii: "]") { advance(); break }
            throw error("expected ',' or ']' in the array, found \(describeCurrent())")
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func parseString() throws(JSONSyntaxError) -> String {
        let quote = bytes[index]
        advance()
        // The common case, a string without escapes: one scan, one copy.
        var end = index
        while end < bytes.count {
            let b = bytes[end]
            if b == quote || b == UInt8(ascii: "\\") || b < 0x20 { break }
            end += 1
        }
        if end < bytes.count, bytes[end] == quote {
            let s = String(decoding: bytes[index..<end], as: UTF8.self)
            index = end + 1  // no newline inside: the line count stands
            return s
        }
        var run = index  // start of a run of plain bytes
        var utf8: [UInt8] = []
        func flush(_ p: JSONParser, to end: Int) {
            utf8.append(contentsOf: p.bytes[run..<end])
        }
        while true {
            guard let b = current else { throw error("a string is never closed") }
            if b == quote {
                flush(self, to: index)
                advance()
                break
            }
            if b == UInt8(ascii: "\n") { throw error("a string is never closed before the end of the line") }
            if b < 0x20 { throw error("control character 0x\(String(b, radix: 16)) in a string (escape it)") }
            if b == UInt8(ascii: "\\") {
                flush(self, to: index)
                advance()
                guard let e = current else { throw error("a string is never closed") }
                advance()
                switch e {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "'"): utf8.append(0x27)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800...0xDBFF).contains(code), current == UInt8(ascii: "\\"),
                       index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") {
                        advance(); advance()
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid UTF-16 surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
                }
                run = index
                continue
            }
            advance()
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let b = current, let digit = hexValue(b) else { throw error("\\u needs four hex digits") }
            value = value * 16 + digit
            advance()
        }
        return value
    }

    private func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        var negative = false
        if current == UInt8(ascii: "-") || current == UInt8(ascii: "+") {
            negative = current == UInt8(ascii: "-")
            advance()
        }
        if current == UInt8(ascii: "I"), peekIdentifier() == "Infinity" {
            consume("Infinity")
            return negative ? -.infinity : .infinity
        }
        if current == UInt8(ascii: "N"), peekIdentifier() == "NaN" {
            consume("NaN")
            return .nan
        }
        // Digits hold no newline: scan them without the line bookkeeping of `advance`.
        func skipDigits(_ i: inout Int) -> Int {
            let start = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }
        var digits = skipDigits(&index)
        if current == UInt8(ascii: ".") {
            index += 1
            digits += skipDigits(&index)
        }
        var hasExponent = false
        guard digits > 0 else {
            index = start
            throw error("invalid number")
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            hasExponent = true
            advance()
            if current == UInt8(ascii: "-") || current == UInt8(ascii: "+") { advance() }
            let expDigits = skipDigits(&index)
            guard expDigits > 0 else { throw error("invalid number: the exponent has no digits") }
        }
        if let b = current, isIdentifierByte(b) {
            throw error("invalid number: unexpected \(describeCurrent())")
        }
        // Most numbers a request carries need no strtod (`ExactDecimal`).
        if !hasExponent, let value = ExactDecimal.value(bytes[start..<index]) { return value }
        // The form was checked above; strtod-style parsing accepts ".5", "1." and "+1".
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text) else { throw error("invalid number '\(text)'") }
        return value
    }
}
