import Glibc
import HapticCore
import Hidraw
import SystemPackage
import Testing

/// The hidraw backend's node handling and the reports it writes, through a pipe standing in for the
/// node (the kernel's hidraw and a real pad's driver judge it in the VM test).
@Suite struct HidrawNodeTests {
    /// A node writing into a pipe, and the pipe's read end.
    func pipeNode() throws -> (HidrawNode, FileDescriptor) {
        let pipe = try FileDescriptor.pipe()
        return (HidrawNode.adopting(pipe.writeEnd, path: "/dev/hidraw-test"), pipe.readEnd)
    }

    func readAll(_ fd: FileDescriptor, _ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try fd.read(into: $0) }
        return Array(bytes[..<n])
    }

    @Test func aReportIsWrittenWhole() throws {
        let (node, reader) = try pipeNode()
        defer { try? reader.close() }
        try node.write([0x03, 0x0F, 1, 2, 3, 4, 0xFF, 0, 0xEB])
        #expect(try readAll(reader, 64) == [0x03, 0x0F, 1, 2, 3, 4, 0xFF, 0, 0xEB])
    }

    @Test func anythingButHidrawHasNoDeviceInfo() throws {
        let (node, reader) = try pipeNode()
        defer { try? reader.close() }
        #expect(throws: HidrawError(.info, "/dev/hidraw-test", .inappropriateIOCTLForDevice)) { try node.info() }
    }

    @Test func aMissingNodeIsAClearErrorAndAClosedOneCannotBeWritten() throws {
        #expect(throws: HidrawError(.open, "/nonexistent/hidraw9", .noSuchFileOrDirectory)) { try HidrawNode.open("/nonexistent/hidraw9") }
        let (node, reader) = try pipeNode()
        defer { try? reader.close() }
        node.close()
        node.close()
        #expect(!node.isOpen)
        #expect(throws: HidrawError(.write, "/dev/hidraw-test", .badFileDescriptor)) { try node.write([0x10]) }
    }

    @Test func aDeviceThatStopsTakingReportsIsAnErrorNotAStall() throws {
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close() }
        _ = fcntl(pipe.writeEnd.rawValue, F_SETFL, fcntl(pipe.writeEnd.rawValue, F_GETFL) | O_NONBLOCK)
        let node = HidrawNode.adopting(pipe.writeEnd, path: "/dev/hidraw-full")
        let report = [UInt8](repeating: 0x10, count: 4096)
        var error: HidrawError?
        for _ in 0..<1000 {  // a pipe holds 64 KiB: it is full long before
            do { try node.write(report) } catch let e {
                error = e
                break
            }
        }
        #expect(error?.errno == .resourceTemporarilyUnavailable)
    }

    @Test func theInfoRequestIsHIDIOCGRAWINFO() {
        // _IOR('H', 0x03, struct hidraw_devinfo) from <linux/hidraw.h>, as the kernel headers compute it.
        #expect(HidrawInfoRequest.value == 0x8008_4803)
    }
}

@Suite struct RumbleReportTests {
    @Test func switchReportsCarryEachActuatorsIntensityAndSharpnessAndCountModulo16() throws {
        var reports = SwitchHDRumbleReports()
        let profile = DeviceProfile(name: "hd", displayName: "hd", minimumUpdateInterval: 0.008, actuators: .hdRumble)
        // Left: dull at 0.8; right: sharp at 0.5 (crossfaded as the renderer does).
        let left = MotorMapping.magnitudes(for: HapticSignal(intensity: 0.8, sharpness: 0), profile: profile, route: .both)
        let right = MotorMapping.magnitudes(for: HapticSignal(intensity: 0.5, sharpness: 1), profile: profile, route: .both)
        let frame = MotorMagnitudes(strong: left.strong, weak: left.weak, third: right.strong, fourth: right.weak)
        let report = reports.report(frame)
        #expect(report.count == 10 && report[0] == 0x10 && report[1] == 0)
        let l = try #require(SwitchHDRumble.decode(report[2..<6])), r = try #require(SwitchHDRumble.decode(report[6..<10]))
        let expectedLeft = SwitchHDRumble.decode(SwitchHDRumble.encode(SwitchHDRumble.actuator(intensity: 0.8, sharpness: 0)))
        let expectedRight = SwitchHDRumble.decode(SwitchHDRumble.encode(SwitchHDRumble.actuator(intensity: 0.5, sharpness: 1)))
        #expect(l == expectedLeft, "left: a dull 80 Hz low band")
        #expect(r == expectedRight, "right: a sharp 640 Hz high band")
        #expect(l.low.amplitude > 0.7 && l.high.amplitude == 0 && abs(l.low.frequency - 80) < 2)
        #expect(r.high.amplitude > 0.45 && r.low.amplitude == 0 && abs(r.high.frequency - 640) < 12)
        var counters: [UInt8] = []
        for _ in 0..<17 { counters.append(reports.report(.zero)[1]) }
        #expect(counters == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1])
        let silence = reports.silence()
        #expect(Array(silence[2...]) == [0x00, 0x01, 0x40, 0x40, 0x00, 0x01, 0x40, 0x40], "the pad's neutral on both")
    }

    @Test func aJoyConsOneActuatorIsWrittenToBothHalves() throws {
        var reports = SwitchHDRumbleReports(single: true)
        let profile = DeviceProfile.joyConRightBluetoothHD
        let m = MotorMapping.magnitudes(for: HapticSignal(intensity: 0.7, sharpness: 0.8), profile: profile, route: .both)
        // Whatever the second pair holds, a single actuator's report carries the first in both halves.
        let report = reports.report(MotorMagnitudes(strong: m.strong, weak: m.weak, third: 0xFFFF, fourth: 0))
        #expect(report.count == 10 && report[0] == 0x10)
        #expect(Array(report[2..<6]) == Array(report[6..<10]), "a Joy-Con (L) reads the left half, (R) the right")
        let a = try #require(SwitchHDRumble.decode(report[6..<10]))
        #expect(a == SwitchHDRumble.decode(SwitchHDRumble.encode(SwitchHDRumble.actuator(intensity: 0.7, sharpness: 0.8))))
        #expect(Array(reports.silence()[2...]) == [0x00, 0x01, 0x40, 0x40, 0x00, 0x01, 0x40, 0x40])
        // The Pro's two actuators stay two.
        var pro = SwitchHDRumbleReports()
        let two = pro.report(MotorMagnitudes(strong: m.strong, weak: m.weak, third: 0, fourth: 0))
        #expect(Array(two[6..<10]) == [0x00, 0x01, 0x40, 0x40] && Array(two[2..<6]) == Array(report[2..<6]))
    }

    @Test func xboxReportsPutTheSecondPairOnTheTriggers() throws {
        var reports = XboxTriggerReports()
        let report = reports.report(MotorMagnitudes(strong: 0xFFFF, weak: 0, third: 0x8000, fourth: 0))
        let m = try #require(XboxImpulseTriggers.decode(report))
        #expect(m.strong == 1 && m.weak == 0 && m.rightTrigger == 0)
        #expect(abs(m.leftTrigger - 0.51) < 0.005)
        #expect(XboxImpulseTriggers.decode(reports.silence()) == .off)
    }
}
