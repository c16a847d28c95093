/// A decimal number's value without strtod, where one floating-point division is exact enough.
///
/// Most numbers a request carries (ids, 0.8, 0.002) have at most 15 digits and no exponent: their
/// digits as an integer and the power of ten are both exact doubles, so one division is correctly
/// rounded — the value strtod gives (Clinger's fast path) — without making a String and calling
/// strtod for it. Both readers of a request's numbers use it: `JSONParser` and the daemon's plain
/// rumble scan (`RumbleLine`), where strtod was half of the scan's instructions, all of them touched
/// cold on a command from silence (docs/benchmarks.md, "Why an instruction cut does not show under TCG").
public enum ExactDecimal {
    /// 10⁰ … 10¹⁵, each exact as a Double.
    @usableFromInline static let powersOfTen: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { x, _ in x * 10 } }

    /// The most digits whose integer is exact as a Double (< 2⁵³) whatever they are.
    public static let maximumDigits = 15

    /// The value of `text` — an optional sign, digits, optionally a point and more digits (no
    /// exponent) — when it has at most `maximumDigits` digits; nil for any other text (a sign after
    /// the start, a second point, an exponent, no digit) or more digits: then strtod's, through
    /// `Double(String)`, which also tells what is not a number at all.
    @inlinable
    public static func value<Text: Collection<UInt8>>(_ text: Text) -> Double? {
        var mantissa: Int64 = 0
        var digits = 0, fractionDigits = 0
        var negative = false, inFraction = false, first = true
        for b in text {
            defer { first = false }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= maximumDigits else { return nil }
                mantissa = mantissa * 10 + Int64(b &- UInt8(ascii: "0"))
                if inFraction { fractionDigits += 1 }
            case UInt8(ascii: "."):
                guard !inFraction else { return nil }
                inFraction = true
            case UInt8(ascii: "-"):
                guard first else { return nil }
                negative = true
            case UInt8(ascii: "+"):
                guard first else { return nil }
            default: return nil
            }
        }
        guard digits > 0 else { return nil }
        let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -magnitude : magnitude
    }
}
