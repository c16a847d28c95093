import DaemonTestSupport
import Foundation
import HapticCore
import HapticDaemon
import Testing

/// The udev rule the package installs (`hapticd --print-udev-rules`, 70-hapticd.rules) against the
/// hidraw profiles it is made from: exactly their matches, nothing else (docs/packaging.md).
@Suite struct UdevRulesTests {
    /// The KERNELS globs of a rule text's lines, in order.
    func kernels(_ text: String) -> [String] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.components(separatedBy: ", ")
            #expect(fields.count == 4, "\(line)")
            #expect(fields[0] == "SUBSYSTEM==\"hidraw\"")
            #expect(fields[2] == "GROUP=\"input\"" && fields[3] == "MODE=\"0660\"")
            return fields[1].replacingOccurrences(of: "KERNELS==\"", with: "").replacingOccurrences(of: "\"", with: "")
        }
    }

    @Test func theRuleGivesInputExactlyTheHidrawProfilesPads() {
        let rule = DeviceProfile.udevRules(for: DeviceProfile.hidrawBuiltIn)
        // One line per (bus, vendor, product) a hidraw profile matches, in the kernel's HID device name.
        var seen = Set<String>()
        let want = DeviceProfile.hidrawBuiltIn.flatMap(\.matches).map {
            String(format: "%04X:%04X:%04X.*", $0.bus!, $0.vendor, $0.product)
        }.filter { seen.insert($0).inserted }
        #expect(kernels(rule) == want)
        #expect(want.contains("0003:057E:2009.*") && want.contains("0005:057E:2009.*") && want.contains("0005:045E:0B13.*"))
        // The DualSense over Bluetooth streams its voice coils through its node (issue 25); over USB it does not.
        #expect(want.contains("0005:054C:0CE6.*") && want.contains("0005:054C:0DF2.*") && !want.contains("0003:054C:0CE6.*"))
        // A Joy-Con alone over Bluetooth, (L) and (R).
        #expect(want.contains("0005:057E:2006.*") && want.contains("0005:057E:2007.*"))
        // The charging grip: one line for both of its Joy-Cons (one ID; the name tells them apart, not udev).
        #expect(kernels(rule).filter { $0 == "0003:057E:200E.*" }.count == 1)
        #expect(want.count == 13)
        // Evdev profiles (the same Switch ids over evdev aside) add nothing: a DualShock 4's node stays root-only.
        #expect(!rule.contains(":054C:05C4") && !rule.contains(":054C:09CC") && !rule.contains("0003:054C:"))
        // The installed rule is made without a configuration: the defaults' profiles give the same one.
        #expect(DeviceProfile.udevRules(for: DaemonConfig().profiles) == rule)
        #expect(rule.hasSuffix("\"0660\"\n"))
    }

    @Test func aConfiguredHidrawProfileAddsItsPads() throws {
        let config = try DaemonConfig.parse("""
            [[devices.profile]]
            name = "third-party-pro"
            base = "switch-pro-usb-hd"
            bus = 3
            vendor = 0x0F0D
            product = 0x0092
            """)
        let got = kernels(DeviceProfile.udevRules(for: config.profiles))
        #expect(got.first == "0003:0F0D:0092.*", "configured profiles come first")
        // The base's own match follows, once (the built-in switch-pro-usb-hd repeats it).
        #expect(got.filter { $0 == "0003:057E:2009.*" }.count == 1)
        // A profile that matches any bus matches any bus in the rule too.
        var anyBus = DeviceProfile.switchProUSBHD
        anyBus.matches = [.init(vendor: 0x057E, product: 0x2009)]
        #expect(kernels(DeviceProfile.udevRules(for: [anyBus])) == ["*:057E:2009.*"])
    }
}
