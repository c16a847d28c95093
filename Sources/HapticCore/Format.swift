/// Number formatting without Foundation.
public enum Format {
    /// `x` with exactly `digits` decimals, rounded half away from zero.
    public static func fixed(_ x: Double, _ digits: Int) -> String {
        guard x.isFinite else { return String(x) }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let negative = x < 0
        let n = (abs(x) * scale).rounded()
        guard n < 9e18 else { return String(x) }
        let units = UInt64(n)
        let whole = units / UInt64(scale)
        let frac = units % UInt64(scale)
        var s = (negative && units != 0 ? "-" : "") + String(whole)
        if digits > 0 {
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }

    /// A 16-bit id as four hex digits, zero-padded: `045e` (USB ids), `045E` (`uppercase`: udev's
    /// HID device names).
    public static func hex4(_ v: UInt16, uppercase: Bool = false) -> String {
        let s = String(v, radix: 16, uppercase: uppercase)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
