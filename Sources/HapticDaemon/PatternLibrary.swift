import Foundation
import Glibc
import HapticCore
import Logging

/// Named AHAP patterns from the configured directories: `heartbeat` is `heartbeat.ahap` in the first
/// directory that has it (later directories override earlier ones, so /etc beats /usr/share).
public struct PatternLibrary: Sendable {
    public struct Entry: Sendable {
        public var name: String
        public var path: String
        public var pattern: HapticPattern
        public var description: String?
    }

    public private(set) var entries: [String: Entry] = [:]
    /// Files that did not load, with why (logged, and shown by `patterns`).
    public private(set) var problems: [String] = []

    public init() {}

    public static func load(directories: [String], limits: AHAPLimits, logger: Logger? = nil) -> PatternLibrary {
        var library = PatternLibrary()
        let fm = FileManager.default
        for directory in directories {
            guard let names = try? fm.contentsOfDirectory(atPath: directory) else { continue }
            for file in names.sorted() where file.hasSuffix(".ahap") {
                let path = directory + "/" + file
                let name = String(file.dropLast(5))
                let data: [UInt8]
                switch readFile(path, limit: limits.maximumFileBytes + 1) {
                case .success(let bytes): data = bytes
                case .failure(let reason):
                    library.problems.append("\(path): cannot read the file: \(reason)")
                    continue
                }
                do {
                    let loaded = try AHAPLoader.load(bytes: data, limits: limits)
                    var description: String?
                    if case .string(let d)? = loaded.pattern.metadata?["Description"] { description = d }
                    library.entries[name] = Entry(name: name, path: path, pattern: loaded.pattern, description: description)
                    for w in loaded.warnings { logger?.warning("\(path): \(w)") }
                } catch {
                    for e in error.errors { library.problems.append("\(path): \(e)") }
                }
            }
        }
        for p in library.problems { logger?.error("pattern library: \(p)") }
        return library
    }

    public subscript(name: String) -> Entry? { entries[name] }

    struct ReadFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The file's bytes (at most `limit`), or the reason it could not be read.
    fileprivate static func readFile(_ path: String, limit: Int) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(ReadFailure(description: String(cString: strerror(errno))))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return .success(bytes)
    }
    public var names: [String] { entries.keys.sorted() }
}
