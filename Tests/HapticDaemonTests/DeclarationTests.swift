import DaemonTestSupport
import Foundation
import HapticCore
@testable import HapticDaemon
import HapticProtocol
import Testing

/// The command declarations (HapticProtocol's `Declarations`) against the daemon that dispatches by
/// them and the protocol document that lists them.
@Suite struct DeclarationTests {
    @Test func everyCommandIsDeclaredOnceWithUniqueArguments() {
        let names = Declarations.all.map(\.name)
        #expect(Set(names).count == names.count, "\(names)")
        #expect(Set(names) == Set(Command.allCases.map(\.rawValue)))
        for d in Declarations.all {
            let args = d.arguments.map(\.name)
            #expect(Set(args).count == args.count, "\(d.name): \(args)")
            #expect(Declarations.declaration(d.command).name == d.name)
        }
    }

    @Test func everyDeclaredCommandHasAHandlerOfItsKind() {
        for type in Declarations.requestTypes {
            let d = type.declaration
            if d.permission == .owner {
                #expect(type is any DaemonPlayerCommand.Type, "\(d.name) acts on a player: its handler takes the owned player")
                #expect(d.arguments.first == ArgumentSpec("player", .integer, required: true), "\(d.name)")
            } else {
                #expect(type is any DaemonCommand.Type, "\(d.name) has no handler")
            }
        }
    }

    @Test func aFieldOfTheWrongTypeIsNamedInItsError() throws {
        let cases: [(String, String, String)] = [
            ("player.seek", #""player":1,"offset":"x""#, #""offset" must be a finite number, not a string"#),
            ("player.seek", #""player":1"#, #"missing "offset""#),
            ("gain.set", #""gain":2"#, #""gain" must be within 0…1, not 2.0"#),
            ("play", #""name":"x","locality":"nose""#,
             #"unknown locality "nose" (known: default, all, handles, leftHandle, rightHandle, triggers, leftTrigger, rightTrigger)"#),
            ("play", #""name":"x","priority":101"#, #""priority" must be within −100…100, not 101"#),
            ("player.start", #""player":1,"at":1,"after":2"#, #"give "at" or "after", not both"#),
            ("policy.set", "", "policy.set needs at least one of mode, max_strength, duck"),
            ("rumble", #""strong":0.5,"weak":0.5"#, #"missing "duration" (seconds)"#),
            ("play", #""name":"x","curve_times":"relative""#, #""curve_times" is for an inline "pattern""#),
            ("play", #""pattern":{"Pattern":[]},"format":"xml""#, #"unknown pattern format "xml" (known: auto, ahap, haptic)"#),
            ("player.create", #""pattern":{"Pattern":[]},"curve_times":"absolute""#, #"unknown curve_times "absolute" (known: decide, relative)"#),
        ]
        for (command, members, message) in cases {
            let line = #"{"id":1,"cmd":"\#(command)"\#(members.isEmpty ? "" : ",")\#(members)}"#
            let request = try Request.parse(line)
            let type = Declarations.requestType(Command(rawValue: command)!)
            #expect(throws: ProtocolError(.badRequest, message), "\(line)") { _ = try type.decode(request) }
        }
    }

    @Test func theProtocolDocumentsCommandTableIsTheDeclarations() throws {
        let doc = try String(contentsOfFile: repositoryRoot + "/docs/PROTOCOL.md", encoding: .utf8)
        let begin = "<!-- commands: begin -->\n", end = "<!-- commands: end -->"
        guard let a = doc.range(of: begin), let b = doc.range(of: end, range: a.upperBound..<doc.endIndex) else {
            Issue.record("docs/PROTOCOL.md has no command table between \(begin) and \(end)")
            return
        }
        let table = String(doc[a.upperBound..<b.lowerBound])
        #expect(table == Self.commandTable, "docs/PROTOCOL.md's command table should read:\n\(Self.commandTable)")
    }

    /// The table as docs/PROTOCOL.md shows it.
    static var commandTable: String {
        var lines = ["| command | arguments (* required) | state | who may send it | what it does |", "|---|---|---|---|---|"]
        for d in Declarations.all {
            let args = d.arguments.map { "`\($0.name)`\($0.required ? "*" : "") \($0.type.rawValue)" }.joined(separator: ", ")
            lines.append("| `\(d.name)` | \(args.isEmpty ? "—" : args) | \(d.effect.rawValue) | \(d.permission.name) | \(d.summary) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
