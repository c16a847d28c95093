// An emulated gamepad behind /dev/uhid: the kernel binds its real driver (hid-playstation, hid-sony,
// hid-nintendo, hid-microsoft, hid-bigbenff) to it, the driver creates the evdev node with FF_RUMBLE,
// and every report the driver sends to the "pad" comes back here. This program answers what each
// driver asks at probe, and logs every output report and SET_REPORT with a CLOCK_MONOTONIC stamp,
// decoded into the motor values the pad would run, in the report's own units. That log is the
// real-kernel tests' ground truth (docs/testing.md).
//
// Log lines (one each, flushed at once; <t> is CLOCK_MONOTONIC seconds):
//   <t> CREATED type=<type> bus=<0xNN> vid=<hex> pid=<hex> hid=<BBBB:VVVV:PPPP> formula=<strong>,<weak>
//   <t> NAME <the uhid device name>
//   <t> INPUTNAME <the name the driver gives the pad's evdev node>
//   <t> STARTED | OPENED | CLOSED | DESTROYED
//   <t> GETREPORT rnum=<hex> size=<n>           (answered; size 0: refused with EIO)
//   <t> RUMBLE strong=<n> weak=<n> via=<output|set_report> [decoder fields]
//   <t> OUTPUT id=<hex> len=<n> [what]          (an output that carries no motor values)
// formula: how the driver turns a 16-bit FF_RUMBLE magnitude m into the logged value (the report's
// own units): div256 (m/256, 0…255), percent (m·100/65535, 0…100), nonzero (m≠0, 0/1), div256nonzero
// (m/256 ≠ 0, 0/1), switch (hid-nintendo's table amplitude 0…1003 of the step for m·1003/65535).
//
// Usage: uhidpad --type TYPE --log FILE [--transport hidg]     (uhidpad --list prints the types)
// --transport hidg: instead of /dev/uhid, a USB HID gadget (configfs, usb_f_hid) on the dummy_hcd
// host controller, so that usbhid binds the pad on a real USB stack (its hidraw node then has a USB
// device parent in sysfs, which SDL2 2.26's hidapi needs to list a USB pad). Output reports arrive on
// /dev/hidgN, input reports go out through it; the log is the same. SIGUSR1/SIGUSR2 do nothing there.
// SIGUSR1 removes the pad (UHID_DESTROY: an unplug), SIGUSR2 creates it again, SIGTERM ends.
// SIGHUP presses the pad's south face button for 100 ms (Switch Pro and Joy-Con (R): B, Joy-Con (L): the
// d-pad's down, Xbox: A; DualSense over USB: cross, with a touch and the touchpad's click) in its input
// reports, logging `<t> PRESS button=<name>` and `<t> RELEASE button=<name>`: the hidraw tests check
// that the kernel driver still delivers the pad's input while hapticd drives its rumble.
#include <errno.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <poll.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "uhidpad-descriptors.h"

#define BUS_USB 0x03
#define BUS_BLUETOOTH 0x05

static FILE *logf_;
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...) {
    fprintf(logf_, "%.6f ", now());
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_);
}

