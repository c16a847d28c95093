import HapticCore

/// A `rumble` request of the plain shape a game sends per frame, read straight from its line:
/// `{"id":7,"cmd":"rumble","strong":0.8,"weak":0.3,"duration":0.5}` with an optional `"device"` and
/// `"locality"` (one of `Locality`'s names: the trigger motors, a handle), each member once, in any
/// order, numbers in plain decimal or exponent form, integer ids, spaces and tabs between tokens. What it tells is what `Request.parse` and `RumbleRequest`'s declared decoding
/// read from the same line (a test checks it on generated lines); a line of any other shape (a
/// string id, another member, an escape, a delay) is nil here and only ever read the general way.
///
/// The daemon reads it before parsing the line to write the rumble's first frame ahead of its player
/// (`DaemonState.rumbleAhead`); the command itself is then parsed, decoded and run as every command
/// is, its reply included.
public struct RumbleLine: Sendable, Equatable {
    public var device: Int?
    public var locality: Locality
    public var strong: Double
    public var weak: Double
    /// Absent for a stop (0/0), whatever the line says, as decoding reads it; absent with a magnitude
    /// above 0: a line decoding refuses. So present only for a rumble that plays (or magnitudes out
    /// of range, which decoding refuses).
    public var duration: Double?

    public init(device: Int? = nil, locality: Locality = .default, strong: Double, weak: Double, duration: Double?) {
        self.device = device
        self.locality = locality
        self.strong = strong
        self.weak = weak
        self.duration = duration
    }

    /// Longer lines are not of the plain shape (its members take under 200 bytes).
    public static let maximumBytes = 256

    public static func scan(_ line: String) -> RumbleLine? {
        guard line.utf8.count <= maximumBytes else { return nil }
        var copy = line
        return copy.withUTF8 { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.rumble()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        mutating func rumble() -> RumbleLine? {
            var seen: UInt8 = 0  // one bit per member
            var device: Int?, strong: Double?, weak: Double?, duration: Double?
            var locality = Locality.default
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            repeat {
                skipSpace()
                guard let key = name() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                let bit: UInt8
                switch key {
                case .id:
                    bit = 1
                    guard integer() != nil else { return nil }
                case .cmd:
                    bit = 2
                    guard name() == .rumble else { return nil }
                case .strong, .weak, .duration:
                    bit = key == .strong ? 4 : key == .weak ? 8 : 16
                    guard let x = number() else { return nil }
                    if key == .strong { strong = x } else if key == .weak { weak = x } else { duration = x }
                case .device:
                    bit = 32
                    guard let x = integer() else { return nil }
                    device = x
                case .locality:
                    bit = 64
                    guard let x = knownLocality() else { return nil }
                    locality = x
                case .rumble:
                    return nil
                }
                guard seen & bit == 0 else { return nil }
                seen |= bit
                skipSpace()
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
            skipSpace()
            guard i == bytes.count, seen & 15 == 15, let strong, let weak else { return nil }
            // As decoding reads it: a stop (0/0) has no duration.
            return RumbleLine(device: device, locality: locality, strong: strong, weak: weak, duration: strong > 0 || weak > 0 ? duration : nil)
        }

        enum Name { case id, cmd, strong, weak, duration, device, locality, rumble }

        /// A quoted string without escapes, its bytes between the quotes.
        mutating func quoted() -> UnsafeBufferPointer<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != UInt8(ascii: "\\") { i += 1 }
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let word = UnsafeBufferPointer(rebasing: bytes[start..<i])
            i += 1
            return word
        }

        /// One of `Locality`'s names, as decoding reads it (an unknown one is a request it refuses).
        mutating func knownLocality() -> Locality? {
            guard let word = quoted() else { return nil }
            return Locality.allCases.first { l in
                var name = l.rawValue
                return name.withUTF8 { $0.elementsEqual(word) }
            }
        }

        /// A quoted name this shape knows, without escapes.
        mutating func name() -> Name? {
            guard let word = quoted() else { return nil }
            switch word.count {
            case 2 where equals(word, "id"): return .id
            case 3 where equals(word, "cmd"): return .cmd
            case 4 where equals(word, "weak"): return .weak
            case 6 where equals(word, "strong"): return .strong
            case 6 where equals(word, "device"): return .device
            case 6 where equals(word, "rumble"): return .rumble
            case 8 where equals(word, "duration"): return .duration
            case 8 where equals(word, "locality"): return .locality
            default: return nil
            }
        }

        func equals(_ word: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
            text.withUTF8Buffer { $0.elementsEqual(word) }
        }

        /// 0…999 999 999, digits only, no leading zero.
        mutating func integer() -> Int? {
            let start = i
            var value = 0
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9"), i - start < 9 {
                value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                i += 1
            }
            guard i > start, !isNumberByte(at: i), bytes[start] != UInt8(ascii: "0") || i == start + 1 else { return nil }
            return value
        }

        /// `-?digits(.digits)?([eE][+-]?digits)?` (JSON's form: no leading zero), finite, as the correctly
        /// rounded double.
        mutating func number() -> Double? {
            let start = i
            _ = take(UInt8(ascii: "-"))
            let first = i
            let n = digits()
            guard n > 0, bytes[first] != UInt8(ascii: "0") || n == 1 else { return nil }
            if take(UInt8(ascii: ".")) { guard digits() > 0 else { return nil } }
            let exponent = take(UInt8(ascii: "e")) || take(UInt8(ascii: "E"))
            if exponent {
                if !take(UInt8(ascii: "-")) { _ = take(UInt8(ascii: "+")) }
                guard digits() > 0 else { return nil }
            }
            guard !isNumberByte(at: i), i - start <= 32 else { return nil }
            let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
            // Most need no strtod (`ExactDecimal`); an exponent or more digits go the general way.
            if !exponent, let x = ExactDecimal.value(text) { return x }
            guard let x = Double(String(decoding: text, as: UTF8.self)), x.isFinite else { return nil }
            return x
        }

        mutating func digits() -> Int {
            let start = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            return i - start
        }

        /// A byte that would continue a number or an identifier (the token did not end here).
        func isNumberByte(at k: Int) -> Bool {
            guard k < bytes.count else { return false }
            let b = bytes[k]
            return (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
                || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || b == UInt8(ascii: ".") || b == UInt8(ascii: "_")
                || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b >= 0x80
        }

        mutating func skipSpace() {
            while i < bytes.count, bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t") { i += 1 }
        }

        mutating func take(_ b: UInt8) -> Bool {
            guard i < bytes.count, bytes[i] == b else { return false }
            i += 1
            return true
        }
    }
}
