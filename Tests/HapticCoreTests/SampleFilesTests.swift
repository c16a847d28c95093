import Foundation
import HapticCore
import Testing

@Suite struct SampleFilesTests {
    @Test func theSharedFolderHoldsFiles() {
        #expect(allSharedAHAPFiles().count >= 13, "../shared/ahap must be beside the project")
    }

    @Test(arguments: allSharedAHAPFiles())
    func everySharedFileLoadsAndRenders(url: URL) throws {
        let loaded = try AHAPLoader.load(bytes: Array(try Data(contentsOf: url)))
        #expect(!loaded.pattern.events.isEmpty)
        for profile in DeviceProfile.builtIn {
            let p = CompiledPattern(loaded.pattern, profile: profile)
            var t = 0.0
            var peak = MotorMagnitudes.zero
            while t <= p.renderEnd + 0.004 {
                let s = p.frame(at: t)
                #expect(s.intensity >= 0 && s.intensity <= 1 && s.sharpness >= 0 && s.sharpness <= 1)
                peak = peak.peak(with: p.magnitudes(at: t))
                t += 0.004
            }
            #expect(!peak.isZero, "\(url.lastPathComponent) is felt on \(profile.name)")
            #expect(p.frame(at: p.renderEnd + 0.001) == .silent)
        }
    }

    @Test func trailingCommaFilesAreAmongThem() throws {
        let bounce = sharedAHAPDirectory.appendingPathComponent("apple-unityplugins/Bounce.ahap")
        let text = try String(contentsOf: bounce, encoding: .utf8)
        #expect(text.contains("\",\n    },") || text.contains(",\n    }"), "Bounce.ahap has trailing commas")
        #expect(throws: Never.self) { try AHAPLoader.load(text: text) }
    }
}

@Suite struct LibraryPatternTests {
    static let directory = repositoryRoot.appendingPathComponent("config/patterns")
    static let required = ["click", "tick", "thud", "double-click", "heartbeat", "success", "warning", "error",
                           "rumble-short", "rumble-long", "sos"]

    @Test(arguments: required)
    func shippedPatternLoadsCleanlyAndIsFelt(name: String) throws {
        let url = Self.directory.appendingPathComponent("\(name).ahap")
        let loaded = try AHAPLoader.load(bytes: Array(try Data(contentsOf: url)))
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let p = CompiledPattern(loaded.pattern)
        var felt = false
        var t = 0.0
        while t <= p.renderEnd { felt = felt || !p.magnitudes(at: t).isZero; t += 0.004 }
        #expect(felt)
    }
}