// CRC-32 (reflected 0xEDB88320) over a seed byte and the data: the PlayStation pads' Bluetooth
// checksum (seed 0xA1 input, 0xA2 output, 0xA3 feature), as hid-playstation and hid-sony compute it.
static uint32_t ps_crc32(uint8_t seed, const uint8_t *data, size_t len) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i <= len; i++) {
        crc ^= i == 0 ? seed : data[i - 1];
        for (int b = 0; b < 8; b++) crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
    }
    return ~crc;
}
static void put_le32(uint8_t *p, uint32_t v) {
    p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

struct pad;
struct padtype {
    const char *type;
    const char *name;        // the uhid device name
    const char *input_name;  // what the driver names the evdev node that has FF_RUMBLE
    uint16_t bus;
    uint32_t vendor, product;
    const uint8_t *rdesc;
    size_t rdesc_size;
    const char *uniq;        // Bluetooth MAC (hid-sony's duplicate check reads it); "" for USB
    const char *formula;     // strong,weak: how the driver computes the logged values (see above)
    // Fills a GET_REPORT answer; returns its size, or 0 to refuse.
    size_t (*get_report)(struct pad *, uint8_t rnum, uint8_t *out);
    // An output report (via UHID_OUTPUT) or an output SET_REPORT.
    void (*output)(struct pad *, const uint8_t *data, size_t len, const char *via);
    // Periodic input reports: the interval (0: none) and the sender.
    int input_interval_ms;
    void (*input)(struct pad *);
    // Pads without periodic input reports: sends one with the face button down or up (SIGHUP).
    void (*button)(struct pad *, int down);
    const char *button_name;
};

struct pad {
    const struct padtype *t;
    int fd;
    int created;
    int started;
    // hid-nintendo: input reports only once the driver set report mode 0x30.
    int full_report_mode;
    uint8_t timer;
    // hid-sony DS3: it waits for one input report before any output; stop once output arrives.
    int saw_output;
    double next_input;
    // SIGHUP: the face button held until this time (0: not pressed); `pressed` as last sent.
    double press_until;
    int pressed;
};

// --transport hidg: the gadget's configfs directory and its /dev/hidgN (see create_hidg).
static int hidg_mode;
static char hidg_dir[256];
static unsigned long hidg_dropped;

static int send_event(struct pad *p, struct uhid_event *ev) {
    ssize_t n = write(p->fd, ev, sizeof *ev);
    if (n != (ssize_t)sizeof *ev) {
        logline("ERROR write errno=%d", errno);
        return -1;
    }
    return 0;
}

static void send_input(struct pad *p, const uint8_t *data, size_t len) {
    if (hidg_mode) {
        // The host polls the IN endpoint; a report it has not taken yet is dropped, as on a real bus.
        if (write(p->fd, data, len) < 0) hidg_dropped++;
        return;
    }
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_INPUT2;
    ev.u.input2.size = len;
    memcpy(ev.u.input2.data, data, len);
    send_event(p, &ev);
}

// ---- PlayStation pads (feature report contents: hardware dumps published in hid-tools'
//      hidtools/device/sony_gamepad.py) ------------------------------------------------------

static void mac_bytes(struct pad *p, uint8_t *out) {
    // A fixed, per-type MAC (hid-playstation and hid-sony refuse a second pad with the same one).
    unsigned h = 0;
    for (const char *s = p->t->type; *s; s++) h = h * 31 + (unsigned char)*s;
    uint8_t mac[6] = {0x01, (uint8_t)h, (uint8_t)(h >> 8), (uint8_t)(h >> 16), 0x5d, 0xa0};
    memcpy(out, mac, 6);  // little-endian, as the pads report it
}

static const uint8_t ds5_calibration[41] = {
    0x05, 0xff, 0xff, 0xf2, 0xff, 0x04, 0x00, 0x9d, 0x22, 0x5e, 0xdd, 0x92, 0x22, 0x52, 0xdd, 0xba,
    0x22, 0x51, 0xdd, 0x1c, 0x02, 0x1c, 0x02, 0xfb, 0x1f, 0x05, 0xe0, 0x83, 0x1f, 0x99, 0xdf, 0x07,
    0x20, 0xfc, 0xdf, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00};
static const uint8_t ds5_firmware[64] = {
    0x20, 0x41, 0x75, 0x67, 0x20, 0x31, 0x38, 0x20, 0x32, 0x30, 0x32, 0x30, 0x30, 0x36, 0x3a, 0x32,
    0x30, 0x3a, 0x32, 0x39, 0x03, 0x00, 0x04, 0x00, 0x13, 0x03, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x01,
    0x41, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x02, 0x00, 0x00,
    0x2a, 0x00, 0x01, 0x00, 0x06, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00, 0x00, 0x98, 0xd8, 0xb3, 0xb7};

static size_t dualsense_get_report(struct pad *p, uint8_t rnum, uint8_t *out) {
    size_t n = 0;
    if (rnum == 0x09) {  // pairing info: MAC at 1…6
        n = 20;
        memset(out, 0, n);
        out[0] = 0x09;
        mac_bytes(p, out + 1);
    } else if (rnum == 0x20) {  // firmware info; update version 0x0204 at 44…45
        n = sizeof ds5_firmware;
        memcpy(out, ds5_firmware, n);
    } else if (rnum == 0x05) {  // IMU calibration
        n = sizeof ds5_calibration;
        memcpy(out, ds5_calibration, n);
    }
    if (n && p->t->bus == BUS_BLUETOOTH) put_le32(out + n - 4, ps_crc32(0xA3, out, n - 4));
    return n;
}

// hid-playstation: output 0x02 (USB, 63 bytes) or 0x31 (Bluetooth, 78 bytes, CRC-signed); the
// common part starts at 1 (USB) or 3 (BT): valid_flag0, valid_flag1, motor_right (weak),
// motor_left (strong), …, valid_flag2 at +38. Motor values are valid when the compatible-vibration
// bit is set: valid_flag0 bit 0 (firmware < 2.21) or valid_flag2 bit 2 (newer, and the Edge).
// Bluetooth output 0x32 (142 bytes, CRC-signed with seed 0xA2): the voice-coil haptics — sub-packets
// after the id and the sequence byte, each `id | 0x80` and a length; 0x12 carries 32 stereo frames of
// signed 8-bit samples at 3 kHz. Logged whole (`HAPTICS seq=N crc=ok samples=<64 bytes hex, L R L R…>`)
// so a test can rebuild the waveform the pad would play.
static void dualsense_haptics(const uint8_t *d, size_t len, const char *via) {
    if (len != 142) {
        logline("HAPTICS via=%s len=%zu bad-length", via, len);
        return;
    }
    uint32_t want = ps_crc32(0xA2, d, len - 4);
    uint32_t got = d[len - 4] | d[len - 3] << 8 | d[len - 2] << 16 | (uint32_t)d[len - 1] << 24;
    size_t i = 2;
    while (i + 1 < len - 4) {
        uint8_t id = d[i] & 0x3F, n = d[i + 1];
        if (!(d[i] & 0x80) || i + 2 + n > len - 4) break;
        if (id == 0x12) {
            char hex[2 * 256 + 1];
            for (size_t k = 0; k < n; k++) snprintf(hex + 2 * k, 3, "%02x", d[i + 2 + k]);
            logline("HAPTICS via=%s seq=%u crc=%s frames=%u samples=%s", via, d[1] >> 4, want == got ? "ok" : "bad", n / 2, hex);
            return;
        }
        i += 2 + n;
    }
    logline("HAPTICS via=%s seq=%u crc=%s no-samples", via, d[1] >> 4, want == got ? "ok" : "bad");
}

static void dualsense_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    if (d[0] == 0x32) {
        dualsense_haptics(d, len, via);
        return;
    }
    size_t c = d[0] == 0x31 ? 3 : 1;
    if ((d[0] != 0x02 && d[0] != 0x31) || len < c + 39) {
        logline("OUTPUT id=0x%02x len=%zu unknown", d[0], len);
        return;
    }
    const char *crc = "none";
    if (d[0] == 0x31) {
        uint32_t want = ps_crc32(0xA2, d, len - 4);
        uint32_t got = d[len - 4] | d[len - 3] << 8 | d[len - 2] << 16 | (uint32_t)d[len - 1] << 24;
        crc = want == got ? "ok" : "bad";
    }
    uint8_t f0 = d[c], f2 = d[c + 38];
    if (!(f0 & 0x01) && !(f2 & 0x04)) {
        logline("OUTPUT id=0x%02x len=%zu leds flags=0x%02x,0x%02x,0x%02x crc=%s", d[0], len, f0, d[c + 1], f2, crc);
        return;
    }
    logline("RUMBLE strong=%u weak=%u via=%s id=0x%02x v2=%d crc=%s", d[c + 3], d[c + 2], via, d[0], (f2 & 0x04) ? 1 : 0, crc);
    (void)p;
}

static const uint8_t ds4_calibration_usb[37] = {
    0x02, 0x1e, 0x00, 0x05, 0x00, 0xe2, 0xff, 0xf2, 0x22, 0x4f, 0xdd, 0xbe, 0x22, 0x4d, 0xdd, 0x8d,
    0x22, 0x39, 0xdd, 0x1c, 0x02, 0x1c, 0x02, 0xe3, 0x1f, 0x8b, 0xdf, 0x8c, 0x1e, 0xb4, 0xde, 0x30,
    0x20, 0x71, 0xe0, 0x10, 0x00};
static const uint8_t ds4_calibration_bt[41] = {
    0x05, 0x1e, 0x00, 0x05, 0x00, 0xe2, 0xff, 0xf2, 0x22, 0xbe, 0x22, 0x8d, 0x22, 0x4f, 0xdd, 0x4d,
    0xdd, 0x39, 0xdd, 0x1c, 0x02, 0x1c, 0x02, 0xe3, 0x1f, 0x8b, 0xdf, 0x8c, 0x1e, 0xb4, 0xde, 0x30,
    0x20, 0x71, 0xe0, 0x10, 0x00, 0xca, 0xfc, 0x64, 0x4d};
static const uint8_t ds4_version[49] = {
    0xa3, 0x41, 0x70, 0x72, 0x20, 0x20, 0x38, 0x20, 0x32, 0x30, 0x31, 0x34, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x30, 0x39, 0x3a, 0x34, 0x36, 0x3a, 0x30, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x01, 0x00, 0x43, 0x03, 0x00, 0x00, 0x00, 0x51, 0x00, 0x05, 0x00, 0x00, 0x80, 0x03,
    0x00};

