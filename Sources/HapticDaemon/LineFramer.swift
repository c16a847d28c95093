import NIOCore

/// A line, or the news that a line was too long (the rest of it is discarded).
enum InboundLine: Equatable {
    case line(String)
    case tooLong
}

/// Splits a byte stream into newline-terminated lines, in time linear in the bytes received: the
/// scan for a newline resumes where the last one stopped, so each byte is examined once however the
/// stream is chopped (so a client adding one byte at a time to a line just under the limit costs no
/// rescan of the whole line per byte). At most `maximum` bytes of a line are kept: a longer
/// line yields `.tooLong` once and is skipped up to its newline, and the stream goes on.
struct LineFramer {
    let maximum: Int
    private var buffer = ByteBuffer()
    /// Bytes at the start of the readable region already known to hold no newline.
    private var scanned = 0
    /// Skipping the rest of a line that was too long.
    private var discarding = false
    /// Every byte looked at while searching for newlines (the linearity test reads it).
    private(set) var bytesExamined = 0

    init(maximum: Int) { self.maximum = maximum }

    /// Bytes received and not yet returned as lines.
    var bufferedBytes: Int { buffer.readableBytes }

    mutating func append(_ bytes: inout ByteBuffer) {
        // Give back the space of consumed lines now and then (amortised: at most once per half-buffer).
        if buffer.readerIndex > 4096 && buffer.readerIndex > buffer.readableBytes { buffer.discardReadBytes() }
        buffer.writeBuffer(&bytes)
    }

    mutating func append(_ bytes: [UInt8]) {
        var b = ByteBuffer(bytes: bytes)
        append(&b)
    }

    /// The next complete line (blank lines skipped), `.tooLong`, or nil until more bytes arrive.
    mutating func next() -> InboundLine? {
        while true {
            let view = buffer.readableBytesView
            let from = view.startIndex + scanned
            guard let newline = view[from...].firstIndex(of: UInt8(ascii: "\n")) else {
                bytesExamined += view.endIndex - from
                scanned = view.count
                if view.count > maximum || (discarding && view.count > 0) {
                    buffer.moveReaderIndex(forwardBy: view.count)
                    scanned = 0
                    if !discarding {
                        discarding = true
                        return .tooLong
                    }
                }
                return nil
            }
            bytesExamined += newline - from + 1
            let length = newline - view.startIndex
            scanned = 0
            if discarding {
                buffer.moveReaderIndex(forwardBy: length + 1)
                discarding = false
                continue
            }
            if length > maximum {
                buffer.moveReaderIndex(forwardBy: length + 1)
                return .tooLong
            }
            // A CR before the newline, and a blank line, told from the bytes: the same answers as
            // String's `hasSuffix("\r")` and a Character-wise check (CR is a grapheme of its own
            // before a newline, as are a space and a tab), without the Unicode machinery on every
            // request's way to the pad.
            var end = view.startIndex + length
            if length > 0, view[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let blank = view[view.startIndex..<end].allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            let line = blank ? nil : buffer.getString(at: buffer.readerIndex, length: end - view.startIndex)
            buffer.moveReaderIndex(forwardBy: length + 1)
            guard let line else { continue }
            return .line(line)
        }
    }

    /// At the end of the input: a last line without a newline still counts.
    mutating func finish() -> InboundLine? {
        if let line = next() { return line }
        defer {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            scanned = 0
        }
        guard !discarding, buffer.readableBytes > 0, let line = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes)
        else { return nil }
        return line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) ? nil : .line(line)
    }
}
