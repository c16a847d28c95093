import HapticCore
import HapticProtocol
import Testing

/// `RumbleLine.scan` against the general path: what it reads from a line is what `Request.parse` and
/// `RumbleRequest`'s declared decoding read from it, and it reads nothing the general path refuses to
/// parse (the daemon writes a rumble's first frame from it before the line is parsed).
@Suite struct RumbleLineTests {
    /// SplitMix64: the generated lines are the same on every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// What the general path reads: nil when it refuses the line.
    static func general(_ line: String) -> (parsed: Bool, request: RumbleRequest?) {
        guard let request = try? Request.parse(line) else { return (false, nil) }
        guard request.command == "rumble" else { return (true, nil) }
        return (true, try? RumbleRequest.decode(request))
    }

    /// The request as `RumbleLine` tells it.
    static func line(of request: RumbleRequest) -> RumbleLine {
        RumbleLine(device: request.placement.target.device, locality: request.placement.target.locality, strong: request.strong,
                   weak: request.weak, duration: request.duration)
    }

    @Test func theLinesGamesSendAreRead() throws {
        // libhapticd (jansson), the VM tests' raw lines (JSONWriter), Python's json.dumps.
        let lines = [
            #"{"id":7,"cmd":"rumble","device":0,"strong":0.75,"weak":0.5,"duration":0.2}"#,
            #"{"cmd": "rumble", "id": 12, "strong": 0.20000000000000001, "weak": 1.0, "duration": 5}"#,
            #"{"id":3,"cmd":"rumble","device":2,"strong":1e-05,"weak":0,"duration":0.016}"#,
            // Over 15 digits (the parser's strtod path), an exponent with a sign, a 9-digit id.
            #"{"id":999999999,"cmd":"rumble","strong":0.12345678901234567,"weak":3e-1,"duration":1e+2}"#,
            JSONWriter.write(.object(JSONObject(["id": .number(9), "cmd": .string("rumble"), "strong": .number(0.3), "weak": .number(0.6),
                                                 "duration": .number(0.25)]))),
            // The trigger motors, a handle.
            #"{"id":8,"cmd":"rumble","device":1,"strong":0.5,"weak":0.25,"locality":"triggers","duration":5}"#,
            #"{"locality": "leftHandle", "id":10,"cmd":"rumble","strong":1,"weak":0,"duration":0.1}"#,
        ]
        for line in lines {
            let scanned = try #require(RumbleLine.scan(line), "\(line)")
            let request = try #require(Self.general(line).request, "\(line)")
            #expect(scanned == Self.line(of: request))
        }
        #expect(RumbleLine.scan(lines[0]) == RumbleLine(device: 0, strong: 0.75, weak: 0.5, duration: 0.2))
        #expect(RumbleLine.scan(lines[5]) == RumbleLine(device: 1, locality: .triggers, strong: 0.5, weak: 0.25, duration: 5))
        // A stop has no duration.
        #expect(RumbleLine.scan(#"{"id":1,"cmd":"rumble","strong":0,"weak":0}"#) == RumbleLine(strong: 0, weak: 0, duration: nil))
    }

