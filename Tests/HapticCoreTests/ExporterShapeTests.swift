import HapticCore
import Testing

/// Files written the way each kind of tool writes them (issue 12 §5). Each one loads through the same
/// entry point as files and inline patterns (`PatternLoader`, format detected), says exactly what it
/// should, and plays as its tool meant.
@Suite struct ExporterShapeTests {
    /// Xcode / Apple's samples: `" : "` spacing, keys in any order, trailing commas, relative curve
    /// times — including a curve whose first point happens to equal its Time (as in Apple's Jump.ahap).
    static let apple = """
        {
            "Version" : 1.0,
            "Metadata" : {
                "Project" : "Jumps",
                "Created" : "1 June 2019",
                "Description" : "A jump: a thud, a rising buzz, a landing."
            },
            "Pattern" : [
                {
                    "Event" : {
                        "Time" : 0.0,
                        "EventType" : "HapticTransient",
                        "EventParameters" : [
                            { "ParameterID" : "HapticIntensity", "ParameterValue" : 0.8 },
                            { "ParameterID" : "HapticSharpness", "ParameterValue" : 0.4 },
                        ],
                    },
                },
                {
                    "Event" : {
                        "Time" : 0.015,
                        "EventType" : "HapticContinuous",
                        "EventDuration" : 0.6,
                        "EventParameters" : [
                            { "ParameterID" : "HapticIntensity", "ParameterValue" : 1.0 },
                            { "ParameterID" : "HapticSharpness", "ParameterValue" : 0.5 },
                        ],
                    },
                },
                {
                    "ParameterCurve" : {
                        "ParameterID" : "HapticSharpnessControl",
                        "ParameterCurveControlPoints" : [
                            { "ParameterValue" : -0.2, "Time" : 0.0 },
                            { "ParameterValue" : 0.6, "Time" : 0.37 },
                        ],
                        "Time" : 0.07,
                    },
                },
                {
                    "ParameterCurve" : {
                        "ParameterID" : "HapticIntensityControl",
                        "ParameterCurveControlPoints" : [
                            { "ParameterValue" : 1.0, "Time" : 0.07 },
                            { "ParameterValue" : 0.0, "Time" : 0.37 },
                        ],
                        "Time" : 0.07,
                    },
                },
            ],
        }
        """

    /// A generator (a game-engine plugin, a web tool) that serialises every field of its own model on
    /// one line: `null` where unused, waveform keys on haptic events, numbers as it computed them.
    static let minified = #"{"Version":1,"Metadata":null,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventDuration":null,"EventWaveformPath":null,"EventWaveformUseVolumeEnvelope":null,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.7000000000000001},{"ParameterID":"HapticSharpness","ParameterValue":0.30000000000000004}]},"Parameter":null,"ParameterCurve":null},{"Event":{"Time":0.1,"EventType":"HapticContinuous","EventDuration":0.25,"EventWaveformPath":null,"EventWaveformUseVolumeEnvelope":null,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.5},{"ParameterID":"HapticSharpness","ParameterValue":null}]},"Parameter":null,"ParameterCurve":null},{"Event":null,"Parameter":{"ParameterID":"HapticIntensityControl","Time":0.2,"ParameterValue":0.5},"ParameterCurve":null}]}"#

    /// Hand-written, as in tutorials: comments, unquoted keys, trailing commas, a 45 s rumble, points
    /// typed out of order.
    static let handWritten = """
        // A long rumble that fades, with a click on top.
        {
          Version: 1.0,
          /* Metadata is optional. */
          Pattern: [
            { Event: { EventType: "HapticContinuous", Time: 0, EventDuration: 45, // longer than Apple's 30 s
                       EventParameters: [ { ParameterID: "HapticIntensity", ParameterValue: 0.9 } ] } },
            { Event: { EventType: "HapticTransient", Time: 1.5 } },
            { ParameterCurve: { ParameterID: "HapticIntensityControl", Time: 0,
                ParameterCurveControlPoints: [
                  { Time: 0, ParameterValue: 1 },
                  { Time: 20, ParameterValue: 0.2 },
                  { Time: 10, ParameterValue: 0.6 },   // typed out of order
                ] } },
          ],
        }
        """

    /// Meta Haptics Studio's `.haptic` export: pretty-printed, every metadata key, dense breakpoints.
    static let metaStudio: String = {
        let amplitude = (0...200).map { k -> String in
            let t = Double(k) * 0.005
            let a = k < 20 ? Double(k) / 20 : max(0, 1 - Double(k - 20) / 181)
            let e = k % 50 == 10 ? ",\n          \"emphasis\": {\n            \"amplitude\": 1.0,\n            \"frequency\": 0.8\n          }" : ""
            return "        {\n          \"time\": \(t),\n          \"amplitude\": \(a)\(e)\n        }"
        }
        let frequency = (0...20).map { k in "        {\n          \"time\": \(Double(k) * 0.05),\n          \"frequency\": \(Double(k % 4) / 4)\n        }" }
        return """
            {
              "version": {
                "major": 1,
                "minor": 0,
                "patch": 0
              },
              "metadata": {
                "editor": "Meta Haptics Studio 2.3.1",
                "author": "",
                "source": "impact.wav",
                "project": "impacts.hasp",
                "tags": [],
                "description": ""
              },
              "signals": {
                "continuous": {
                  "envelopes": {
                    "amplitude": [
            \(amplitude.joined(separator: ",\n"))
                    ],
                    "frequency": [
            \(frequency.joined(separator: ",\n"))
                    ]
                  }
                }
              }
            }
            """
    }()

