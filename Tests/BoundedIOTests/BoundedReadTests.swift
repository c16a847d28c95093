import BoundedIO
import Foundation
import SystemPackage
import Testing

@Suite struct ReadFileTests {
    private func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("boundedio-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    @Test func readsAWholeFileUpToTheLimit() throws {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }  // more than one 64 KiB chunk
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try readFile(path, limit: bytes.count).get() == bytes)
    }

    @Test func aFileOverTheLimitIsAnError() throws {
        let path = try temporaryFile([UInt8](repeating: 7, count: 100))
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard case .failure(let failure) = readFile(path, limit: 99) else {
            Issue.record("a 100-byte file read with a 99-byte limit")
            return
        }
        #expect(failure.errno == Errno.fileTooLarge.rawValue)
        #expect(failure.description == "larger than 99 bytes")
    }

    @Test func truncatingReturnsAtLeastTheLimitWhenTheFileHasIt() throws {
        let bytes = [UInt8](repeating: 1, count: 150_000)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try readFile(path, limit: 70_000, truncating: true).get()
        #expect(read.count >= 70_000 && read.count < bytes.count, "stops at the first chunk past the limit")
        #expect(try readFile(path, limit: 1_000_000, truncating: true).get().count == bytes.count)
    }

    @Test func aMissingFileSaysSo() {
        guard case .failure(let failure) = readFile("/nonexistent/boundedio/\(UUID().uuidString)", limit: 10) else {
            Issue.record("read a file that does not exist")
            return
        }
        #expect(failure.errno == Errno.noSuchFileOrDirectory.rawValue)
        #expect(failure.description == "no such file")
    }

    @Test func aDirectoryIsAnErrorNotACrash() {
        guard case .failure(let failure) = readFile("/", limit: 10) else {
            Issue.record("read a directory as a file")
            return
        }
        #expect(failure.errno == Errno.isDirectory.rawValue)
    }
}

@Suite struct BoundedChunkTests {
    @Test func readsAtMostItsCapacityAndZeroAtEndOfFile() throws {
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close() }
        _ = try pipe.writeEnd.writeAll(Array("hello, world".utf8))
        try pipe.writeEnd.close()
        var chunk = BoundedChunk(capacity: 5)
        var got: [UInt8] = []
        while try chunk.read(from: pipe.readEnd) > 0 {
            #expect(chunk.bytes.count <= 5)
            got += chunk.bytes
        }
        #expect(String(decoding: got, as: UTF8.self) == "hello, world")
        #expect(chunk.bytes.isEmpty)
    }

    @Test func aNonBlockingDescriptorWithNothingToReadThrowsEAGAIN() throws {
        let pipe = try FileDescriptor.pipe()
        defer {
            try? pipe.readEnd.close()
            try? pipe.writeEnd.close()
        }
        _ = fcntl(pipe.readEnd.rawValue, F_SETFL, fcntl(pipe.readEnd.rawValue, F_GETFL) | O_NONBLOCK)
        var chunk = BoundedChunk()
        #expect(throws: Errno.resourceTemporarilyUnavailable) { try chunk.read(from: pipe.readEnd) }
    }

    @Test func aClosedDescriptorIsAnError() {
        var chunk = BoundedChunk()
        #expect(throws: Errno.badFileDescriptor) { try chunk.read(from: FileDescriptor(rawValue: -1)) }
    }
}

@Suite struct LineSplitterTests {
    @Test func linesSplitAcrossFeedsComeOutWhole() {
        var lines = LineSplitter(maximumLength: 100)
        #expect(lines.feed(Array("unplug".utf8)) == [])
        #expect(lines.pendingCount == 6)
        #expect(lines.feed(Array(" 1\nplug 1\npl".utf8)) == [.line(Array("unplug 1".utf8)), .line(Array("plug 1".utf8))])
        #expect(lines.feed(Array("ug 0\n\n".utf8)) == [.line(Array("plug 0".utf8)), .line([])])
        #expect(lines.pendingCount == 0)
    }

    @Test func aLineOfExactlyTheLimitIsKeptOneLongerIsNot() {
        var lines = LineSplitter(maximumLength: 4)
        #expect(lines.feed(Array("abcd\nabcde\nxy\n".utf8)) == [.line(Array("abcd".utf8)), .overlong, .line(Array("xy".utf8))])
    }

    @Test func anOverlongLineIsDroppedAsItArrivesAndReportedOnce() {
        var lines = LineSplitter(maximumLength: 8)
        #expect(lines.feed(Array("0123456789".utf8)) == [])
        #expect(lines.isSkippingOverlongLine)
        #expect(lines.pendingCount == 0, "the bytes of a line over the limit are not kept")
        for _ in 0..<1000 { #expect(lines.feed([UInt8](repeating: 65, count: 4096)) == []) }
        #expect(lines.pendingCount == 0)
        #expect(lines.feed(Array("tail\nok\n".utf8)) == [.overlong, .line(Array("ok".utf8))])
        #expect(!lines.isSkippingOverlongLine)
    }
}
