// Runs inside the qemu VM against fakepad: the real hapticd finds the uinput pad, plays through the
// socket, and leaves the motor stopped when it gets SIGTERM — and when it is SIGKILLed mid-rumble
// (the kernel erases the effects of a closed descriptor).
//
// Usage: daemon-vmtest PAD_LOG HAPTICD
import Glibc
import HapticClient
import HapticCore
import VMTestSupport

let args = CommandLine.arguments
guard args.count == 3 else {
    print("usage: daemon-vmtest PAD_LOG HAPTICD")
    exit(2)
}
let log = PadLog(path: args[1])
let hapticd = args[2]
let socketPath = "/tmp/hapticd.sock"

/// Starts hapticd; returns its pid once its socket answers (bounded wait).
func startDaemon() -> pid_t? {
    // No --config: the default path does not exist in the VM, which means built-in defaults.
    guard let pid = spawn([hapticd, "--socket", socketPath]) else { return nil }
    return answeringClient(at: socketPath) == nil ? nil : pid
}

func waitExit(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return status
}

/// A long sweep: the loop keeps writing while it plays.
let sweep = HapticPattern(elements: [
    .event(.continuous(at: 0, duration: 20, intensity: 1, sharpness: 0.3)),
    .curve(.init(.hapticIntensityControl, at: 0, points: [.init(0, 0.2), .init(20, 1)])),
])

@MainActor func rumbleThenSignal(_ signal: Int32, _ name: String) {
    guard let pid = startDaemon() else {
        check(false, "\(name): hapticd starts and answers")
        return
    }
    do {
        let client = try HapticClient(path: socketPath)
        let devices = try client.request("devices")
        check(JSONWriter.write(devices["devices"] ?? .null).contains("hapticd-test-pad"), "\(name): hapticd finds the uinput pad", JSONWriter.write(.object(devices)))
        let start = log.read().count
        _ = try client.request("play", JSONObject(["pattern": AHAPWriter.json(sweep), "loop": .bool(true)]))
        let rumbling = log.wait(from: start, timeout: 10) { motorRunning($0) && $0.filter { $0.event == "UPLOAD" }.count >= 3 }
        check(motorRunning(rumbling), "\(name): the pad rumbles through the daemon", "\(rumbling)")
        let before = log.read().count
        kill(pid, signal)
        let status = waitExit(pid)
        if signal == SIGTERM {
            check(status == 0, "SIGTERM: hapticd exits 0", "status \(status)")
            check(access(socketPath, F_OK) != 0, "SIGTERM: the socket file is removed")
        } else {
            check(status & 0x7f == SIGKILL, "SIGKILL: hapticd was killed", "status \(status)")
        }
        let after = log.wait(from: before, timeout: 10) { e in e.contains { $0.event == "ERASE" } }
        check(!motorRunning(log.read()), "\(name): the pad is left stopped", "\(after)")
        check(after.contains { $0.event == "ERASE" }, "\(name): the effect is erased", "\(after)")
    } catch {
        check(false, "\(name): playing through the socket", "\(error)")
        kill(pid, SIGKILL)
        _ = waitExit(pid)
    }
}

/// Plays one request to its end and returns the pad's uploads while it sounded (strong, weak).
/// The pad's profile (fakepad has an Xbox One pad's ids): whether hapticd re-sends the last value of
/// a burst, and zero after a stop (docs/devices.md, "ff-memless loses an update").
let settles = DeviceProfile.forDevice(bus: 0x03, vendor: 0x045E, product: 0x02EA).settles

/// The non-zero values uploaded while `cmd` plays, until the pad is quiet again (on a settling
/// profile: until zero was re-sent after the stop).
@MainActor func uploadsOf(_ client: HapticClient, _ cmd: String, _ members: JSONObject) throws -> [(Int, Int)] {
    let start = log.read().count
    _ = try client.request(cmd, members)
    let entries = log.wait(from: start, timeout: 10) { e in
        e.contains { $0.event == "UPLOAD" && ($0.int("strong") != 0 || $0.int("weak") != 0) } && !motorRunning(e)
            && (!settles || settledAfterStop(e))
    }
    return entries.filter { $0.event == "UPLOAD" }.map { ($0.int("strong") ?? -1, $0.int("weak") ?? -1) }.filter { $0 != (0, 0) }
}

/// The controller API on a real kernel: `leftHandle` moves only the strong (left, low-frequency)
/// motor, `rightHandle` only the weak one; and a sustained rumble is one upload to the pad — the
/// event-driven loop does not rewrite a value that does not change.
@MainActor func localitiesAndSustainedRumble() {
    guard let pid = startDaemon() else {
        check(false, "localities: hapticd starts and answers")
        return
    }
    defer {
        kill(pid, SIGTERM)
        _ = waitExit(pid)
    }
    do {
        let client = try HapticClient(path: socketPath)
        let tone = AHAPWriter.json(HapticPattern(elements: [
            .event(.continuous(at: 0, duration: 0.3, intensity: 1, sharpness: 0.5)),
        ]))
        let left = try uploadsOf(client, "play", JSONObject(["pattern": tone, "locality": .string("leftHandle")]))
        check(!left.isEmpty && left.allSatisfy { $0.0 > 0 && $0.1 == 0 }, "leftHandle moves only the strong motor", "\(left)")
        let right = try uploadsOf(client, "play", JSONObject(["pattern": tone, "locality": .string("rightHandle")]))
        check(!right.isEmpty && right.allSatisfy { $0.0 == 0 && $0.1 > 0 }, "rightHandle moves only the weak motor", "\(right)")
        let both = try uploadsOf(client, "play", JSONObject(["pattern": tone]))
        check(!both.isEmpty && both.allSatisfy { $0.0 > 0 && $0.1 > 0 }, "the default locality moves both motors", "\(both)")
        let sustained = try uploadsOf(client, "rumble", JSONObject(["strong": .number(0.8), "weak": .number(0.4), "duration": .number(1.5)]))
        // One write of the value (and, on a settling profile, its one re-send), then a stop.
        check(sustained.count == (settles ? 2 : 1) && Set(sustained.map { "\($0)" }).count == 1,
              "a sustained 1.5 s rumble is one upload to the pad\(settles ? " (and its settling re-send)" : ""), then a stop", "\(sustained)")
        do {
            _ = try client.request("play", JSONObject(["pattern": tone, "locality": .string("leftTrigger")]))
            check(false, "a trigger locality is refused on an evdev pad", "it was accepted")
        } catch {
            if case .failed(let code, _, _) = error {
                check(code == "unsupported", "a trigger locality is refused on an evdev pad as unsupported", code)
            } else {
                check(false, "a trigger locality is refused on an evdev pad", "\(error)")
            }
        }
    } catch {
        check(false, "localities through the socket", "\(error)")
    }
}

localitiesAndSustainedRumble()
rumbleThenSignal(SIGTERM, "SIGTERM")
rumbleThenSignal(SIGKILL, "SIGKILL")
finish("daemon-vmtest")
