import BoundedIO
import Dispatch
import Logging
import SystemPackage

extension SimulatedPad {
    /// Reads `unplug N` / `plug N` lines from `fd` (`hapticd --simulate --simulate-control`: standard
    /// input) on a thread of its own until end of file, and unplugs or plugs back simulated pad N as
    /// hot-plug would: for tests of what clients see when a pad goes and comes back. Lines are bounded
    /// (longer ones are skipped); a pad already in the state asked for is left alone.
    public static func followControlLines(fd: Int32, pads: Int, core: DaemonCore, logger: Logger) {
        DispatchQueue(label: "hapticd.simulate-control").async {
            var unplugged: Set<Int> = []
            var chunk = BoundedChunk(capacity: 4096)
            var lines = LineSplitter(maximumLength: 64)
            let input = FileDescriptor(rawValue: fd)
            while (try? chunk.read(from: input)) ?? 0 > 0 {
                for piece in lines.feed(chunk.bytes) {
                    guard case .line(let line) = piece, let (word, i) = Self.controlCommand(line, pads: pads) else {
                        logger.warning("simulate-control: expected 'unplug N' or 'plug N' with N in 0..<\(pads)")
                        continue
                    }
                    let pad = SimulatedPad(index: i)
                    if word == "unplug", unplugged.insert(i).inserted {
                        core.removeDevice(path: pad.info.path)
                    } else if word == "plug", unplugged.remove(i) != nil {
                        core.addPad(info: pad.info, sink: pad, simulated: true)
                    }
                }
            }
        }
    }

    /// `unplug N` or `plug N` with N in 0..<pads.
    static func controlCommand(_ line: [UInt8], pads: Int) -> (String, Int)? {
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.count == 2, let i = Int(words[1]), (0..<pads).contains(i), ["unplug", "plug"].contains(words[0]) else { return nil }
        return (String(words[0]), i)
    }
}
