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
