// PROTOTYPE (issue 25 §3): a USB DualSense (054c:0ce6) emulated in userspace and attached to the
// kernel's own USB/IP virtual host controller (vhci_hcd) over a socketpair, so that the kernel's own
// usbcore, snd-usb-audio, usbhid and hid-playstation bind to it as to a real pad: one USB device with
// a UAC1 audio function (interface 0 control, 1 speaker stream 4 ch 48 kHz S16 on iso OUT 0x01,
// 2 microphone stream on iso IN 0x82) and a HID interface 3 (interrupt 0x84 IN, 0x03 OUT).
//
// Why not a configfs gadget on dummy_hcd: dummy_hcd has no isochronous endpoints and fails every iso
// URB (drivers/usb/gadget/udc/dummy_hcd.c), and usbip-vudc fails them too (vudc_transfer.c). vhci_hcd
// carries iso URBs to its USB/IP peer unchanged; the peer (this program) completes them on a 1 ms
// frame clock, as a bus would, and records what the host played.
//
// Log lines (CLOCK_MONOTONIC seconds first):
//   ATTACHED port=<n> | CTRL ... | SETINTF intf=<i> alt=<a> | ISO-START t=<s> | ISO urbs=<n> ...
//   OUTPUT raw=<hex> (hid-playstation output reports) | UNLINK seq=<n> found=<0|1>
// --record FILE gets the speaker stream: raw S16LE, 4 channels, 48 kHz, and --times FILE one line per
// URB: "<start_s> <first_frame> <frames>" (the bus time of each URB's first frame).
// SIGTERM: prints a per-channel summary (onset, end, peak, zero-crossing frequency) and exits.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "uhidpad-descriptors.h"

static FILE *logf_, *recf, *timesf;
static volatile sig_atomic_t stop;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
static void logline(const char *fmt, ...) {
    va_list ap;
    fprintf(logf_, "%.6f ", now_s());
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_);
}
static void die(const char *what) {
    logline("ERROR %s: %s", what, strerror(errno));
    exit(1);
}

// --- descriptors ------------------------------------------------------------------------------------
static const uint8_t dev_desc[18] = {18, 1, 0x00, 0x02, 0, 0, 0, 64, 0x4c, 0x05, 0xe6, 0x0c,
                                     0x00, 0x01, 1, 2, 0, 1};