static size_t ds4_get_report(struct pad *p, uint8_t rnum, uint8_t *out) {
    size_t n = 0;
    if (rnum == 0x81 && p->t->bus == BUS_USB) {  // MAC at 1…6
        n = 7;
        out[0] = 0x81;
        mac_bytes(p, out + 1);
    } else if (rnum == 0x02 && p->t->bus == BUS_USB) {
        n = sizeof ds4_calibration_usb;
        memcpy(out, ds4_calibration_usb, n);
    } else if (rnum == 0x05 && p->t->bus == BUS_BLUETOOTH) {
        n = sizeof ds4_calibration_bt;
        memcpy(out, ds4_calibration_bt, n);
        put_le32(out + n - 4, ps_crc32(0xA3, out, n - 4));
    } else if (rnum == 0xA3) {
        n = sizeof ds4_version;
        memcpy(out, ds4_version, n);
    }
    return n;
}

// hid-sony DualShock 4: output 0x05 (USB, 32 bytes): [4] weak, [5] strong; output 0x11 (Bluetooth,
// 78 bytes, CRC-signed): [6] weak, [7] strong. Every report (LED updates too) carries the motors.
static void ds4_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    (void)p;
    if (d[0] == 0x05 && len >= 32) {
        logline("RUMBLE strong=%u weak=%u via=%s id=0x05 flags=0x%02x", d[5], d[4], via, d[1]);
    } else if (d[0] == 0x11 && len >= 78) {
        uint32_t got = d[74] | d[75] << 8 | d[76] << 16 | (uint32_t)d[77] << 24;
        logline("RUMBLE strong=%u weak=%u via=%s id=0x11 flags=0x%02x crc=%s", d[7], d[6], via, d[3],
                ps_crc32(0xA2, d, 74) == got ? "ok" : "bad");
    } else {
        logline("OUTPUT id=0x%02x len=%zu unknown", d[0], len);
    }
}

static size_t ds3_get_report(struct pad *p, uint8_t rnum, uint8_t *out) {
    if (rnum == 0xF2) {  // MAC (big-endian) at 4…9
        static const uint8_t r[17] = {0xf2, 0xff, 0xff, 0x00, 0, 0, 0, 0, 0, 0, 0x00, 0x03, 0x40, 0x80, 0x18, 0x01, 0x8a};
        memcpy(out, r, sizeof r);
        uint8_t mac[6];
        mac_bytes(p, mac);
        for (int i = 0; i < 6; i++) out[4 + i] = mac[5 - i];
        return sizeof r;
    }
    if (rnum == 0xF5) {
        static const uint8_t r[8] = {0x01, 0x00, 0x18, 0x5e, 0x0f, 0x71, 0xa4, 0xbb};
        memcpy(out, r, sizeof r);
        return sizeof r;
    }
    return 0;
}

// hid-sony DualShock 3: SET_REPORT output 0x01 (36 bytes): [3] right (weak) motor on/off, [5] left
// (strong) force 0…255.
static void ds3_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    if (d[0] == 0x01 && len >= 6) {
        p->saw_output = 1;
        logline("RUMBLE strong=%u weak=%u via=%s id=0x01 leds=0x%02x", d[5], d[3], via, len > 10 ? d[10] : 0);
    } else {
        logline("OUTPUT id=0x%02x len=%zu", d[0], len);
    }
}

// The DS3 wants an input report (id 1, 49 bytes) before it sends anything (hid-sony's deferred
// initialisation); a real one streams them, this one sends a few until the first output arrives.
static void ds3_input(struct pad *p) {
    if (p->saw_output) return;
    uint8_t r[49];
    memset(r, 0, sizeof r);
    r[0] = 0x01;
    r[6] = r[7] = r[8] = r[9] = 0x80;  // sticks centred
    r[29] = 0x03;  // plugged in
    r[30] = 0xEE;  // charged
    send_input(p, r, sizeof r);
}

// ---- Nintendo Switch Pro Controller and Joy-Cons (hid-nintendo) ------------------------------------
// Protocol facts: dekuNukem/Nintendo_Switch_Reverse_Engineering and the driver itself.
// A single Joy-Con speaks the Pro Controller's protocol over Bluetooth with three differences that
// matter here: its device info (subcommand 0x02) says controller type 1 (L) or 2 (R) — hid-nintendo
// 6.1 takes which buttons and stick it reads from that byte — its reports are 49 bytes (the
// descriptor's 48 after the id), and of the 8 rumble bytes of an output report 0x01/0x10 it plays
// only its own half: bytes 2–5 (the report's left actuator) on the L, 6–9 on the R
// (bluetooth_hid_notes.md: "4 bytes of rumble data for left Joy-Con, followed by 4 bytes for right
// Joy-Con"). The log decodes both halves and names the one the pad plays (`actuator=`).

// Which Switch pad: 1 Joy-Con (L), 2 Joy-Con (R), 3 Pro Controller — the device info's controller type.
// In the charging grip (057E:200E, one HID interface per Joy-Con) the ID does not say: the type does.
static int switch_type(const struct pad *p) {
    if (p->t->product == 0x200E) return strncmp(p->t->type, "joycon-l", 8) == 0 ? 1 : 2;
    return p->t->product == 0x2006 ? 1 : p->t->product == 0x2007 ? 2 : 3;
}
// Which rumble half the pad plays: the left actuator (bytes 2–5), the right (6–9), or both.
static const char *switch_actuator(const struct pad *p) {
    int k = switch_type(p);
    return k == 1 ? "left" : k == 2 ? "right" : "both";
}
// Input report length: a Joy-Con's over Bluetooth are the descriptor's 49 bytes; over USB (the grip,
// with the Pro's USB descriptor) and the Pro emulation's, 64.
static size_t switch_report_len(const struct pad *p) { return switch_type(p) == 3 || p->t->bus == BUS_USB ? 64 : 49; }

// hid-nintendo's amplitude table (amp field, 0…1003) by step: the published rumble table
// (dekuNukem/Nintendo_Switch_Reverse_Engineering, rumble_data_table.md) the driver encodes with.
static const uint16_t switch_amp[101] = {
    0,   10,  12,  14,  17,  20,  24,  28,  33,  40,  47,  56,  67,  80,  95,  112, 117, 123, 128, 134, 140,
    146, 152, 159, 166, 173, 181, 189, 198, 206, 215, 225, 230, 235, 240, 245, 251, 256, 262, 268, 273,
    279, 286, 292, 298, 305, 311, 318, 325, 332, 340, 347, 355, 362, 370, 378, 387, 395, 404, 413, 422,
    431, 440, 450, 460, 470, 480, 491, 501, 512, 524, 535, 547, 559, 571, 584, 596, 609, 623, 636, 650,
    665, 679, 694, 709, 725, 741, 757, 773, 790, 808, 825, 843, 862, 881, 900, 920, 940, 960, 981, 1003};

