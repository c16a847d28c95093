import HapticCore
import Testing

@Suite struct JSONParserTests {
    @Test func readsStrictJSONKeepingMemberOrder() throws {
        let v = try JSONParser.parse(#"{"b": 1, "a": [true, false, null, "x\n\u00e9\ud83d\ude00"], "c": -2.5e2}"#)
        guard case .object(let o) = v else { Issue.record("not an object"); return }
        #expect(o.keys == ["b", "a", "c"])
        #expect(o["a"] == .array([.bool(true), .bool(false), .null, .string("x\né😀")]))
        #expect(o["c"] == .number(-250))
    }

    @Test func toleratesTrailingCommasAndComments() throws {
        let text = """
            // a comment before everything
            {
              "a": [1, 2, 3,], /* block
              comment */
              "b": {"c": 1,}, // trailing
            }
            """
        let v = try JSONParser.parse(text)
        #expect(v["a"] == .array([.number(1), .number(2), .number(3)]))
        #expect(v["b"]?["c"] == .number(1))
    }

    @Test func readsJSON5Literals() throws {
        let v = try JSONParser.parse("{unquoted: 'single', n: NaN, i: -Infinity, p: +1, d: .5, e: 5.}")
        #expect(v["unquoted"] == .string("single"))
        if case .number(let x) = v["n"] { #expect(x.isNaN) } else { Issue.record("NaN not read") }
        #expect(v["i"] == .number(-.infinity))
        #expect(v["p"] == .number(1))
        #expect(v["d"] == .number(0.5))
        #expect(v["e"] == .number(5))
    }

    @Test(arguments: [
        ("{\"a\": 1\n  \"b\": 2}", 2, 3, "expected ',' or '}' after the value of \"a\", found '\"'"),
        ("{\"a\": [1, 2,, 3]}", 1, 13, "expected a value or ']', found ','"),
        ("{\n\n  \"a\": tru }", 3, 8, "expected a value, found 'tru' (strings need quotes)"),
        ("{\"a\": 1", 1, 8, "the object opened on line 1 is never closed"),
        ("{\"a\": \"x}", 1, 10, "a string is never closed"),
        ("[1] 2", 1, 5, "unexpected '2' after the end of the document"),
        ("", 1, 1, "the document is empty"),
        ("{\"a\": 1e}", 1, 9, "invalid number: the exponent has no digits"),
        ("/* open", 1, 8, "the comment opened on line 1 is never closed"),
    ])
    func reportsLineAndColumn(text: String, line: Int, column: Int, reason: String) {
        #expect(throws: JSONSyntaxError(line: line, column: column, reason: reason)) {
            try JSONParser.parse(text)
        }
    }

    @Test func rejectsExcessiveNesting() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test func writerRoundTrips() throws {
        let v: JSONValue = .object(JSONObject([
            "s": .string("quote\" backslash\\ tab\t ctl\u{01}"), "n": .number(0.1), "i": .number(3),
            "a": .array([.null, .bool(true)]), "o": .object(JSONObject()),
        ]))
        for pretty in [false, true] {
            let text = JSONWriter.write(v, pretty: pretty)
            #expect(try JSONParser.parse(text) == v)
        }
        #expect(JSONWriter.write(.number(3)) == "3")
        #expect(JSONWriter.write(.number(1e-5)) == "1e-05")
        // Integers are written digit by digit, as formatNumber would give them.
        for x in [0, -0.0, 7, -7, 10, 100, -123_456, 999_999_999_999_999, -999_999_999_999_999, 1e15, 1.5, .infinity] {
            #expect(JSONWriter.write(.number(x)) == JSONWriter.formatNumber(x), "\(x)")
        }
        #expect(JSONWriter.write(.number(-123_456)) == "-123456" && JSONWriter.write(.number(-0.0)) == "0")
        var line: [UInt8] = []
        JSONWriter.append(string: "a\"b", to: &line)
        JSONWriter.append(.number(42), to: &line)
        #expect(String(decoding: line, as: UTF8.self) == #""a\"b"42"#)
    }

    /// Short decimals take a fast path (no strtod): every one reads as exactly the Double that
    /// strtod (`Double(String)`) gives, sign of zero included, and long or exponent forms too.
    @Test func numbersReadAsStrtodReadsThem() throws {
        var texts = ["0", "-0", "-0.0", "1.", ".5", "+1", "0.1", "0.2", "0.3", "0.8", "0.002", "-12.75", "123456789012345",
                     "0.123456789012345", "999999999999999", "1234567890123456", "0.1234567890123456", "1e3", "2.5E-3", "9007199254740993"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let whole = String(UInt64.random(in: 0...999_999, using: &generator))
            let fraction = String(UInt64.random(in: 0...999_999_999, using: &generator))
            let cut = fraction.prefix(Int.random(in: 0...fraction.count, using: &generator))
            texts.append((Bool.random(using: &generator) ? "-" : "") + whole + (cut.isEmpty ? "" : "." + cut))
        }
        for text in texts {
            let expected = try #require(Double(text))
            let parsed = try JSONParser.parse(text)
            guard case .number(let x) = parsed else { Issue.record("\(text): \(parsed)"); continue }
            #expect(x.bitPattern == expected.bitPattern, "\(text): \(x) != \(expected)")
        }
    }
}