static uint8_t cfg[512];
static size_t cfg_len;
static void put(const uint8_t *d, size_t n) { memcpy(cfg + cfg_len, d, n); cfg_len += n; }
static void build_config(void) {
    const uint16_t rlen = sizeof rdesc_ds5_usb;
    uint8_t c[] = {9, 2, 0, 0, 4, 1, 0, 0xc0, 0xfa};
    put(c, sizeof c);
    uint8_t ac_if[] = {9, 4, 0, 0, 0, 1, 1, 0, 0};
    put(ac_if, sizeof ac_if);
    uint8_t ac[] = {
        10, 0x24, 1, 0x00, 0x01, 74, 0, 2, 1, 2,                 // header UAC1, total 74, AS 1 and 2
        12, 0x24, 2, 1, 0x01, 0x01, 0, 4, 0x33, 0x00, 0, 0,      // IT 1: USB streaming, 4 ch FL FR SL SR
        12, 0x24, 6, 2, 1, 1, 0x03, 0, 0, 0, 0, 0,               // FU 2 <- 1: master mute+volume
        9, 0x24, 3, 3, 0x01, 0x03, 0, 2, 0,                      // OT 3: speaker <- 2
        12, 0x24, 2, 4, 0x01, 0x02, 0, 2, 0x03, 0x00, 0, 0,      // IT 4: microphone, 2 ch
        10, 0x24, 6, 5, 4, 1, 0x03, 0, 0, 0,                     // FU 5 <- 4
        9, 0x24, 3, 6, 0x01, 0x01, 0, 5, 0,                      // OT 6: USB streaming <- 5
    };
    put(ac, sizeof ac);
    uint8_t as1[] = {
        9, 4, 1, 0, 0, 1, 2, 0, 0,
        9, 4, 1, 1, 1, 1, 2, 0, 0,
        7, 0x24, 1, 1, 1, 0x01, 0x00,                            // AS general: terminal 1, PCM
        11, 0x24, 2, 1, 4, 2, 16, 1, 0x80, 0xbb, 0x00,           // type I: 4 ch, 2 bytes, 16 bit, 48000
        9, 5, 0x01, 0x09, 0x88, 0x01, 4, 0, 0,                   // iso OUT adaptive 392 B, 1 ms (HS)
        7, 0x25, 1, 0x00, 0, 0, 0,
    };
    put(as1, sizeof as1);
    uint8_t as2[] = {
        9, 4, 2, 0, 0, 1, 2, 0, 0,
        9, 4, 2, 1, 1, 1, 2, 0, 0,
        7, 0x24, 1, 6, 1, 0x01, 0x00,
        11, 0x24, 2, 1, 2, 2, 16, 1, 0x80, 0xbb, 0x00,
        9, 5, 0x82, 0x05, 0xc4, 0x00, 4, 0, 0,                   // iso IN async 196 B, 1 ms
        7, 0x25, 1, 0x00, 0, 0, 0,
    };
    put(as2, sizeof as2);
    uint8_t hid[] = {
        9, 4, 3, 0, 2, 3, 0, 0, 0,
        9, 0x21, 0x11, 0x01, 0, 1, 0x22, (uint8_t)rlen, (uint8_t)(rlen >> 8),
        7, 5, 0x84, 0x03, 64, 0, 6,
        7, 5, 0x03, 0x03, 64, 0, 6,
    };
    put(hid, sizeof hid);
    cfg[2] = (uint8_t)cfg_len;
    cfg[3] = (uint8_t)(cfg_len >> 8);
}
static size_t string_desc(int i, uint8_t *out) {
    const char *s = i == 1 ? "Sony Interactive Entertainment" : i == 2 ? "DualSense Wireless Controller" : NULL;
    if (i == 0) { out[0] = 4; out[1] = 3; out[2] = 0x09; out[3] = 0x04; return 4; }
    if (!s) return 0;
    size_t n = strlen(s);
    out[0] = (uint8_t)(2 + 2 * n);
    out[1] = 3;
    for (size_t k = 0; k < n; k++) { out[2 + 2 * k] = (uint8_t)s[k]; out[3 + 2 * k] = 0; }
    return 2 + 2 * n;
}
// Feature reports hid-playstation GETs at probe (same content as uhidpad.c's DualSense).
static const uint8_t ds5_calibration[41] = {
    0x05, 0xff, 0xff, 0xf2, 0xff, 0x04, 0x00, 0x9d, 0x22, 0x5e, 0xdd, 0x92, 0x22, 0x52, 0xdd, 0xba,
    0x22, 0x51, 0xdd, 0x1c, 0x02, 0x1c, 0x02, 0xfb, 0x1f, 0x05, 0xe0, 0x83, 0x1f, 0x99, 0xdf, 0x07,
    0x20, 0xfc, 0xdf, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00};
