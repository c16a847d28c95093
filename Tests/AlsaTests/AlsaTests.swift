import Alsa
import Foundation
import Testing

/// The ALSA stream through alsa-lib's own `file` plugin (raw frames to a file, paced by its `null`
/// slave), so that what reaches "the device" can be read back without a sound card; the DualSense's
/// real stream is judged by snd-usb-audio in the VM.
@Suite struct AlsaPlaybackTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("alsa-\(UUID().uuidString).raw").path
    }

    @Test func framesReachTheDeviceInterleavedWithTheActuatorsOnChannels3And4() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stream = try AlsaPlayback.open(device: "file:FILE=\(path),FORMAT=raw", channels: DualSenseAudio.channels,
                                           rate: DualSenseAudio.rate, periodFrames: 240, periods: 2)
        #expect(stream.channels == 4 && stream.rate == 48_000)
        let left = (0..<480).map { Float(sin(2 * Double.pi * 80 * Double($0) / 48_000)) * 0.5 }
        let right = (0..<480).map { _ in Float(-1.5) }  // saturates at −1
        let frames = DualSenseAudio.frames(left: left, right: right)
        try stream.write(frames)
        stream.close()
        stream.close()
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.count == frames.count * 2, "every frame, 16-bit")
        let read = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        #expect(read == frames)
        for i in 0..<480 {
            #expect(read[i * 4] == 0 && read[i * 4 + 1] == 0, "the speaker channels stay silent")
            #expect(read[i * 4 + 3] == -32767)
        }
        #expect(read[4 * 150 + 2] == 16384, "the left actuator's 80 Hz sine at its crest (a quarter period: 150 frames)")
    }

    @Test func aMissingDeviceIsAClearErrorAndAWriteAfterCloseIsRefused() throws {
        #expect(throws: AlsaError.self) {
            _ = try AlsaPlayback.open(device: "hw:CARD=99,DEV=0", channels: 4, rate: 48_000, periodFrames: 240, periods: 2)
        }
        do {
            _ = try AlsaPlayback.open(device: "hw:CARD=99,DEV=0", channels: 4, rate: 48_000, periodFrames: 240, periods: 2)
        } catch {
            #expect(error.description.hasPrefix("hw:CARD=99,DEV=0: open failed: "))
        }
        #expect(throws: AlsaError("configure", "null", -EINVAL)) {
            _ = try AlsaPlayback.open(device: "null", channels: 0, rate: 48_000, periodFrames: 240, periods: 2)
        }
        let stream = try AlsaPlayback.open(device: "null", channels: 4, rate: 48_000, periodFrames: 240, periods: 2)
        stream.close()
        #expect(throws: AlsaError("write", "null", -EBADFD)) { try stream.write([0, 0, 0, 0]) }
    }

    @Test func errorsSayWhetherTheDeviceIsBusyOrGone() {
        #expect(AlsaError("open", "hw:1", -EBUSY).kind == .busy)
        #expect(AlsaError("write", "hw:1", -ENODEV).kind == .gone)
        #expect(AlsaError("write", "hw:1", -EIO).kind == .other)
    }

    @Test func samplesSaturateAndNaNIsSilence() {
        let f = DualSenseAudio.frames(left: [2, .nan, -0.5], right: [0.25])
        #expect(f == [0, 0, 32767, 8192, 0, 0, 0, 0, 0, 0, -16384, 0])
        #expect(DualSenseAudio.device(card: 2) == "hw:CARD=2,DEV=0")
    }
}