// Decodes one motor's 4 bytes: high-band frequency (byte 0 and bit 0 of byte 1), high-band amplitude
// (byte 1 without bit 0 = 2·step), low-band frequency (byte 2 bits 0…6) and low-band amplitude
// (byte 2 bit 7 and byte 3 = 0x40 + step/2 with a half-step bit). Both amplitudes encode one step.
static int switch_decode(const uint8_t *m, int *step, unsigned *hf, unsigned *lf) {
    int hstep = (m[1] & 0xFE) / 2;
    int lstep = (m[3] - 0x40) * 2 + ((m[2] & 0x80) ? 1 : 0);
    *hf = (m[0] | (m[1] & 1) << 8);
    *lf = m[2] & 0x7F;
    *step = hstep;
    return hstep == lstep && hstep >= 0 && hstep <= 100;
}

// One actuator's HD-rumble bands as the pad plays them: frequencies (Hz, 10·2^(code/32)) and amplitudes
// (the table's step, 0…1003 thousandths), each band on its own: hapticd's hidraw reports give the two
// bands different amplitudes, which hid-nintendo never does. Returns 0 for a malformed encoding.
static int switch_bands(const uint8_t *m, double *hf, int *ha, double *lf, int *la) {
    unsigned hcode = (m[0] | (m[1] & 1) << 8), lcode = m[2] & 0x7F;
    int hstep = m[1] >> 1, lstep = (m[3] - 0x40) * 2 + ((m[2] & 0x80) ? 1 : 0);
    if (hcode % 4 || m[3] < 0x40 || hstep > 100 || lstep > 100) return 0;
    *hf = 10 * exp2((hcode / 4 + 0x60) / 32.0);
    *lf = 10 * exp2((lcode + 0x40) / 32.0);
    *ha = switch_amp[hstep];
    *la = switch_amp[lstep];
    return 1;
}

// Every rumble packet's four bands, for the hidraw tests (HD rumble): `HDRUMBLE ... left=HF:HA/LF:LA
// right=HF:HA/LF:LA actuator=left|right|both` (Hz, thousandths; actuator: the half the pad plays).
static void switch_log_bands(const struct pad *p, const uint8_t *rumble, const char *via, uint8_t id, uint8_t packet) {
    double lhf, llf, rhf, rlf;
    int lha, lla, rha, rla;
    if (!switch_bands(rumble, &lhf, &lha, &llf, &lla) || !switch_bands(rumble + 4, &rhf, &rha, &rlf, &rla)) return;
    logline("HDRUMBLE via=%s id=0x%02x packet=%u left=%.1f:%d/%.1f:%d right=%.1f:%d/%.1f:%d actuator=%s", via, id, packet & 0x0F,
            lhf, lha, llf, lla, rhf, rha, rlf, rla, switch_actuator(p));
}

static void switch_log_rumble(const struct pad *p, const uint8_t *rumble, const char *via, uint8_t id, uint8_t packet) {
    switch_log_bands(p, rumble, via, id, packet);
    int ls, rs;
    unsigned lhf, llf, rhf, rlf;
    int ok = switch_decode(rumble, &ls, &lhf, &llf) & switch_decode(rumble + 4, &rs, &rhf, &rlf);
    if (!ok || ls > 100 || rs > 100 || ls < 0 || rs < 0) {
        logline("RUMBLE strong=-1 weak=-1 via=%s id=0x%02x bad=%02x%02x%02x%02x%02x%02x%02x%02x", via, id,
                rumble[0], rumble[1], rumble[2], rumble[3], rumble[4], rumble[5], rumble[6], rumble[7]);
        return;
    }
    // Left motor = strong (hid-nintendo: effect strong_magnitude → amp_l), right = weak; a Joy-Con
    // plays only its own (actuator=).
    logline("RUMBLE strong=%u weak=%u via=%s id=0x%02x packet=%u strong_step=%d weak_step=%d hf=0x%03x lf=0x%02x actuator=%s",
            switch_amp[ls], switch_amp[rs], via, id, packet, ls, rs, lhf, llf, switch_actuator(p));
}

static void switch_reply(struct pad *p, uint8_t subcmd, const uint8_t *data, size_t n) {
    uint8_t r[64];
    size_t len = switch_report_len(p);
    memset(r, 0, sizeof r);
    r[0] = 0x21;
    r[1] = p->timer++;
    r[2] = 0x8E;                                   // battery full, charging, USB powered
    r[6] = 0x00; r[7] = 0x08; r[8] = 0x80;         // left stick centred (12-bit 0x800, 0x800)
    r[9] = 0x00; r[10] = 0x08; r[11] = 0x80;       // right stick
    r[12] = 0x80;                                  // vibrator report
    r[13] = n ? 0x80 | subcmd : 0x80;              // ACK
    r[14] = subcmd;
    if (n) memcpy(r + 15, data, n);
    send_input(p, r, len);
}

static void switch_spi_read(struct pad *p, const uint8_t *args) {
    uint32_t addr = args[0] | args[1] << 8 | args[2] << 16 | (uint32_t)args[3] << 24;
    uint8_t size = args[4];
    uint8_t d[5 + 64];
    memcpy(d, args, 5);
    memset(d + 5, 0xFF, sizeof d - 5);  // erased flash: no user calibration
    // Stick factory calibration: max-above 0x500, centre 0x800, min-below 0x500 (12-bit pairs);
    // the left stick stores max, centre, min; the right one centre, min, max. A Joy-Con has one
    // stick: the other's calibration stays erased.
    static const uint8_t left[9] = {0x00, 0x05, 0x50, 0x00, 0x08, 0x80, 0x00, 0x05, 0x50};
    static const uint8_t right[9] = {0x00, 0x08, 0x80, 0x00, 0x05, 0x50, 0x00, 0x05, 0x50};
    // IMU factory calibration: accel offsets 0, scale 0x4000; gyro offsets 0, scale 0x343B.
    static const uint8_t imu[24] = {0, 0, 0, 0, 0, 0, 0x00, 0x40, 0x00, 0x40, 0x00, 0x40,
                                    0, 0, 0, 0, 0, 0, 0x3B, 0x34, 0x3B, 0x34, 0x3B, 0x34};
    if (addr == 0x603D && switch_type(p) != 2) memcpy(d + 5, left, sizeof left);
    if (addr == 0x6046 && switch_type(p) != 1) memcpy(d + 5, right, sizeof right);
    if (addr == 0x6020) memcpy(d + 5, imu, sizeof imu);
    if (size > switch_report_len(p) - 15 - 5) size = switch_report_len(p) - 15 - 5;
    switch_reply(p, 0x10, d, 5 + size);
}

