import HapticCore
import Testing

/// Edge cases of the held-up pass (issue 26 §1) and of the transient groups (docs/rendering.md §4),
/// found by a review of both.
@Suite struct PulseEdgeTests {
    typealias NL = NothingLostTests

    /// A rumble on both motors whose scheduled stop (`stop(at:)`) falls due between a command and its
    /// held-up pass; the command began a 3 ms pulse stronger than the rumble. At the pass the pad is
    /// at rest, and the walk is needed: but the catch-up's probe ("is a motor at zero by now?") mixes
    /// the engines as they were at the command, with the stop still pending, finds both motors running
    /// and skips the walk — the pulse never reaches the pad, superseded by a zero.
    @Test(arguments: DeviceProfile.builtIn)
    func aPulseBeforeAScheduledStopOfAnotherPlayerIsNotLostToAHeldUpPass(profile: DeviceProfile) throws {
        for loop in NL.Loop.allCases {
            for cost in [0, 0.001] {
                let setUp = NL.Command(time: 10) { e in
                    let bed = try e.makeRumble(strong: 0.3, weak: 0.3, duration: 5)
                    try e.start(bed)
                    try e.stop(bed, at: .at(10.205))
                }
                let pulse = NL.Command(time: 10.200, passLate: 0.010) { e in
                    try e.start(e.makeRumble(strong: NL.strong, weak: NL.weak, duration: 0.003))
                }
                let writes = try NL.run(profile, loop, [setUp, pulse], commandCost: cost)
                let v = NL.value(profile)
                #expect(writes.contains { $0.time >= 10.2 && $0.value.strong >= v.strong && !$0.value.isZero },
                        "\(profile.name), \(loop) loop, command \(cost) s: the 3 ms pulse reaches the pad (writes: \(writes.map { "\($0.time - 10.2) \($0.value)" }))")
                #expect(writes.last?.value.isZero == true, "\(profile.name), \(loop) loop: then rest")
            }
        }
    }

    /// A rumble shorter than `HapticEngine.minimumRumble` (1 ms) whose command's pass comes less than
    /// `PadPipeline.heldUp` late — too soon to walk — but after the rumble's asked-for end: it lasts
    /// 1 ms, so the pass still sees it and the pacer holds it one interval.
    @Test(arguments: DeviceProfile.builtIn)
    func aSubMillisecondRumbleReachesThePadThoughItsPassIsSlightlyLate(profile: DeviceProfile) throws {
        for loop in NL.Loop.allCases {
            let pulse = NL.Command(time: 10, passLate: 0.0007) { e in
                try e.start(e.makeRumble(strong: NL.strong, weak: NL.weak, duration: 0.0003))
            }
            let writes = try NL.run(profile, loop, [pulse], commandCost: 0)
            #expect(writes.contains { !$0.value.isZero }, "\(profile.name), \(loop) loop: the 0.3 ms rumble reaches the pad (writes: \(writes))")
            #expect(writes.last?.value.isZero == true, "\(profile.name), \(loop) loop: then rest")
        }
    }

    /// Two dull transients exactly `transientTogether` (2 ms) apart are two groups ("start less than
    /// this after a group's first": docs/rendering.md §4), wherever they sit in the pattern: 3 ms in,
    /// the later one's 0.6 over the first one's 0.6 tail is 0.6 (the strongest per side), not their
    /// sum. The grouping compares `start - groupStart >= 0.002` in binary floating point: at 0.100 and
    /// 0.102 the difference is 0.0019999999999999879, and the pair becomes one group that sums to 1.
    @Test(arguments: [(0.0, 0.002), (0.010, 0.012), (0.100, 0.102), (0.500, 0.502), (1.0, 1.002), (2.3, 2.302)])
    func transientsExactlyTwoMillisecondsApartGroupAlikeWhereverTheySit(first: Double, second: Double) {
        // The times as an AHAP file writes them (literals, not sums).
        let pattern = HapticPattern(elements: [
            .event(.transient(at: first, intensity: 0.6, sharpness: 0)),
            .event(.transient(at: second, intensity: 0.6, sharpness: 0)),
        ])
        let compiled = CompiledPattern(pattern, profile: .generic)
        let i = compiled.frame(at: second + 0.001).intensity
        #expect(abs(i - 0.6) < 1e-9, "pair at \(first) and \(second) s: intensity \(i) 1 ms after the second (0.6 at 0 and 0.002)")
    }
}
