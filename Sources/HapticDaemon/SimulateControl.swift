import Dispatch
import Glibc
import Logging

extension SimulatedPad {
    /// Reads `unplug N` / `plug N` lines from `fd` (`hapticd --simulate --simulate-control`: standard
    /// input) on a thread of its own until end of file, and unplugs or plugs back simulated pad N as
    /// hot-plug would: for tests of what clients see when a pad goes and comes back. Lines are bounded
    /// (longer ones are skipped); a pad already in the state asked for is left alone.
    public static func followControlLines(fd: Int32, pads: Int, core: DaemonCore, logger: Logger) {
        DispatchQueue(label: "hapticd.simulate-control").async {
            var unplugged: Set<Int> = []
            var line: [UInt8] = []
            var skipping = false
            var byte: UInt8 = 0
            while true {
                let n = read(fd, &byte, 1)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                if byte != UInt8(ascii: "\n") {
                    if line.count < 64 { line.append(byte) } else { skipping = true }
                    continue
                }
                let words = String(decoding: line, as: UTF8.self).split(separator: " ")
                let overlong = skipping
                line = []
                skipping = false
                guard !overlong, words.count == 2, let i = Int(words[1]), (0..<pads).contains(i), ["unplug", "plug"].contains(words[0]) else {
                    logger.warning("simulate-control: expected 'unplug N' or 'plug N' with N in 0..<\(pads)")
                    continue
                }
                let pad = SimulatedPad(index: i)
                if words[0] == "unplug", unplugged.insert(i).inserted {
                    core.removeDevice(path: pad.info.path)
                } else if words[0] == "plug", unplugged.remove(i) != nil {
                    core.addPad(info: pad.info, sink: pad, simulated: true)
                }
            }
        }
    }
}