static void switch_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    if (d[0] == 0x80 && len >= 2) {  // USB command: 01, 02, 03 are acknowledged with 81 <cmd>
        logline("OUTPUT id=0x80 len=%zu usb_cmd=0x%02x", len, d[1]);
        // Over Bluetooth nothing answers them: hid-nintendo times out (2 × 1 s) and takes it for a
        // Bluetooth pad, as with a real one.
        if (p->t->bus == BUS_BLUETOOTH) return;
        if (d[1] == 0x01) {
            uint8_t r[64] = {0x81, 0x01, 0x00, 0x03};
            uint8_t mac[6];
            mac_bytes(p, mac);
            for (int i = 0; i < 6; i++) r[4 + i] = mac[5 - i];
            send_input(p, r, sizeof r);
        } else if (d[1] == 0x02 || d[1] == 0x03) {
            uint8_t r[64] = {0x81, d[1]};
            send_input(p, r, sizeof r);
        }
        return;
    }
    // Rumble data rides on both 0x10 and subcommand (0x01) packets; all-zero bytes (before the driver
    // set any rumble) encode nothing the pad would play.
    static const uint8_t none[8];
    if ((d[0] == 0x01 || d[0] == 0x10) && len >= 10 && memcmp(d + 2, none, 8) != 0) switch_log_rumble(p, d + 2, via, d[0], d[1]);
    if (d[0] != 0x01 || len < 11) {
        if (d[0] != 0x10) logline("OUTPUT id=0x%02x len=%zu", d[0], len);
        return;
    }
    uint8_t sub = d[10];
    const uint8_t *args = d + 11;
    logline("OUTPUT id=0x01 len=%zu subcmd=0x%02x", len, sub);
    if (sub == 0x10 && len >= 16) {
        switch_spi_read(p, args);
    } else if (sub == 0x02) {  // device info: firmware 3.8B, type (1 JC L, 2 JC R, 3 Pro), MAC, colours
        uint8_t info[12] = {0x03, 0x8B, (uint8_t)switch_type(p), 0x02};
        uint8_t mac[6];
        mac_bytes(p, mac);
        for (int i = 0; i < 6; i++) info[4 + i] = mac[5 - i];
        info[10] = 0x01;
        info[11] = 0x02;
        switch_reply(p, sub, info, sizeof info);
    } else {
        if (sub == 0x03 && len >= 12 && args[0] == 0x30) p->full_report_mode = 1;
        switch_reply(p, sub, NULL, 0);
    }
}

// The full report (0x30) a Pro Controller or Joy-Con streams once in mode 0x30; hid-nintendo paces its
// rumble on these, and byte 12 (vibrator report) must be non-zero or its periodic resend stays off.
static void switch_input(struct pad *p) {
    if (!p->full_report_mode) return;
    uint8_t r[64];
    memset(r, 0, sizeof r);
    r[0] = 0x30;
    r[1] = p->timer++;
    r[2] = 0x8E;
    r[6] = 0x00; r[7] = 0x08; r[8] = 0x80;
    r[9] = 0x00; r[10] = 0x08; r[11] = 0x80;
    r[12] = 0x80;
    for (int s = 0; s < 3; s++) r[13 + 12 * s + 5] = 0x10;  // accel z ≈ 1 g, the pad lying flat
    // Buttons (hid-nintendo's 24-bit field at 3…5): B is bit 2 (byte 3: Y 0x01, X 0x02, B 0x04, A
    // 0x08), the d-pad's down bit 16 (byte 5: down 0x01, up 0x02, right 0x04, left 0x08); the left
    // Joy-Con has no B, and the driver reads only the left half of the field from it.
    if (p->press_until > 0) {
        if (switch_type(p) == 1) r[5] = 0x01;
        else r[3] = 0x04;
    }
    send_input(p, r, switch_report_len(p));
}

// ---- Xbox Wireless over Bluetooth (hid-microsoft) --------------------------------------------------
// Output 0x03, 9 bytes: 03 <enable> <lt> <rt> <strong> <weak> <duration> <delay> <loops>, 0…100.
static void xbox_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    (void)p;
    if (d[0] == 0x03 && len >= 9) {
        logline("RUMBLE strong=%u weak=%u via=%s id=0x03 enable=0x%02x triggers=%u,%u duration=%u loops=%u", d[4], d[5], via,
                d[1], d[2], d[3], d[6], d[8]);
    } else {
        logline("OUTPUT id=0x%02x len=%zu", d[0], len);
    }
}

// Input report 1 (17 bytes, the descriptor's order): sticks X, Y, Z, Rz (16 bits, centred 0x8000),
// brake and accelerator (10 bits each in 16), hat (4 bits in 8), 15 buttons (16 bits: button 1 = A),
// the consumer key (8). Sent only for a press or release (SIGHUP): a real pad streams them.
static void xbox_button(struct pad *p, int down) {
    uint8_t r[17];
    memset(r, 0, sizeof r);
    r[0] = 0x01;
    for (int i = 0; i < 4; i++) r[2 + 2 * i] = 0x80;
    r[14] = down ? 0x01 : 0x00;
    send_input(p, r, sizeof r);
}

// The battery strength (input report 4 in the One S descriptor) hid-input asks for: full.
static size_t xbox_get_report(struct pad *p, uint8_t rnum, uint8_t *out) {
    (void)p;
    if (rnum != 0x04) return 0;
    out[0] = 0x04;
    out[1] = 0xFF;
    return 2;
}

// hid-playstation's USB input report 0x01 (64 bytes; struct dualsense_input_report after the id):
// sticks centred, the hat neutral (8). SIGHUP: cross (buttons[0] 0x20) and the touchpad's click
// (buttons[2] 0x02) down, one finger (contact id 1, bit 7 clear: touching) at x 1919, y 0 — the
// touchpad's top right corner — the second point lifted (0x80); released: all up, both lifted.
// Status (battery) 0x17 in both: charging (high nibble 1), 7 → 7 × 10 + 5 = 75 %.
// Motion (test values): accel z 0x2000 (about 1 g after ds5_calibration) throughout, and turning
// about the x axis while pressed (gyro pitch 1000: about 61 °/s after the calibration), still after.
static void dualsense_button(struct pad *p, int down) {
    uint8_t r[64];
    memset(r, 0, sizeof r);
    r[0] = 0x01;
    r[1] = r[2] = r[3] = r[4] = 0x80;          // x, y, rx, ry
    r[8] = 0x08 | (down ? 0x20 : 0);           // buttons[0]: hat neutral, cross
    r[10] = down ? 0x02 : 0;                   // buttons[2]: the touchpad's click
    r[16] = down ? 0xE8 : 0;                   // gyro[0] (pitch) = 1000
    r[17] = down ? 0x03 : 0;
    r[27] = 0x20;                              // accel[2] (z) = 0x2000
    r[33] = down ? 0x01 : 0x80;                // points[0].contact
    r[34] = 0x7F;                              // x_lo (1919 = 0x77F)
    r[35] = 0x07;                              // x_hi (low nibble), y_lo (high nibble): 0
    r[36] = 0x00;                              // y_hi
    r[37] = 0x80;                              // points[1]: lifted
    r[53] = 0x17;                              // status
    send_input(p, r, sizeof r);
}