    /// Lofelt Studio's older `.haptic` (v1, no frequency envelope, a newer minor version).
    static let lofeltStudio = #"{"version":{"major":1,"minor":1,"patch":0},"metadata":{"editor":"Lofelt Studio 1.4","author":"","source":"door.wav","project":"","tags":["door"],"description":"door slam"},"signals":{"continuous":{"envelopes":{"amplitude":[{"time":0.0,"amplitude":0.0},{"time":0.012,"amplitude":0.9,"emphasis":{"amplitude":1.0,"frequency":0.6}},{"time":0.25,"amplitude":0.1},{"time":0.4,"amplitude":0.0}]}}}}"#

    @Test func appleSamplesLoadCleanlyWithRelativeCurves() throws {
        let loaded = try PatternLoader.load(text: Self.apple)
        #expect(loaded.format == .ahap)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        // Relative: the intensity curve's first point is 0.07 s after its start at 0.07 s.
        let intensity = loaded.pattern.curves.first { $0.id == .hapticIntensityControl }!
        #expect(intensity.time == 0.07 && intensity.controlPoints[0].time == 0.07)
        let c = CompiledPattern(loaded.pattern)
        #expect(abs(c.controls.intensity.value(at: 0.14) - 1) < 1e-12)
        #expect(abs(c.controls.intensity.value(at: 0.29) - 0.5) < 1e-12)
        #expect(abs(loaded.pattern.duration - 0.615) < 1e-12)
    }

    @Test func minifiedGeneratorOutputLoadsWithNullsAsAbsent() throws {
        let loaded = try PatternLoader.load(text: Self.minified)
        // Its `null` waveform keys on haptic events are absent too: nothing to warn about.
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let p = loaded.pattern
        #expect(p.events.count == 2 && p.parameters.count == 1)
        #expect(p.events[0].duration == nil, "EventDuration: null is absent")
        #expect(p.events[1].value(.hapticSharpness) == 0.5, "ParameterValue: null takes the default")
        #expect(p.metadata == nil)
    }

    @Test func handWrittenFilesLoadWithWarningsNotErrors() throws {
        let loaded = try PatternLoader.load(text: Self.handWritten)
        #expect(loaded.warnings.map(\.path) == [
            "Pattern[0].Event.EventDuration", "Pattern[2].ParameterCurve.ParameterCurveControlPoints",
        ])
        #expect(loaded.pattern.events[0].duration == 30, "clamped to Apple's maximum")
        #expect(loaded.pattern.curves[0].controlPoints.map(\.time) == [0, 10, 20], "sorted, every point at its time")
        let c = CompiledPattern(loaded.pattern)
        #expect(abs(c.frame(at: 5).intensity - 0.9 * 0.8) < 1e-12)
        #expect(c.frame(at: 30.5) == .silent)
    }

    @Test func metaHapticsStudioClipsPlayAsDrawn() throws {
        let loaded = try PatternLoader.load(text: Self.metaStudio)
        #expect(loaded.format == .haptic)
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        #expect(loaded.pattern.metadata?["Editor"] == .string("Meta Haptics Studio 2.3.1"))
        #expect(loaded.pattern.metadata?["Description"] == nil, "empty fields carry nothing")
        let transients = loaded.pattern.events.filter { $0.type == .hapticTransient }
        #expect(transients.map(\.time) == [0.05, 0.3, 0.55, 0.8])
        let c = CompiledPattern(loaded.pattern)
        #expect(abs(c.frame(at: 0.0475).intensity - 0.475) < 1e-9, "the attack ramp, linear between breakpoints")
        #expect(c.frame(at: 0.3).intensity == 1, "an emphasis on top of the envelope")
        #expect(abs(loaded.pattern.duration - 1.0) < 1e-12)
    }

    @Test func lofeltStudioClipsLoadToo() throws {
        let loaded = try PatternLoader.load(text: Self.lofeltStudio)
        #expect(loaded.warnings == [.init(.warning, "version", "version 1.1.0 is newer than 1.0.0; read as 1.0 (minor versions only add fields), unknown fields ignored")])
        #expect(loaded.pattern.events[1] == .transient(at: 0.012, intensity: 1, sharpness: 0.6))
        #expect(CompiledPattern(loaded.pattern).frame(at: 0.3).sharpness == 0.5, "no frequency envelope: 0.5")
    }
}
