import HapticCore
import PropertyBased
import Testing

/// `ExactDecimal` against strtod (`Double(String)`): the same double, bit for bit, wherever it
/// answers, and an answer for every short plain decimal (the numbers requests carry).
@Suite struct ExactDecimalTests {
    func same(_ text: String) -> Bool {
        guard let fast = ExactDecimal.value(Array(text.utf8)), let slow = Double(text) else { return false }
        return fast.bitPattern == slow.bitPattern
    }

    @Test(arguments: ["0", "-0", "1", "0.5", "0.8", "0.002", "0.016", "-0.25", "+1", "1.", ".5", "1.0",
                      "0.1", "0.2", "0.3", "0.7", "0.9", "123456789012345", "99999999999999.9",
                      "0.000000000000001", "9.99999999999999", "4503599627370497", "0.30000000000000"])
    func knownValues(_ text: String) {
        if text.filter(\.isNumber).count <= ExactDecimal.maximumDigits {
            #expect(same(text), "\(text)")
        } else {
            #expect(ExactDecimal.value(Array(text.utf8)) == nil, "\(text): over 15 digits is strtod's")
        }
    }

    @Test func notItsForm() {
        for text in ["", "-", ".", "1e5", "1E-2", "0x10", "1,5", "Infinity", "NaN", "12345678901234567",
                     "1-2", "1.2.3", "--1", "+-1", "1+", "..5"] {
            #expect(ExactDecimal.value(Array(text.utf8)) == nil, "\(text)")
        }
    }

    /// Generated decimals of 1…15 digits, the point anywhere, either sign: strtod's double every time.
    @Test func generatedDecimalsAreStrtods() {
        var rng = Xoshiro(seed: (26, 0, 0, 1))  // the same texts on every run
        for _ in 0..<200_000 {
            let count = Int.random(in: 1...ExactDecimal.maximumDigits, using: &rng)
            var digits = (0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }
            if Bool.random(using: &rng) { digits.insert(".", at: Int.random(in: 0...count, using: &rng)) }
            let text = (Int.random(in: 0..<4, using: &rng) == 0 ? "-" : "") + String(digits)
            guard text != "." && text != "-." else { continue }
            #expect(same(text), "\(text)")
        }
    }
}