// ---- BigBen PS3-style pad (hid-bigbenff) ------------------------------------------------------------
// SET_REPORT (no report id), 8 bytes: 01 08 <leds> … (LEDs) or 02 08 <weak on> <strong> ff … (rumble).
static void bigben_output(struct pad *p, const uint8_t *d, size_t len, const char *via) {
    (void)p;
    if (len >= 5 && d[0] == 0x02 && d[1] == 0x08) {
        logline("RUMBLE strong=%u weak=%u via=%s id=0x00 duration=%u", d[3], d[2], via, d[4]);
    } else {
        logline("OUTPUT id=0x%02x len=%zu leds=0x%02x", d[0], len, len > 2 ? d[2] : 0);
    }
}

static size_t no_reports(struct pad *p, uint8_t rnum, uint8_t *out) {
    (void)p; (void)rnum; (void)out;
    return 0;
}

#define RD(x) x, sizeof x
static const struct padtype types[] = {
    {"dualsense-usb", "Sony Interactive Entertainment DualSense Wireless Controller",
     "Sony Interactive Entertainment DualSense Wireless Controller", BUS_USB, 0x054C, 0x0CE6, RD(rdesc_ds5_usb), "",
     "div256,div256", dualsense_get_report, dualsense_output, 0, NULL, dualsense_button, "cross"},
    {"dualsense-bt", "DualSense Wireless Controller", "DualSense Wireless Controller", BUS_BLUETOOTH, 0x054C, 0x0CE6,
     RD(rdesc_ds5_bt), "a0:5a:5d:00:10:01", "div256,div256", dualsense_get_report, dualsense_output, 0, NULL},
    // The Edge's descriptor differs in vendor reports hid-playstation does not read; the DualSense's is used.
    {"dualsense-edge-usb", "Sony Interactive Entertainment DualSense Edge Wireless Controller",
     "Sony Interactive Entertainment DualSense Edge Wireless Controller", BUS_USB, 0x054C, 0x0DF2, RD(rdesc_ds5_usb), "",
     "div256,div256", dualsense_get_report, dualsense_output, 0, NULL},
    {"ds4-usb", "Sony Computer Entertainment Wireless Controller", "Sony Computer Entertainment Wireless Controller",
     BUS_USB, 0x054C, 0x05C4, RD(rdesc_ds4_usb), "", "div256,div256", ds4_get_report, ds4_output, 0, NULL},
    {"ds4v2-usb", "Sony Interactive Entertainment Wireless Controller", "Sony Interactive Entertainment Wireless Controller",
     BUS_USB, 0x054C, 0x09CC, RD(rdesc_ds4_usb), "", "div256,div256", ds4_get_report, ds4_output, 0, NULL},
    {"ds4-bt", "Wireless Controller", "Wireless Controller", BUS_BLUETOOTH, 0x054C, 0x05C4, RD(rdesc_ds4_bt),
     "a0:5a:5d:00:20:01", "div256,div256", ds4_get_report, ds4_output, 0, NULL},
    {"ds3-usb", "Sony PLAYSTATION(R)3 Controller", "Sony PLAYSTATION(R)3 Controller", BUS_USB, 0x054C, 0x0268,
     RD(rdesc_ds3), "", "div256,div256nonzero", ds3_get_report, ds3_output, 100, ds3_input},
    // Over Bluetooth hid-sony sets the pad operational with a feature SET_REPORT and needs no input
    // first; the descriptor is the same.
    {"ds3-bt", "Sony PLAYSTATION(R)3 Controller", "Sony PLAYSTATION(R)3 Controller", BUS_BLUETOOTH, 0x054C, 0x0268,
     RD(rdesc_ds3), "a0:5a:5d:00:50:01", "div256,div256nonzero", ds3_get_report, ds3_output, 0, NULL},
    {"switch-pro-usb", "Nintendo Co., Ltd. Pro Controller", "Nintendo Switch Pro Controller", BUS_USB, 0x057E, 0x2009,
     RD(rdesc_switch_pro_usb), "", "switch,switch", no_reports, switch_output, 8, switch_input, NULL, "b"},
    // Over Bluetooth: the same protocol without the USB handshake, 0x30 reports every 15 ms. The USB
    // descriptor is used (hid-nintendo reads only the report ids, which are the same).
    {"switch-pro-bt", "Pro Controller", "Nintendo Switch Pro Controller", BUS_BLUETOOTH, 0x057E, 0x2009,
     RD(rdesc_switch_pro_usb), "a0:5a:5d:00:40:01", "switch,switch", no_reports, switch_output, 15, switch_input, NULL, "b"},
    // Single Joy-Cons (hid-nintendo binds them over Bluetooth only): the Switch protocol with their own
    // controller type, the Bluetooth descriptor, 0x30 reports every 15 ms.
    {"joycon-l-bt", "Joy-Con (L)", "Nintendo Switch Left Joy-Con", BUS_BLUETOOTH, 0x057E, 0x2006,
     RD(rdesc_switch_bt), "a0:5a:5d:00:40:02", "switch,switch", no_reports, switch_output, 15, switch_input, NULL, "down"},
    {"joycon-r-bt", "Joy-Con (R)", "Nintendo Switch Right Joy-Con", BUS_BLUETOOTH, 0x057E, 0x2007,
     RD(rdesc_switch_bt), "a0:5a:5d:00:40:03", "switch,switch", no_reports, switch_output, 15, switch_input, NULL, "b"},
    // Joy-Cons in the charging grip over USB (057E:200E, one HID interface each): the Pro's USB protocol
    // (handshake, 64-byte reports every 8 ms) with the Joy-Con's controller type; hid-nintendo names
    // each from that type.
    {"joycon-l-grip", "Nintendo Co., Ltd. Nintendo Switch Charging Grip", "Nintendo Switch Left Joy-Con (Grip)", BUS_USB,
     0x057E, 0x200E, RD(rdesc_switch_pro_usb), "", "switch,switch", no_reports, switch_output, 8, switch_input, NULL, "down"},
    {"joycon-r-grip", "Nintendo Co., Ltd. Nintendo Switch Charging Grip", "Nintendo Switch Right Joy-Con (Grip)", BUS_USB,
     0x057E, 0x200E, RD(rdesc_switch_pro_usb), "", "switch,switch", no_reports, switch_output, 8, switch_input, NULL, "b"},
    {"xbox-series-bt", "Xbox Wireless Controller", "Xbox Wireless Controller", BUS_BLUETOOTH, 0x045E, 0x0B13,
     RD(rdesc_xbox_series_bt), "a0:5a:5d:00:30:01", "percent,percent", xbox_get_report, xbox_output, 0, NULL, xbox_button, "a"},
    {"xbox-one-s-bt", "Xbox Wireless Controller", "Xbox Wireless Controller", BUS_BLUETOOTH, 0x045E, 0x02FD,
     RD(rdesc_xbox_one_s_bt), "a0:5a:5d:00:30:02", "percent,percent", xbox_get_report, xbox_output, 0, NULL, xbox_button, "a"},
    {"bigben", "Bigben Interactive Bigben Game Pad", "Bigben Interactive Bigben Game Pad", BUS_USB, 0x146B, 0x0902,
     RD(rdesc_bigben), "", "div256,nonzero", no_reports, bigben_output, 0, NULL},
};

