import Foundation
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
                guard let data = fm.contents(atPath: path) else {
                    library.problems.append("\(path): cannot read the file")
                    continue
                }
                do {
                    let loaded = try AHAPLoader.load(bytes: [UInt8](data), limits: limits)
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
    public var names: [String] { entries.keys.sorted() }
}
