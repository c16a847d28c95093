import DaemonTestSupport
import Foundation
import HapticDaemon
import Testing

/// No configuration text can abort the daemon, and a configuration that cannot be read never
/// silently becomes the built-in defaults.
@Suite struct ConfigSafetyTests {
    @Test(arguments: [
        ("[[[", "line 1, column 3: expected a key, found '['"),
        ("[a]]", "line 1, column 4: expected the end of the line, found ']'"),
        ("a = [" + String(repeating: "[", count: 40) + "1" + String(repeating: "]", count: 41), "nested deeper than 32 levels"),
        ("a = 1979-05-27", "dates and times are not used by any hapticd setting"),
        ("a = 07:32:00", "dates and times are not used by any hapticd setting"),
        ("a = \"\\x\"", "unknown escape sequence"),
        ("a = \"\\uD800\"", "not a Unicode scalar value"),
        ("a = \"tab\u{01}\"", "control character in a string"),
        ("a = 01", "leading zeros"),
        ("a = 1__0", "underscore"),
        ("a = { b = 1,\n c = 2 }", "expected a key, found a line break"),
        ("a = \"open", "unterminated string"),
        ("a = '''never closed", "unterminated multi-line string"),
        ("a = +0x10", "expected the end of the line"),
        ("\"\"\"k\"\"\" = 1", "a key cannot be a multi-line string"),
        ("a = 1\rb = 2", "carriage return"),
    ])
    func malformedTextIsRefusedWithLineAndColumn(text: String, message: String) {
        do {
            _ = try DaemonConfig.parse(text)
            Issue.record("expected an error for \(text)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
            #expect(error.description.hasPrefix("line "), "\(error)")
        }
    }

    @Test func invalidUTF8IsRefused() {
        #expect(throws: TOMLSyntax.Failure.self) { try TOMLSyntax.validate(bytes: Array("a = \"".utf8) + [0xC3, 0x28] + Array("\"".utf8)) }
        #expect(throws: TOMLSyntax.Failure.self) { try TOMLSyntax.validate(bytes: Array("# ".utf8) + [0xED, 0xA0, 0x80]) }
    }

    /// TOML the checker must accept: every construct hapticd's configuration could use.
    @Test func validTOMLPasses() throws {
        let text = """
            # comment ✓
            "quoted key" = 'literal \\ string'
            dotted . key = "esc \\t \\u00e9 \\U0001F600"
            ml = \"\"\"
            line one \\
                continued ""quotes"" \"\"\"
            lit = '''
            raw \\n ''two'' '''
            ints = [1_000, -3, +7, 0xdead_BEEF, 0o755, 0b1010,]
            floats = [ # comments inside arrays
              1.5, -0.25e-3, 6E+2, inf, -inf, nan,
            ]
            inline = { a = 1, b = { c = [true, false] } }
            empty = {}
            [table . sub]
            x = 1
            [[array.of]]
            y = 2\r\n
            """
        try TOMLSyntax.validate(text)
    }

    @Test func theShippedConfigPassesTheCheckUncommented() throws {
        let text = try String(contentsOfFile: repositoryRoot + "/config/hapticd.toml", encoding: .utf8)
        try TOMLSyntax.validate(text)
    }

    func temp(_ name: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("hapticd-cfg-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    @Test func loadingFailsClosed() throws {
        let missing = temp("missing.toml")
        #expect(try DaemonConfig.load(path: missing, explicit: false) == DaemonConfig(), "absent at the default path, not asked for: defaults")
        #expect(throws: ConfigError.self) { try DaemonConfig.load(path: missing, explicit: true) }
        do {
            _ = try DaemonConfig.load(path: missing, explicit: true)
        } catch {
            #expect(error.description == "\(missing): no such file")
        }
        // A directory, a huge file and a malformed file are errors that name the path.
        let dir = temp("dir.toml")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        #expect(throws: ConfigError.self) { try DaemonConfig.load(path: dir, explicit: false) }
        let huge = temp("huge.toml")
        try String(repeating: "# padding\n", count: 120_000).write(toFile: huge, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try DaemonConfig.load(path: huge, explicit: false) }
        let bad = temp("bad.toml")
        try "[[[\n".write(toFile: bad, atomically: true, encoding: .utf8)
        do {
            _ = try DaemonConfig.load(path: bad, explicit: false)
            Issue.record("a malformed file loaded")
        } catch {
            #expect(error.description.hasPrefix("\(bad): line 1, column 3"), "\(error)")
        }
    }
}