static int put_file(const char *sub, const void *data, size_t len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", hidg_dir, sub);
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        logline("ERROR open %s errno=%d", path, errno);
        return -1;
    }
    ssize_t n = write(fd, data, len);
    int e = errno;
    close(fd);
    if (n < 0) {
        logline("ERROR write %s errno=%d", path, e);
        return -1;
    }
    return 0;
}
static int put_str(const char *sub, const char *value) { return put_file(sub, value, strlen(value)); }
static void make_sub(const char *sub) {
    char path[512];
    snprintf(path, sizeof path, "%s%s%s", hidg_dir, *sub ? "/" : "", sub);
    mkdir(path, 0755);
}

// A USB HID gadget with the pad's ids and report descriptor on a free UDC of dummy_hcd; then opens the
// gadget's /dev/hidgN (made here from the function's dev attribute: devtmpfs may name it otherwise).
static int create_hidg(struct pad *p) {
    const struct padtype *t = p->t;
    if (access("/sys/kernel/config/usb_gadget", F_OK) != 0)
        mount("none", "/sys/kernel/config", "configfs", 0, NULL);
    snprintf(hidg_dir, sizeof hidg_dir, "/sys/kernel/config/usb_gadget/uhidpad-%s", t->type);
    make_sub("");
    char v[32];
    snprintf(v, sizeof v, "0x%04x", t->vendor);
    put_str("idVendor", v);
    snprintf(v, sizeof v, "0x%04x", t->product);
    put_str("idProduct", v);
    put_str("bcdDevice", "0x0210");
    put_str("bcdUSB", "0x0200");
    put_str("max_speed", "full-speed");
    make_sub("strings/0x409");
    put_str("strings/0x409/manufacturer", "Nintendo Co., Ltd.");
    put_str("strings/0x409/product", t->name);
    put_str("strings/0x409/serialnumber", "000000000001");
    make_sub("configs/c.1");
    put_str("configs/c.1/MaxPower", "500");
    make_sub("functions/hid.usb0");
    put_str("functions/hid.usb0/protocol", "0");
    put_str("functions/hid.usb0/subclass", "0");
    put_str("functions/hid.usb0/report_length", "64");
    if (put_file("functions/hid.usb0/report_desc", t->rdesc, t->rdesc_size) < 0) return -1;
    char target[512], link_path[512];
    snprintf(target, sizeof target, "%s/functions/hid.usb0", hidg_dir);
    snprintf(link_path, sizeof link_path, "%s/configs/c.1/hid.usb0", hidg_dir);
    symlink(target, link_path);
    // The first UDC that takes the gadget (another may be bound to another test's gadget).
    DIR *d = opendir("/sys/class/udc");
    int bound = 0;
    struct dirent *e;
    while (d && !bound && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char line[300];
        snprintf(line, sizeof line, "%s\n", e->d_name);
        if (put_str("UDC", line) == 0) {
            bound = 1;
            logline("NOTE udc=%s", e->d_name);
        }
    }
    if (d) closedir(d);
    if (!bound) return -1;
    char devpath[512], text[32] = {0};
    snprintf(devpath, sizeof devpath, "%s/functions/hid.usb0/dev", hidg_dir);
    int fd = open(devpath, O_RDONLY);
    if (fd < 0 || read(fd, text, sizeof text - 1) <= 0) {
        logline("ERROR read %s", devpath);
        return -1;
    }
    close(fd);
    unsigned maj = 0, min = 0;
    sscanf(text, "%u:%u", &maj, &min);
    char node[64];
    snprintf(node, sizeof node, "/tmp/hidg-%s", t->type);
    unlink(node);
    if (mknod(node, S_IFCHR | 0600, makedev(maj, min)) < 0) {
        logline("ERROR mknod %s errno=%d", node, errno);
        return -1;
    }
    p->fd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (p->fd < 0) {
        logline("ERROR open %s errno=%d", node, errno);
        return -1;
    }
    return 0;
}

static void destroy_hidg(void) {
    put_str("UDC", "\n");
    char path[512];
    snprintf(path, sizeof path, "%s/configs/c.1/hid.usb0", hidg_dir);
    unlink(path);
    const char *dirs[] = {"configs/c.1/strings/0x409", "configs/c.1", "functions/hid.usb0", "strings/0x409", ""};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(path, sizeof path, "%s%s%s", hidg_dir, *dirs[i] ? "/" : "", dirs[i]);
        rmdir(path);
    }
}