static size_t feature_report(uint8_t id, uint8_t *out) {
    if (id == 0x05) { memcpy(out, ds5_calibration, 41); return 41; }
    if (id == 0x09) {
        memset(out, 0, 20);
        out[0] = 0x09;
        const uint8_t mac[6] = {0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
        memcpy(out + 1, mac, 6);
        return 20;
    }
    if (id == 0x20) {
        memset(out, 0, 64);
        out[0] = 0x20;
        memcpy(out + 1, "Aug 18 202006:32:00", 19);
        out[24] = 0x03; out[25] = 0x00;  // hardware info
        out[28] = 0x04; out[29] = 0x00; out[30] = 0x00; out[31] = 0x01;  // firmware version
        out[44] = 0x04; out[45] = 0x02;  // update version 0x0204
        return 64;
    }
    return 0;
}

// --- USB/IP ------------------------------------------------------------------------------------------
enum { CMD_SUBMIT = 1, CMD_UNLINK = 2, RET_SUBMIT = 3, RET_UNLINK = 4 };
struct hdr {  // host order after decode
    uint32_t command, seqnum, devid, direction, ep;
    uint32_t flags_or_unlink;
    int32_t length, start_frame, npackets, interval;
    uint8_t setup[8];
};
static int sock;
static void readn(void *b, size_t n) {
    uint8_t *p = b;
    while (n) {
        ssize_t r = read(sock, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { logline("DETACHED read=%zd", r); exit(r == 0 ? 0 : 1); }
        p += r; n -= (size_t)r;
    }
}
static void writen(const void *b, size_t n) {
    const uint8_t *p = b;
    while (n) {
        ssize_t r = write(sock, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) die("write");
        p += r; n -= (size_t)r;
    }
}
static void put32(uint8_t *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }

static void ret_submit(uint32_t seq, int32_t status, const uint8_t *data, int32_t actual,
                       int32_t start_frame, int32_t np, const uint8_t *iso /* np*16, BE */) {
    uint8_t h[48] = {0};
    put32(h, RET_SUBMIT);
    put32(h + 4, seq);
    put32(h + 20, (uint32_t)status);
    put32(h + 24, (uint32_t)actual);
    put32(h + 28, (uint32_t)start_frame);
    put32(h + 32, (uint32_t)np);
    writen(h, 48);
    if (data && actual > 0) writen(data, (size_t)actual);
    if (np > 0) writen(iso, (size_t)np * 16);
}
static void ret_unlink(uint32_t seq, int32_t status) {
    uint8_t h[48] = {0};
    put32(h, RET_UNLINK);
    put32(h + 4, seq);
    put32(h + 20, (uint32_t)status);
    writen(h, 48);
}

// --- pending URBs (completed later) -------------------------------------------------------------------
struct pending {
    int used;
    uint32_t seq;
    int kind;  // 1 iso OUT, 2 iso IN, 3 interrupt IN
    double due;
    int32_t np, actual, start_frame;
    uint8_t iso[64 * 16];
};
#define MAXPEND 64
static struct pending pend[MAXPEND];
static double stream_clock;   // bus time at which the next iso OUT packet plays
static double in_clock;
static long frames_recorded;
static int32_t frame_no;

// per-channel analysis (speaker channels 1..4)
struct chan { long first, last, crossings; int peak; int16_t prev; long prev_nz_sign_idx; int prev_sign; };
static struct chan ch[4];
static void analyse(const int16_t *s, long n) {
    for (long i = 0; i < n; i++) {
        long idx = frames_recorded + i;
        for (int c = 0; c < 4; c++) {
            int v = s[i * 4 + c];
            struct chan *k = &ch[c];
            if (abs(v) > 64) {
                if (k->first < 0) k->first = idx;
                k->last = idx;
            }
            if (abs(v) > k->peak) k->peak = abs(v);
            int sign = v > 64 ? 1 : v < -64 ? -1 : 0;
            if (sign && k->prev_sign && sign != k->prev_sign) k->crossings++;
            if (sign) k->prev_sign = sign;
        }
    }
}

static void summary(void) {
    for (int c = 0; c < 4; c++) {
        struct chan *k = &ch[c];
        if (k->first < 0) { logline("CHANNEL %d silent frames=%ld", c + 1, frames_recorded); continue; }
        double dur = (k->last - k->first + 1) / 48000.0;
        logline("CHANNEL %d onset_frame=%ld end_frame=%ld duration_s=%.4f peak=%d freq_hz=%.1f", c + 1,
                k->first, k->last, dur, k->peak, k->crossings / 2.0 / dur);
    }
    logline("TOTAL frames=%ld", frames_recorded);
}

static void on_term(int sig) { (void)sig; stop = 1; }

static int free_slot(void) {
    for (int i = 0; i < MAXPEND; i++) if (!pend[i].used) return i;
    logline("ERROR too many pending URBs");
    exit(1);
}

static uint8_t inreport_seq;
static void complete_due(double t) {
    for (;;) {
        int best = -1;
        for (int i = 0; i < MAXPEND; i++)
            if (pend[i].used && pend[i].due <= t && (best < 0 || pend[i].due < pend[best].due)) best = i;
        if (best < 0) return;
        struct pending *p = &pend[best];
        if (p->kind == 3) {
            uint8_t r[64] = {0};
            r[0] = 0x01; r[1] = r[2] = r[3] = r[4] = 0x80; r[8] = 0x08; r[7] = inreport_seq++;
            ret_submit(p->seq, 0, r, 64, 0, 0, NULL);
        } else {
            ret_submit(p->seq, 0, NULL, p->actual, p->start_frame, p->np, p->iso);
        }
        p->used = 0;
    }
}

static int alt[4];
static void control(const struct hdr *h, const uint8_t *outdata) {
    const uint8_t *s = h->setup;
    uint8_t type = s[0], req = s[1];
    uint16_t wValue = s[2] | s[3] << 8, wIndex = s[4] | s[5] << 8, wLength = s[6] | s[7] << 8;
    uint8_t buf[1024];
    long n = -1;  // -1: stall
    (void)outdata;
    if (type == 0x80 && req == 6) {
        uint8_t dt = wValue >> 8, di = wValue & 0xff;
        if (dt == 1) { memcpy(buf, dev_desc, 18); n = 18; }
        else if (dt == 2) { memcpy(buf, cfg, cfg_len); n = (long)cfg_len; }
        else if (dt == 3) { n = (long)string_desc(di, buf); if (!n) n = -1; }
    } else if (type == 0x81 && req == 6 && (wValue >> 8) == 0x22 && wIndex == 3) {
        memcpy(buf, rdesc_ds5_usb, sizeof rdesc_ds5_usb); n = sizeof rdesc_ds5_usb;
    } else if (type == 0x00 && req == 9) { n = 0; }                      // SET_CONFIGURATION
    else if (type == 0x01 && req == 11) {                                 // SET_INTERFACE
        if (wIndex < 4) alt[wIndex] = wValue;
        logline("SETINTF intf=%u alt=%u", wIndex, wValue);
        if (wIndex == 1 && wValue == 0 && frames_recorded) summary();
        n = 0;
    } else if ((type & 0x80) && req == 0) { memset(buf, 0, 2); n = 2; }   // GET_STATUS
    else if (type == 0x21 && req == 0x0a) { n = 0; }                      // HID SET_IDLE
    else if (type == 0xa1 && req == 0x01 && (wIndex & 0xff) == 3) {       // HID GET_REPORT
        n = (wValue >> 8) == 3 ? (long)feature_report(wValue & 0xff, buf) : 0;
        if (!n) n = -1;
    } else if (type == 0x21 && req == 0x09 && (wIndex & 0xff) == 3) { n = 0; }  // HID SET_REPORT
    else if ((type == 0xa1 || type == 0x21) && (wIndex & 0xff) == 0) {   // UAC1 feature units
        uint8_t cs = wValue >> 8;
        if (type == 0x21) n = 0;
        else if (cs == 1) { buf[0] = 0; n = 1; }
        else if (cs == 2) {
            int16_t v = req == 0x81 ? 0 : req == 0x82 ? -0x3c00 : req == 0x83 ? 0 : 0x0100;
            buf[0] = (uint8_t)v; buf[1] = (uint8_t)(v >> 8); n = 2;
        }
    } else if (type == 0x22 || type == 0xa2) {                            // UAC1 endpoint requests
        if (type == 0x22) n = 0;
        else { buf[0] = 0x80; buf[1] = 0xbb; buf[2] = 0; n = 3; }
    }
    logline("CTRL %02x %02x %04x %04x %u -> %ld", type, req, wValue, wIndex, wLength, n);
    if (n < 0) { ret_submit(h->seqnum, -32 /* -EPIPE */, NULL, 0, 0, 0, NULL); return; }
    if (type & 0x80) {
        if (n > wLength) n = wLength;
        ret_submit(h->seqnum, 0, buf, (int32_t)n, 0, 0, NULL);
    } else {
        ret_submit(h->seqnum, 0, NULL, h->length, 0, 0, NULL);
    }
}

int main(int argc, char **argv) {
    const char *logpath = NULL, *recpath = NULL, *timespath = NULL;
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log")) logpath = argv[i + 1];
        else if (!strcmp(argv[i], "--record")) recpath = argv[i + 1];
        else if (!strcmp(argv[i], "--times")) timespath = argv[i + 1];
        else if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
    }
    logf_ = logpath ? fopen(logpath, "w") : stdout;
    if (!logf_) return 1;
    if (recpath && !(recf = fopen(recpath, "w"))) die("open --record");
    if (timespath && !(timesf = fopen(timespath, "w"))) die("open --times");
    for (int c = 0; c < 4; c++) ch[c].first = -1;
    build_config();
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    signal(SIGPIPE, SIG_IGN);

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) die("socketpair");
    sock = sv[1];
    int fd = open("/sys/devices/platform/vhci_hcd.0/attach", O_WRONLY);
    if (fd < 0) die("open vhci attach (is vhci-hcd loaded?)");
    char line[64];
    int len = snprintf(line, sizeof line, "%d %d %u %d", port, sv[0], (1u << 16) | 1u, 3 /* USB_SPEED_HIGH */);
    if (write(fd, line, (size_t)len) != len) die("write vhci attach");
    close(fd);
    close(sv[0]);
    logline("ATTACHED port=%d config_bytes=%zu", port, cfg_len);

    static uint8_t data[65536], iso[64 * 16];
    while (!stop) {
        double t = now_s(), next = t + 1.0;
        for (int i = 0; i < MAXPEND; i++) if (pend[i].used && pend[i].due < next) next = pend[i].due;
        int timeout = next <= t ? 0 : (int)((next - t) * 1000.0) + 1;
        struct pollfd pf = {.fd = sock, .events = POLLIN};
        int r = poll(&pf, 1, timeout);
        if (r < 0 && errno != EINTR) die("poll");
        if (r > 0) {
            uint8_t raw[48];
            readn(raw, 48);
            struct hdr h = {0};
            h.command = get32(raw); h.seqnum = get32(raw + 4); h.devid = get32(raw + 8);
            h.direction = get32(raw + 12); h.ep = get32(raw + 16);
            h.flags_or_unlink = get32(raw + 20); h.length = (int32_t)get32(raw + 24);
            h.start_frame = (int32_t)get32(raw + 28); h.npackets = (int32_t)get32(raw + 32);
            h.interval = (int32_t)get32(raw + 36); memcpy(h.setup, raw + 40, 8);
            if (h.command == CMD_UNLINK) {
                int found = 0;
                for (int i = 0; i < MAXPEND; i++)
                    if (pend[i].used && pend[i].seq == h.flags_or_unlink) { pend[i].used = 0; found = 1; }
                logline("UNLINK seq=%u found=%d", h.flags_or_unlink, found);
                ret_unlink(h.seqnum, found ? -104 /* -ECONNRESET */ : 0);
                continue;
            }
            if (h.command != CMD_SUBMIT) { logline("ERROR command %u", h.command); return 1; }
            int out = h.direction == 0;
            if (out && h.length > 0) {
                if ((size_t)h.length > sizeof data) { logline("ERROR length %d", h.length); return 1; }
                readn(data, (size_t)h.length);
            }
            int isoep = h.ep == 1 || h.ep == 2;
            if (isoep && h.npackets > 0) {
                if (h.npackets > 64) { logline("ERROR npackets %d", h.npackets); return 1; }
                readn(iso, (size_t)h.npackets * 16);
            }
            t = now_s();
            if (h.ep == 0) { control(&h, data); continue; }
            if (h.ep == 3 && out) {
                char hex[2 * 64 + 1] = {0};
                for (int i = 0; i < h.length && i < 64; i++) sprintf(hex + 2 * i, "%02x", data[i]);
                logline("OUTPUT raw=%s", hex);
                ret_submit(h.seqnum, 0, NULL, h.length, 0, 0, NULL);
                continue;
            }
            if (h.ep == 4 && !out) {  // interrupt IN: one neutral input report every 250 ms
                struct pending *p = &pend[free_slot()];
                memset(p, 0, sizeof *p);
                p->used = 1; p->seq = h.seqnum; p->kind = 3; p->due = t + 0.25;
                continue;
            }
            if (isoep) {
                // The bus: each packet lasts urb->interval microframes (high speed: 8 = 1 ms).
                double pkt = (h.interval > 0 ? h.interval : 8) * 125e-6;
                double *clk = out ? &stream_clock : &in_clock;
                if (*clk < t) {
                    *clk = t + 0.001;
                    if (out) logline("ISO-START t=%.6f frame=%ld", *clk, frames_recorded);
                }
                struct pending *p = &pend[free_slot()];
                memset(p, 0, sizeof *p);
                p->used = 1; p->seq = h.seqnum; p->kind = out ? 1 : 2; p->np = h.npackets;
                p->start_frame = frame_no;
                frame_no += h.npackets;
                double start = *clk;
                *clk += h.npackets * pkt;
                p->due = *clk;
                int32_t total = 0;
                long frames = 0;
                for (int i = 0; i < h.npackets; i++) {
                    uint8_t *d = iso + 16 * i, *o = p->iso + 16 * i;
                    uint32_t off = get32(d), plen = get32(d + 4);
                    uint32_t act = out ? plen : 0;
                    if (out && off + plen <= (uint32_t)h.length) {
                        if (recf) { fwrite(data + off, 1, plen, recf); fflush(recf); }
                        analyse((const int16_t *)(data + off), plen / 8);
                        frames_recorded += plen / 8;
                        frames += plen / 8;
                    }
                    put32(o, off); put32(o + 4, plen); put32(o + 8, act); put32(o + 12, 0);
                    total += (int32_t)act;
                }
                p->actual = total;
                if (out && timesf) { fprintf(timesf, "%.6f %ld %ld\n", start, frames_recorded - frames, frames); fflush(timesf); }
                continue;
            }
            logline("ERROR unexpected ep=%u dir=%u", h.ep, h.direction);
            ret_submit(h.seqnum, -32, NULL, 0, 0, 0, NULL);
        }
        complete_due(now_s());
    }
    if (recf) fclose(recf);
    if (timesf) fclose(timesf);
    summary();
    return 0;
}
