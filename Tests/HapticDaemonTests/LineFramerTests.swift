@testable import HapticDaemon
import Testing

@Suite struct LineFramerTests {
    func lines(_ f: inout LineFramer) -> [InboundLine] {
        var out: [InboundLine] = []
        while let l = f.next() { out.append(l) }
        return out
    }

    @Test func splitsLinesAcrossChunksAndSkipsBlankOnes() {
        var f = LineFramer(maximum: 100)
        f.append(Array("{\"a\":1}\n\n  \r\n{\"b\"".utf8))
        #expect(lines(&f) == [.line("{\"a\":1}")])
        f.append(Array(":2}\r\nrest".utf8))
        #expect(lines(&f) == [.line("{\"b\":2}")])
        #expect(f.finish() == .line("rest"))
    }

    /// Lines of spaces, tabs, CRs, combining marks and invalid UTF-8 in any order: the framer gives
    /// what String's own rules give — a CR before the newline dropped (`hasSuffix`, `removeLast`),
    /// a line of nothing but spaces and tabs skipped (Character by Character) — though it decides
    /// both from the bytes.
    @Test func crsAndBlankLinesAsStringsReadThem() {
        let pieces: [[UInt8]] = [[0x20], [0x09], [0x0D], [0x0D, 0x0D], Array("a".utf8), Array("\u{301}".utf8), [0xFF],
                                 [0xE2, 0x82], Array("é".utf8), Array("{}".utf8), [0x0B], Array("\u{A0}".utf8)]
        var rng = RumbleLineTests.Seeded(state: 26)
        var stream: [UInt8] = []
        var expected: [InboundLine] = []
        for _ in 0..<5000 {
            let line = (0..<Int.random(in: 0...4, using: &rng)).flatMap { _ in pieces.randomElement(using: &rng)! }
            stream += line + [UInt8(ascii: "\n")]
            var text = String(decoding: line, as: UTF8.self)
            if text.hasSuffix("\r") { text.removeLast() }
            if !text.allSatisfy({ $0 == " " || $0 == "\t" }) { expected.append(.line(text)) }
        }
        var f = LineFramer(maximum: 100)
        var got: [InboundLine] = []
        // In chunks that cut lines (and UTF-8 sequences) anywhere.
        var at = 0
        while at < stream.count {
            let n = min(Int.random(in: 1...40, using: &rng), stream.count - at)
            f.append(Array(stream[at..<(at + n)]))
            got += lines(&f)
            at += n
        }
        #expect(got.count == expected.count)
        #expect(got == expected)
    }

    @Test func aLongLineIsReportedOnceAndSkippedToItsNewline() {
        var f = LineFramer(maximum: 10)
        f.append(Array("0123456789".utf8))
        #expect(lines(&f).isEmpty, "exactly the maximum is still a line in the making")
        f.append(Array("abc".utf8))
        #expect(lines(&f) == [.tooLong])
        f.append(Array("def".utf8))
        #expect(lines(&f).isEmpty)
        #expect(f.bufferedBytes == 0, "nothing of a too-long line is kept")
        f.append(Array("ghi\nok\n".utf8))
        #expect(lines(&f) == [.line("ok")])
        f.append(Array("0123456789012\nnext\n".utf8))
        #expect(lines(&f) == [.tooLong, .line("next")])
    }

    /// A line just under the limit that grows one byte at a time: every byte is examined once, not
    /// once per arrival of a later byte (which was quadratic and cost a core).
    @Test func framingIsLinearInTheBytesReceived() {
        let maximum = 1 << 20
        var f = LineFramer(maximum: maximum)
        f.append([UInt8](repeating: UInt8(ascii: "x"), count: maximum - 10_001))
        _ = lines(&f)
        for _ in 0..<10_000 {
            f.append([UInt8(ascii: "y")])
            #expect(f.next() == nil)
        }
        f.append(Array("\n".utf8))
        #expect(f.next() == .line(String(repeating: "x", count: maximum - 10_001) + String(repeating: "y", count: 10_000)))
        #expect(f.bytesExamined == maximum, "each byte looked at once: \(f.bytesExamined)")
    }
}