static int create_pad(struct pad *p) {
    const struct padtype *t = p->t;
    if (hidg_mode) {
        if (create_hidg(p) < 0) return -1;
        p->created = 1;
        p->started = 1;
        p->full_report_mode = 0;
        p->saw_output = 0;
        p->next_input = 0;
        logline("CREATED type=%s bus=0x%02x vid=%04x pid=%04x hid=%04X:%04X:%04X formula=%s transport=hidg", t->type, BUS_USB,
                t->vendor, t->product, BUS_USB, t->vendor, t->product, t->formula);
        logline("NAME %s", t->name);
        logline("INPUTNAME %s", t->input_name);
        return 0;
    }
    p->fd = open("/dev/uhid", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (p->fd < 0) {
        logline("ERROR open /dev/uhid errno=%d", errno);
        return -1;
    }
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_CREATE2;
    snprintf((char *)ev.u.create2.name, sizeof ev.u.create2.name, "%s", t->name);
    snprintf((char *)ev.u.create2.phys, sizeof ev.u.create2.phys, "uhidpad/%s", t->type);
    snprintf((char *)ev.u.create2.uniq, sizeof ev.u.create2.uniq, "%s", t->uniq);
    ev.u.create2.rd_size = t->rdesc_size;
    ev.u.create2.bus = t->bus;
    ev.u.create2.vendor = t->vendor;
    ev.u.create2.product = t->product;
    ev.u.create2.version = 0x0100;
    memcpy(ev.u.create2.rd_data, t->rdesc, t->rdesc_size);
    if (send_event(p, &ev) < 0) {
        close(p->fd);
        p->fd = -1;
        return -1;
    }
    p->created = 1;
    p->started = 0;
    p->full_report_mode = 0;
    p->saw_output = 0;
    p->next_input = 0;
    logline("CREATED type=%s bus=0x%02x vid=%04x pid=%04x hid=%04X:%04X:%04X formula=%s", t->type, t->bus, t->vendor,
            t->product, t->bus, t->vendor, t->product, t->formula);
    logline("NAME %s", t->name);
    logline("INPUTNAME %s", t->input_name);
    return 0;
}

static void destroy_pad(struct pad *p) {
    if (!p->created) return;
    if (hidg_mode) {
        close(p->fd);
        p->fd = -1;
        p->created = 0;
        destroy_hidg();
        logline("DESTROYED dropped_inputs=%lu", hidg_dropped);
        return;
    }
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_DESTROY;
    send_event(p, &ev);
    close(p->fd);
    p->fd = -1;
    p->created = 0;
    logline("DESTROYED");
}

static void handle_event(struct pad *p, struct uhid_event *ev) {
    switch (ev->type) {
    case UHID_START:
        p->started = 1;
        logline("STARTED flags=0x%llx", (unsigned long long)ev->u.start.dev_flags);
        break;
    case UHID_STOP:
        p->started = 0;
        logline("STOPPED");
        break;
    case UHID_OPEN:
        logline("OPENED");
        break;
    case UHID_CLOSE:
        logline("CLOSED");
        break;
    case UHID_OUTPUT:
        if (ev->u.output.size > 0) p->t->output(p, ev->u.output.data, ev->u.output.size, "output");
        break;
    case UHID_GET_REPORT: {
        struct uhid_event r;
        memset(&r, 0, sizeof r);
        r.type = UHID_GET_REPORT_REPLY;
        r.u.get_report_reply.id = ev->u.get_report.id;
        size_t n = p->t->get_report(p, ev->u.get_report.rnum, r.u.get_report_reply.data);
        r.u.get_report_reply.err = n ? 0 : EIO;
        r.u.get_report_reply.size = n;
        logline("GETREPORT rnum=0x%02x size=%zu", ev->u.get_report.rnum, n);
        send_event(p, &r);
        break;
    }
    case UHID_SET_REPORT: {
        // Acknowledge first: the driver blocks until the reply (uhid's time-out is 5 s).
        struct uhid_event r;
        memset(&r, 0, sizeof r);
        r.type = UHID_SET_REPORT_REPLY;
        r.u.set_report_reply.id = ev->u.set_report.id;
        r.u.set_report_reply.err = 0;
        send_event(p, &r);
        if (ev->u.set_report.rtype == UHID_OUTPUT_REPORT && ev->u.set_report.size > 0)
            p->t->output(p, ev->u.set_report.data, ev->u.set_report.size, "set_report");
        else
            logline("SETREPORT rnum=0x%02x rtype=%u size=%u", ev->u.set_report.rnum, ev->u.set_report.rtype, ev->u.set_report.size);
        break;
    }
    default:
        break;
    }
}

static volatile sig_atomic_t want_destroy, want_create, want_exit, want_press;
static void on_signal(int sig) {
    if (sig == SIGHUP) want_press = 1;
    if (sig == SIGUSR1) want_destroy = 1;
    if (sig == SIGUSR2) want_create = 1;
    if (sig == SIGTERM || sig == SIGINT) want_exit = 1;
}

int main(int argc, char **argv) {
    const char *type = NULL, *logpath = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--type") && i + 1 < argc) type = argv[++i];
        else if (!strcmp(argv[i], "--log") && i + 1 < argc) logpath = argv[++i];
        else if (!strcmp(argv[i], "--transport") && i + 1 < argc) hidg_mode = !strcmp(argv[++i], "hidg");
        else if (!strcmp(argv[i], "--list")) {
            for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
                printf("%s %04x:%04x bus 0x%02x %s\n", types[k].type, types[k].vendor, types[k].product, types[k].bus, types[k].input_name);
            return 0;
        }
    }
    const struct padtype *t = NULL;
    for (size_t k = 0; type && k < sizeof types / sizeof types[0]; k++)
        if (!strcmp(types[k].type, type)) t = &types[k];
    if (!t || !logpath) {
        fprintf(stderr, "usage: uhidpad --type TYPE --log FILE | --list\n");
        return 2;
    }
    logf_ = fopen(logpath, "a");
    if (!logf_) {
        perror(logpath);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    // The emulator stands in for hardware, which answers at once: favour it over ordinary processes so
    // that its own scheduling shows up as little as possible in the driver's latency — but not with a
    // real-time policy: the input reports it writes are processed by the kernel in its context, and at
    // real-time priority that would starve the drivers' own work items (best effort; root in the VM).
    if (setpriority(PRIO_PROCESS, 0, -10) != 0) logline("NOTE no nice -10 errno=%d", errno);

    struct pad pad = {.t = t, .fd = -1};
    if (create_pad(&pad) < 0) return 1;
    static struct uhid_event ev;
    while (!want_exit) {
        if (want_destroy) { want_destroy = 0; if (!hidg_mode) destroy_pad(&pad); }
        if (want_create) { want_create = 0; if (!pad.created && !hidg_mode) create_pad(&pad); }
        if (want_press) {
            want_press = 0;
            if (pad.created && t->button_name) {
                pad.press_until = now() + 0.1;
                logline("PRESS button=%s", t->button_name);
                if (t->button) t->button(&pad, 1);
            }
        }
        if (pad.press_until > 0 && now() >= pad.press_until) {
            pad.press_until = 0;
            logline("RELEASE button=%s", t->button_name);
            if (t->button) t->button(&pad, 0);
        }
        int timeout = -1;
        if (pad.press_until > 0) timeout = (int)((pad.press_until - now()) * 1000) + 1;
        if (pad.created && pad.started && t->input_interval_ms) {
            double n = now();
            if (pad.next_input == 0) pad.next_input = n;
            if (n >= pad.next_input) {
                t->input(&pad);
                // Absolute deadlines, so the report rate does not drift with scheduling.
                pad.next_input += t->input_interval_ms / 1000.0;
                if (pad.next_input < n) pad.next_input = n + t->input_interval_ms / 1000.0;
            }
            int until_input = (int)((pad.next_input - now()) * 1000) + 1;
            if (timeout < 0 || until_input < timeout) timeout = until_input;
            if (timeout < 0) timeout = 0;
        }
        if (!pad.created) {
            pause();
            continue;
        }
        struct pollfd pfd = {.fd = pad.fd, .events = POLLIN};
        int r = poll(&pfd, 1, timeout);
        if (r < 0 && errno != EINTR) break;
        if (r > 0 && (pfd.revents & POLLIN)) {
            // Drain everything queued: the kernel may have several events waiting.
            if (hidg_mode) {
                // One output report per read (report id first), from the interrupt OUT endpoint.
                static uint8_t out[64];
                ssize_t n;
                while ((n = read(pad.fd, out, sizeof out)) > 0) t->output(&pad, out, (size_t)n, "output");
            } else {
                while (read(pad.fd, &ev, sizeof ev) > 0) handle_event(&pad, &ev);
            }
        }
    }
    destroy_pad(&pad);
    fclose(logf_);
    return 0;
}
