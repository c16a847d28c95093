import BoundedIO
import Glibc
import HapticCore
import Logging

/// Named patterns from the configured directories: `heartbeat` is `heartbeat.ahap` or `heartbeat.haptic`
/// (a Meta Haptics Studio / Lofelt clip) in the directories that have it; later directories override
/// earlier ones, so /etc beats /usr/share. Within one directory `NAME.ahap` wins over `NAME.haptic`, and
/// the clip is noted as a problem. Files load in the format their content shows. With `builtIns`, the
/// patterns hapticd has without any file (`BuiltInPatterns`: UIKit's feedback) are there too, path
/// `built-in`, unless a file of the same name overrides one.
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
    /// Pattern directories that could not be listed (absent, or not readable).
    public private(set) var unreadableDirectories: [String] = []

    public init() {}

    public static func load(directories: [String], limits: AHAPLimits, builtIns: Bool = false, logger: Logger? = nil) -> PatternLibrary {
        var library = PatternLibrary()
        if builtIns {
            for b in BuiltInPatterns.all {
                library.entries[b.name] = Entry(name: b.name, path: "built-in", pattern: b.pattern, description: b.description)
            }
        }
        for directory in directories {
            guard let names = directoryEntries(directory) else {
                library.unreadableDirectories.append(directory)
                continue
            }
            let files = names.filter { PatternLoader.format(forPath: $0) != .auto }.sorted()
            let ahapNames = Set(files.filter { PatternLoader.format(forPath: $0) == .ahap }.map { String($0.dropLast(5)) })
            for file in files {
                let path = directory + "/" + file
                let format = PatternLoader.format(forPath: file)
                let name = String(file.dropLast(format == .ahap ? 5 : 7))
                if format == .haptic, ahapNames.contains(name) {
                    library.problems.append("\(path): ignored: \(name).ahap in the same directory has the name")
                    continue
                }
                let data: [UInt8]
                switch readFile(path, limit: min(limits.maximumFileBytes, Int.max - 1) + 1, truncating: true) {
                case .success(let bytes) where bytes.count > limits.maximumFileBytes:
                    // Only a little past the limit was read (a whole read chunk): its count is not the
                    // file's size (hapticctl says the same, the same way).
                    library.problems.append("\(path): $: \(limits.oversizedFile(size: regularFileSize(path)))")
                    continue
                case .success(let bytes): data = bytes
                case .failure(let reason):
                    library.problems.append("\(path): cannot read the file: \(reason)")
                    continue
                }
                do {
                    let loaded = try PatternLoader.load(bytes: data, format: .auto, limits: limits)
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

/// The names in a directory (without `.` and `..`), or nil when it cannot be opened. Plain `readdir`:
/// the daemon does not link Foundation (its ICU data alone would add megabytes of resident memory).
func directoryEntries(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}
