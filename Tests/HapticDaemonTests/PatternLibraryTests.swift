import Foundation
import HapticCore
import HapticDaemon
import Testing

@Suite struct PatternLibraryTests {
    static let clip = #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"description": "a clip"}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.4, "amplitude": 0.5}]}}}}"#
    static let ahap = #"{"Metadata": {"Description": "an ahap"}, "Pattern": [{"Event": {"EventType": "HapticTransient"}}]}"#

    func directory(_ files: [String: String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-library-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    @Test func clipsSitBesideAHAPFiles() throws {
        let first = try directory([
            "click.ahap": Self.ahap, "click.haptic": Self.clip, "ramp.haptic": Self.clip, "broken.haptic": #"{"version": {"major": 1}, "signals": {}}"#,
            "override.haptic": Self.clip, "notes.txt": "x",
        ])
        let second = try directory(["override.ahap": Self.ahap])
        defer {
            try? FileManager.default.removeItem(atPath: first)
            try? FileManager.default.removeItem(atPath: second)
        }
        let library = PatternLibrary.load(directories: [first, second], limits: .default)
        #expect(library.names == ["click", "override", "ramp"])
        #expect(library["click"]?.path == first + "/click.ahap", "NAME.ahap wins within a directory")
        #expect(library["ramp"]?.description == "a clip")
        #expect(library["ramp"]?.pattern.events.first?.envelope != nil, "loaded natively, envelope and all")
        #expect(library["override"]?.path == second + "/override.ahap", "a later directory overrides")
        #expect(library.problems.sorted() == [
            "\(first)/broken.haptic: signals.continuous: missing: a .haptic clip holds one continuous signal",
            "\(first)/click.haptic: ignored: click.ahap in the same directory has the name",
        ])
    }

    @Test func theFileLimitApplies() throws {
        let dir = try directory(["big.haptic": Self.clip])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var limits = AHAPLimits.default
        limits.maximumFileBytes = 100
        let library = PatternLibrary.load(directories: [dir], limits: limits)
        #expect(library.names.isEmpty)
        #expect(library.problems == ["\(dir)/big.haptic: $: the file is \(Self.clip.utf8.count) bytes, over the pattern file limit of 100 bytes"])
        // Larger than a read chunk: the file's own size, not what was read of it (65 536 bytes).
        let huge = try directory(["huge.ahap": #"{"Pattern": []}"# + String(repeating: " ", count: 200_000)])
        defer { try? FileManager.default.removeItem(atPath: huge) }
        #expect(PatternLibrary.load(directories: [huge], limits: limits).problems == ["\(huge)/huge.ahap: $: the file is 200015 bytes, over the pattern file limit of 100 bytes"])
    }
}
