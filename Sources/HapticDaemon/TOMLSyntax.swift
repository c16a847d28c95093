/// A syntax check of TOML text before toml++ (through TOMLKit) sees it.
///
/// toml++ is a fine parser for valid input, but some invalid inputs reach internal assertions that
/// abort the whole process (`[[[` fails `is_bare_key_character` in `parse_key`): a configuration
/// typo must never kill the daemon on SIGHUP. This checker accepts exactly TOML 1.0's grammar minus
/// date-times (no hapticd key takes one), with UTF-8 validated and nesting bounded, and rejects
/// everything else with a line and column. Only text it accepts is given to toml++, which then
/// decides the semantics (duplicate keys, table redefinition). The fuzzer (`Fuzzing/`, docs/robustness.md)
/// runs both together, with toml++'s assertions enabled, to keep it that way.
public enum TOMLSyntax {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var message: String
        public var description: String { "line \(line), column \(column): \(message)" }
    }

    /// Deepest nesting of arrays and inline tables accepted.
    public static let maximumDepth = 32

    public static func validate(_ text: String) throws(Failure) {
        var checker = Checker(Array(text.utf8))
        try checker.document()
    }

    public static func validate(bytes: [UInt8]) throws(Failure) {
        var checker = Checker(bytes)
        try checker.document()
    }

    private struct Checker {
        let b: [UInt8]
        var i = 0
        var depth = 0

        init(_ bytes: [UInt8]) { b = bytes }

        var atEnd: Bool { i >= b.count }
        func peek(_ k: Int = 0) -> UInt8? { i + k < b.count ? b[i + k] : nil }

        func fail(_ message: String) -> Failure {
            var line = 1
            var column = 1
            var j = 0
            while j < min(i, b.count) {
                if b[j] == 0x0A {
                    line += 1
                    column = 1
                } else if b[j] & 0xC0 != 0x80 {
                    column += 1
                }
                j += 1
            }
            return Failure(line: line, column: column, message: message)
        }

        func describe(_ c: UInt8?) -> String {
            guard let c else { return "the end of the file" }
            if c == 0x0A { return "a line break" }
            if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
            return "byte 0x\(String(c, radix: 16))"
        }

        mutating func expect(_ c: UInt8, _ what: String) throws(Failure) {
            guard peek() == c else { throw fail("expected \(what), found \(describe(peek()))") }
            i += 1
        }

        mutating func ws() {
            while let c = peek(), c == 0x20 || c == 0x09 { i += 1 }
        }

        /// A newline (LF or CRLF), if one is here.
        mutating func newline() throws(Failure) -> Bool {
            if peek() == 0x0A {
                i += 1
                return true
            }
            if peek() == 0x0D {
                guard peek(1) == 0x0A else { throw fail("a carriage return must be followed by a line feed") }
                i += 2
                return true
            }
            return false
        }

        /// One UTF-8 encoded scalar that is not ASCII, validated (no overlongs, no surrogates).
        mutating func nonASCII() throws(Failure) {
            let c = b[i]
            let count: Int
            var scalar: UInt32
            switch c {
            case 0xC2...0xDF: count = 2; scalar = UInt32(c & 0x1F)
            case 0xE0...0xEF: count = 3; scalar = UInt32(c & 0x0F)
            case 0xF0...0xF4: count = 4; scalar = UInt32(c & 0x07)
            default: throw fail("invalid UTF-8")
            }
            guard i + count <= b.count else { throw fail("invalid UTF-8 (truncated)") }
            for k in 1..<count {
                let cc = b[i + k]
                guard cc & 0xC0 == 0x80 else { throw fail("invalid UTF-8") }
                scalar = scalar << 6 | UInt32(cc & 0x3F)
            }
            let minimum: UInt32 = count == 2 ? 0x80 : count == 3 ? 0x800 : 0x10000
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
                throw fail("invalid UTF-8")
            }
            i += count
        }

        mutating func comment() throws(Failure) {
            guard peek() == UInt8(ascii: "#") else { return }
            i += 1
            while let c = peek(), c != 0x0A {
                if c == 0x0D && peek(1) == 0x0A { return }
                if c == 0x09 || (0x20..<0x7F).contains(c) {
                    i += 1
                } else if c >= 0x80 {
                    try nonASCII()
                } else {
                    throw fail("control character in a comment")
                }
            }
        }

        // MARK: document

        mutating func document() throws(Failure) {
            while true {
                ws()
                if atEnd { return }
                if try newline() { continue }
                switch peek()! {
                case UInt8(ascii: "#"): try comment()
                case UInt8(ascii: "["): try tableHeader()
                default: try keyValue()
                }
                ws()
                try comment()
                if atEnd { return }
                guard try newline() else { throw fail("expected the end of the line, found \(describe(peek()))") }
            }
        }

        mutating func tableHeader() throws(Failure) {
            i += 1
            let array = peek() == UInt8(ascii: "[")
            if array { i += 1 }
            ws()
            try key()
            ws()
            try expect(UInt8(ascii: "]"), "']' to close the table header")
            if array { try expect(UInt8(ascii: "]"), "']]' to close the array-of-tables header") }
        }

        mutating func keyValue() throws(Failure) {
            try key()
            ws()
            try expect(UInt8(ascii: "="), "'=' after the key")
            ws()
            try value()
        }

        mutating func key() throws(Failure) {
            try simpleKey()
            while true {
                let save = i
                ws()
                guard peek() == UInt8(ascii: ".") else {
                    i = save
                    return
                }
                i += 1
                ws()
                try simpleKey()
            }
        }

        static func isBare(_ c: UInt8) -> Bool {
            (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) || c == 0x2D || c == 0x5F
        }

        mutating func simpleKey() throws(Failure) {
            switch peek() {
            case UInt8(ascii: "\""):
                guard !(peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")) else {
                    throw fail("a key cannot be a multi-line string")
                }
                try basicString()
            case UInt8(ascii: "'"):
                guard !(peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'")) else {
                    throw fail("a key cannot be a multi-line string")
                }
                try literalString()
            case let c? where Self.isBare(c):
                while let c = peek(), Self.isBare(c) { i += 1 }
            default:
                throw fail("expected a key, found \(describe(peek()))")
            }
        }

        // MARK: values

        mutating func value() throws(Failure) {
            guard let c = peek() else { throw fail("expected a value, found the end of the file") }
            switch c {
            case UInt8(ascii: "\""):
                if peek(1) == c && peek(2) == c { try multilineBasicString() } else { try basicString() }
            case UInt8(ascii: "'"):
                if peek(1) == c && peek(2) == c { try multilineLiteralString() } else { try literalString() }
            case UInt8(ascii: "t"): try word("true")
            case UInt8(ascii: "f"): try word("false")
            case UInt8(ascii: "["): try array()
            case UInt8(ascii: "{"): try inlineTable()
            case UInt8(ascii: "i"), UInt8(ascii: "n"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
            default:
                throw fail("expected a value, found \(describe(c))")
            }
        }

        mutating func word(_ w: String) throws(Failure) {
            for ch in w.utf8 {
                guard peek() == ch else { throw fail("expected a value, found \(describe(peek()))") }
                i += 1
            }
        }

        mutating func nest() throws(Failure) {
            depth += 1
            if depth > TOMLSyntax.maximumDepth { throw fail("nested deeper than \(TOMLSyntax.maximumDepth) levels") }
        }

        /// Whitespace, comments and newlines between array elements.
        mutating func arraySpace() throws(Failure) {
            while true {
                ws()
                try comment()
                if try !newline() { return }
            }
        }

        mutating func array() throws(Failure) {
            try nest()
            i += 1
            try arraySpace()
            while peek() != UInt8(ascii: "]") {
                try value()
                try arraySpace()
                if peek() == UInt8(ascii: ",") {
                    i += 1
                    try arraySpace()
                } else {
                    break
                }
            }
            try expect(UInt8(ascii: "]"), "',' or ']' in the array")
            depth -= 1
        }

        mutating func inlineTable() throws(Failure) {
            try nest()
            i += 1
            ws()
            if peek() == UInt8(ascii: "}") {
                i += 1
                depth -= 1
                return
            }
            while true {
                try keyValue()
                ws()
                if peek() == UInt8(ascii: ",") {
                    i += 1
                    ws()
                    continue
                }
                try expect(UInt8(ascii: "}"), "',' or '}' in the inline table (which must stay on one line)")
                break
            }
            depth -= 1
        }

        // MARK: numbers

        func isDigit(_ c: UInt8?) -> Bool { c.map { (0x30...0x39).contains($0) } ?? false }
        func isHex(_ c: UInt8?) -> Bool {
            guard let c else { return false }
            return (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
        }

        /// Digits with single underscores between them (`1_000`).
        mutating func digits(_ ok: (UInt8?) -> Bool, _ what: String) throws(Failure) {
            guard ok(peek()) else { throw fail("expected \(what), found \(describe(peek()))") }
            i += 1
            while true {
                if ok(peek()) {
                    i += 1
                } else if peek() == UInt8(ascii: "_") {
                    i += 1
                    guard ok(peek()) else { throw fail("an underscore in a number must sit between two digits") }
                } else {
                    return
                }
            }
        }

        mutating func number() throws(Failure) {
            var signed = false
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                i += 1
                signed = true
            }
            if peek() == UInt8(ascii: "i") { return try word("inf") }
            if peek() == UInt8(ascii: "n") { return try word("nan") }
            if !signed, peek() == UInt8(ascii: "0"), let p = peek(1), p == UInt8(ascii: "x") || p == UInt8(ascii: "o") || p == UInt8(ascii: "b") {
                i += 2
                switch p {
                case UInt8(ascii: "x"): try digits(isHex, "a hexadecimal digit")
                case UInt8(ascii: "o"): try digits({ $0.map { (0x30...0x37).contains($0) } ?? false }, "an octal digit")
                default: try digits({ $0 == 0x30 || $0 == 0x31 }, "a binary digit")
                }
                return
            }
            let start = i
            try digits(isDigit, "a number")
            if !signed, peek() == UInt8(ascii: ":") || (peek() == UInt8(ascii: "-") && i - start == 4) {
                throw fail("dates and times are not used by any hapticd setting")
            }
            if b[start] == UInt8(ascii: "0") && i - start > 1 { throw fail("a decimal number cannot have leading zeros") }
            if peek() == UInt8(ascii: ".") {
                i += 1
                try digits(isDigit, "a digit after the decimal point")
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                i += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { i += 1 }
                try digits(isDigit, "an exponent")
            }
        }

        // MARK: strings

        mutating func escape() throws(Failure) {
            i += 1  // the backslash
            guard let c = peek() else { throw fail("unfinished escape sequence") }
            i += 1
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                 UInt8(ascii: "r"), UInt8(ascii: "t"):
                return
            case UInt8(ascii: "u"), UInt8(ascii: "U"):
                let count = c == UInt8(ascii: "u") ? 4 : 8
                var scalar: UInt32 = 0
                for _ in 0..<count {
                    guard let h = peek(), isHex(h) else { throw fail("expected \(count) hexadecimal digits in \\\(Character(Unicode.Scalar(c)))") }
                    scalar = scalar << 4 | UInt32(h <= 0x39 ? h - 0x30 : (h | 0x20) - 0x61 + 10)
                    i += 1
                }
                guard scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
                    throw fail("\\\(Character(Unicode.Scalar(c))) escape is not a Unicode scalar value")
                }
            default:
                i -= 1
                throw fail("unknown escape sequence \\\(describe(c))")
            }
        }

        /// One character of a string body: tab, printable ASCII other than the delimiter, or UTF-8.
        mutating func stringChar(_ what: String) throws(Failure) {
            let c = b[i]
            if c == 0x09 || (0x20..<0x7F).contains(c) {
                i += 1
            } else if c >= 0x80 {
                try nonASCII()
            } else {
                throw fail("control character in \(what)")
            }
        }

        mutating func basicString() throws(Failure) {
            i += 1
            while true {
                guard let c = peek(), c != 0x0A else { throw fail("unterminated string") }
                if c == UInt8(ascii: "\"") {
                    i += 1
                    return
                }
                if c == UInt8(ascii: "\\") { try escape() } else { try stringChar("a string") }
            }
        }

        mutating func literalString() throws(Failure) {
            i += 1
            while true {
                guard let c = peek(), c != 0x0A else { throw fail("unterminated string") }
                if c == UInt8(ascii: "'") {
                    i += 1
                    return
                }
                try stringChar("a string")
            }
        }

        mutating func multilineBasicString() throws(Failure) {
            i += 3
            while true {
                guard let c = peek() else { throw fail("unterminated multi-line string") }
                if c == UInt8(ascii: "\"") && peek(1) == c && peek(2) == c {
                    i += 3
                    // Up to two more quotes belong to the content.
                    if peek() == c { i += 1 }
                    if peek() == c { i += 1 }
                    return
                }
                if c == UInt8(ascii: "\\") {
                    // A line-ending backslash: whitespace up to the newline, then any blank space.
                    var j = i + 1
                    while j < b.count, b[j] == 0x20 || b[j] == 0x09 { j += 1 }
                    if j < b.count, b[j] == 0x0A || (b[j] == 0x0D && j + 1 < b.count && b[j + 1] == 0x0A) {
                        i = j
                        while true {
                            ws()
                            if try !newline() { break }
                        }
                        continue
                    }
                    try escape()
                } else if try !newline() {
                    try stringChar("a multi-line string")
                }
            }
        }

        mutating func multilineLiteralString() throws(Failure) {
            i += 3
            while true {
                guard let c = peek() else { throw fail("unterminated multi-line string") }
                if c == UInt8(ascii: "'") && peek(1) == c && peek(2) == c {
                    i += 3
                    if peek() == c { i += 1 }
                    if peek() == c { i += 1 }
                    return
                }
                if try !newline() { try stringChar("a multi-line string") }
            }
        }
    }
}