    @Test func otherShapesAreLeftToTheGeneralPath() {
        for line in [
            #"{"id":"a","cmd":"rumble","strong":0.5,"weak":0.5,"duration":1}"#,  // a string id
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"delay":0.1}"#,  // a delay
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"priority":5}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"locality":"nose"}"#,  // no such locality
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"locality":"Triggers"}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"locality":"trigger\u0073"}"#,  // an escape
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"locality":3}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,"locality":"triggers","locality":"triggers"}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"strong":0.5,"weak":0.5,"duration":1}"#,  // twice
            #"{"id":1,"cmd":"rumbl\u0065","strong":0.5,"weak":0.5,"duration":1}"#,  // an escape
            #"{"id":1,"cmd":"play","strong":0.5,"weak":0.5,"duration":1}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1} x"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1e999}"#,  // not finite
            #"{"id":1,"cmd":"rumble","strong":05,"weak":0.5,"duration":1}"#,  // a leading zero
            #"{"id":1,"cmd":"rumble","strong":.5,"weak":0.5,"duration":1}"#,
            #"{"id":1,"cmd":"rumble","strong":NaN,"weak":0.5,"duration":1}"#,
            #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1,}"#,
            #"{"id":1,"cmd":"rumble","weak":0.5,"duration":1}"#,  // no strong
            #"{"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1}"#,  // no id
            #"{"id":1,"cmd":"rumble","device":-1,"strong":0.5,"weak":0.5,"duration":1}"#,
            #"{"id":1,"cmd":"rumble","device":1.5,"strong":0.5,"weak":0.5,"duration":1}"#,
            #"{"id":1,"cmd":"rumble","device":12345678901,"strong":0.5,"weak":0.5,"duration":1}"#,
            #"{"id":1234567890,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1}"#,  // a 10-digit id
            "{\"id\":1,\"cmd\":\"rumble\",\"strong\":0.5,\"weak\":0.5,\"duration\":1}\r",  // a CR the parser skips
            "{\"id\":1,\n\"cmd\":\"rumble\",\"strong\":0.5,\"weak\":0.5,\"duration\":1}",
            "",
            "{",
            String(repeating: " ", count: 300) + #"{"id":1,"cmd":"rumble","strong":0.5,"weak":0.5,"duration":1}"#,
        ] {
            #expect(RumbleLine.scan(line) == nil, "\(line)")
        }
    }

    /// Generated lines — members in any order, spaces, numbers of every form, now and then a member
    /// or a token of another shape — never read differently from the general path.
    @Test func generatedLinesReadAsTheGeneralPathReadsThem() {
        var rng = Seeded(state: 0x5EED)
        let numbers = ["0", "1", "0.5", "0.25", "1.0", "0.016", "-0.5", "1.5", "2", "1e-05", "1E2", "2.5e-1", "0.20000000000000001",
                       "0.1234567890123456789", "1e+2", "25e-2", "0.99999999999999999",
                       "5e-324", "-0", "0e0", "00", "1.", ".5", "+1", "1e", "0x1", "Infinity", "\"0.5\"", "true", "null", "1e400"]
        let localities = Locality.allCases.map { "\"\($0.rawValue)\"" } + ["\"nose\"", "\"\"", "1", "\"trigger\\u0073\""]
        var read = 0, withLocality = 0
        for _ in 0..<20_000 {
            var members: [String] = []
            func number() -> String {
                Bool.random(using: &rng) ? numbers.randomElement(using: &rng)! : String(Double.random(in: -0.2...1.2, using: &rng))
            }
            members.append(#""id":"# + ["1", "42", "0", "007", "\"x\"", "1.5", "-3", "999999999", "1234567890"].randomElement(using: &rng)!)
            members.append(#""cmd":"# + ["\"rumble\"", "\"rumble\"", "\"rumble\"", "\"play\"", "\"Rumble\"", "1"].randomElement(using: &rng)!)
            for key in ["strong", "weak", "duration", "device", "delay", "priority", "locality"] {
                let p: Double = ["strong", "weak"].contains(key) ? 0.95 : key == "duration" ? 0.8 : key == "device" ? 0.3 : key == "locality" ? 0.4 : 0.03
                guard Double.random(in: 0..<1, using: &rng) < p else { continue }
                let value = key == "device" ? ["0", "1", "3", "-1", "1.0", "99"].randomElement(using: &rng)!
                    : key == "locality" ? localities.randomElement(using: &rng)!
                    : number()
                members.append("\"\(key)\":\(value)")
            }
            if Double.random(in: 0..<1, using: &rng) < 0.02 { members.append(members.randomElement(using: &rng)!) }
            members.shuffle(using: &rng)
            let space = { [" ", "", "", "\t"].randomElement(using: &rng)! }
            let line = "{" + members.map { m in
                let parts = m.split(separator: ":", maxSplits: 1)
                return space() + parts[0] + space() + ":" + space() + parts[1] + space()
            }.joined(separator: ",") + "}" + (Double.random(in: 0..<1, using: &rng) < 0.05 ? "\r" : "")
            guard let scanned = RumbleLine.scan(line) else { continue }
            read += 1
            let general = Self.general(line)
            #expect(general.parsed, "the general path cannot parse a line read ahead: \(line)")
            guard let request = general.request else {
                // Decoding refuses it: then its values are outside what a rumble takes, which the
                // write ahead refuses too (HapticEngine.rumbleOutput).
                #expect(!(0...1).contains(scanned.strong) || !(0...1).contains(scanned.weak) || (scanned.duration ?? 1) <= 0
                        || (scanned.duration == nil && (scanned.strong > 0 || scanned.weak > 0)), "\(line)")
                continue
            }
            #expect(scanned == Self.line(of: request), "\(line)")
            #expect(request.delay == 0 && request.placement.priority == nil, "\(line)")
            if scanned.locality != .default { withLocality += 1 }
        }
        #expect(read > 1_000 && withLocality > 100, "too few generated lines were of the plain shape: \(read), \(withLocality) with a locality")
    }
}
