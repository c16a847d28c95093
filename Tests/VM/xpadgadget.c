// A wired Xbox pad as a USB gadget on the kernel's dummy host controller (dummy_hcd), so that the
// kernel's real xpad driver binds to it, creates its evdev node with FF_RUMBLE, and sends its rumble
// output reports here. The test fixture for xpad in the real-kernel tests (issue 9).
//
// The gadget is built through configfs (libcomposite) with one FunctionFS function holding the pad's
// vendor-specific interface and its two interrupt endpoints; every OUT transfer xpad sends is read
// from the OUT endpoint and logged with a CLOCK_MONOTONIC time stamp, one line each, flushed at once,
// decoded into the motor values the pad would run:
//   <sec.usec> CREATED type=<360|one> vendor=045e product=<pid> udc=<udc> gadget=<configfs dir>
//              out_interval_ms=<n> pacing=<on|off>
//   <sec.usec> ENABLE | DISABLE | BIND | UNBIND | SUSPEND | RESUME     (FunctionFS events)
//   <sec.usec> RUMBLE strong=<n> weak=<n> raw=<hex>      360: 0…255 each; One: 0…127 (see below)
//   <sec.usec> LED value=<n> raw=<hex>                    360 LED command
//   <sec.usec> GIP cmd=<hex> seq=<n> raw=<hex>            One: any other GIP packet (init sequence)
//   <sec.usec> OUT raw=<hex>                              anything else
//   <sec.usec> UNPLUGGED | PLUGGED | DESTROYED
//   <sec.usec> STALL late_ms=<n>                          (with --stalls on; see watch_stalls)
// SIGUSR1 unplugs the pad (unbinds the gadget from the UDC), SIGUSR2 plugs it in again, SIGTERM
// unplugs it, removes the gadget and ends the program.
//
// Usage: xpadgadget --type 360|one --log FILE [--udc NAME] [--pacing on|off] [--stalls on|off]
//   --udc: default the first UDC in /sys/class/udc. --pacing (default on): take OUT packets no faster
//   than the endpoint's bInterval, as a real USB bus does (dummy_hcd alone does not).
//
// Hardware facts (descriptors) come from public sources:
// - Xbox 360 wired pad 045e:028e: device class ff/ff/ff, bcdDevice 0x0114, interface 0 class ff/5d/01
//   with interrupt IN 0x81 (32 bytes, bInterval 4) and interrupt OUT 0x01 (32 bytes, bInterval 8):
//   https://www.partsnotincluded.com/understanding-the-xbox-360-wired-controllers-usb-data/ and the
//   free60 wiki's "Gamepad" page. The pad's vendor descriptor (type 0x21, 17 bytes) is left out:
//   FunctionFS rejects unknown descriptor types and xpad does not read it.
// - Xbox One S pad 045e:02ea: device and interface class ff/47/d0, interface 0 with interrupt
//   IN/OUT endpoints of 64 bytes, bInterval 4 (xpad matches subclass 71, protocol 208, interface 0).
// - What xpad sends (Linux 6.1 drivers/input/joystick/xpad.c, checked against the disassembly of
//   Debian's 6.1.0 xpad.ko): Xbox 360 rumble `00 08 00 <strong>>8> <weak>>8> 00 00 00`, LED `01 03 <n>`;
//   Xbox One GIP rumble `09 00 <seq> 09 00 0f 00 00 <strong>>9> <weak>>9> ff 00 ff` (0…127, not
//   0…100), and on open the init packets `05 20 <seq> 01 00` (power on) and, for 02ea,
//   `05 20 <seq> 0f 06`.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct pad_kind {
    const char *type;
    uint16_t vendor, product, bcd_device;
    uint8_t device_class[3];    // class, subclass, protocol
    uint8_t interface_class[3];
    uint16_t packet_size;
    uint8_t in_interval_ms, out_interval_ms;
    const char *manufacturer, *product_name;
};

static const struct pad_kind pad_360 = {
    "360", 0x045e, 0x028e, 0x0114, {0xff, 0xff, 0xff}, {0xff, 0x5d, 0x01}, 32, 4, 8,
    "\xc2\xa9Microsoft Corporation", "Controller",
};
static const struct pad_kind pad_one = {
    "one", 0x045e, 0x02ea, 0x0408, {0xff, 0x47, 0xd0}, {0xff, 0x47, 0xd0}, 64, 4, 4,
    "Microsoft", "Controller",
};

static const struct pad_kind *kind;
static FILE *logf_;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void logline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logline(const char *fmt, ...) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    pthread_mutex_lock(&log_lock);
    fprintf(logf_, "%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(logf_, fmt, ap);
    va_end(ap);
    fputc('\n', logf_);
    fflush(logf_);
    pthread_mutex_unlock(&log_lock);
}

static void die(const char *what) {
    fprintf(stderr, "xpadgadget: %s: %s\n", what, strerror(errno));
    if (logf_) logline("FAILED %s errno=%d", what, errno);
    exit(1);
}

// --- configfs -------------------------------------------------------------------------------------

static char gadget_dir[256], ffs_dir[128], udc_name[256], function_name[32];

static void put(const char *file, const char *value) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", gadget_dir, file);
    int fd = open(path, O_WRONLY);
    if (fd < 0) die(path);
    ssize_t n = write(fd, value, strlen(value));
    if (n < 0 && !(value[0] == '\n' && errno == ENODEV)) die(path);  // unbinding twice is harmless
    close(fd);
}

static void putf(const char *file, const char *fmt, unsigned value) {
    char text[32];
    snprintf(text, sizeof text, fmt, value);
    put(file, text);
}

static void make_dir(const char *sub) {
    char path[512];
    snprintf(path, sizeof path, "%s%s%s", gadget_dir, *sub ? "/" : "", sub);
    if (mkdir(path, 0755) < 0 && errno != EEXIST) die(path);
}

static void first_udc(void) {
    DIR *d = opendir("/sys/class/udc");
    if (!d) die("/sys/class/udc (is dummy_hcd loaded?)");
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(udc_name, sizeof udc_name, "%s", e->d_name);
        break;
    }
    closedir(d);
    if (!udc_name[0]) { errno = ENODEV; die("no UDC in /sys/class/udc"); }
}

static void create_gadget(void) {
    if (access("/sys/kernel/config/usb_gadget", F_OK) != 0) {
        if (mount("none", "/sys/kernel/config", "configfs", 0, NULL) < 0 && errno != EBUSY) die("mount configfs");
        if (access("/sys/kernel/config/usb_gadget", F_OK) != 0) die("/sys/kernel/config/usb_gadget (is libcomposite loaded?)");
    }
    snprintf(function_name, sizeof function_name, "xpad%s", kind->type);
    snprintf(gadget_dir, sizeof gadget_dir, "/sys/kernel/config/usb_gadget/%s", function_name);
    make_dir("");
    putf("idVendor", "0x%04x", kind->vendor);
    putf("idProduct", "0x%04x", kind->product);
    putf("bcdDevice", "0x%04x", kind->bcd_device);
    put("bcdUSB", "0x0200");
    putf("bDeviceClass", "0x%02x", kind->device_class[0]);
    putf("bDeviceSubClass", "0x%02x", kind->device_class[1]);
    putf("bDeviceProtocol", "0x%02x", kind->device_class[2]);
    put("max_speed", "full-speed");  // both pads are full-speed devices
    make_dir("strings/0x409");
    put("strings/0x409/manufacturer", kind->manufacturer);
    put("strings/0x409/product", kind->product_name);
    put("strings/0x409/serialnumber", "HAPTICD0001");
    make_dir("configs/c.1");
    put("configs/c.1/MaxPower", "500");
    char fn[64], link_path[512], target[512];
    snprintf(fn, sizeof fn, "functions/ffs.%s", function_name);
    make_dir(fn);
    snprintf(target, sizeof target, "%s/%s", gadget_dir, fn);
    snprintf(link_path, sizeof link_path, "%s/configs/c.1/ffs.%s", gadget_dir, function_name);
    if (symlink(target, link_path) < 0 && errno != EEXIST) die(link_path);
}

static void remove_gadget(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/configs/c.1/ffs.%s", gadget_dir, function_name);
    unlink(path);
    const char *dirs[] = {"configs/c.1/strings/0x409", "configs/c.1", "strings/0x409", NULL};
    for (int i = 0; dirs[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", gadget_dir, dirs[i]);
        rmdir(path);
    }
    snprintf(path, sizeof path, "%s/functions/ffs.%s", gadget_dir, function_name);
    rmdir(path);
    rmdir(gadget_dir);
}

// --- FunctionFS -----------------------------------------------------------------------------------

struct interface_descs {
    struct usb_interface_descriptor intf;
    struct usb_endpoint_descriptor_no_audio in, out;
} __attribute__((packed));

static struct interface_descs interface_descs(int high_speed) {
    struct interface_descs d;
    memset(&d, 0, sizeof d);
    d.intf.bLength = USB_DT_INTERFACE_SIZE;
    d.intf.bDescriptorType = USB_DT_INTERFACE;
    d.intf.bInterfaceNumber = 0;
    d.intf.bNumEndpoints = 2;
    d.intf.bInterfaceClass = kind->interface_class[0];
    d.intf.bInterfaceSubClass = kind->interface_class[1];
    d.intf.bInterfaceProtocol = kind->interface_class[2];
    // Full speed: bInterval is in 1 ms frames. High speed (only if a host forces it): 2^(n-1)
    // microframes, the same period.
    uint8_t in = kind->in_interval_ms, out = kind->out_interval_ms;
    if (high_speed) {
        in = (uint8_t)(__builtin_ctz(in * 8) + 1);
        out = (uint8_t)(__builtin_ctz(out * 8) + 1);
    }
    d.in.bLength = d.out.bLength = USB_DT_ENDPOINT_SIZE;
    d.in.bDescriptorType = d.out.bDescriptorType = USB_DT_ENDPOINT;
    d.in.bEndpointAddress = 1 | USB_DIR_IN;
    d.out.bEndpointAddress = 1 | USB_DIR_OUT;
    d.in.bmAttributes = d.out.bmAttributes = USB_ENDPOINT_XFER_INT;
    d.in.wMaxPacketSize = d.out.wMaxPacketSize = kind->packet_size;  // little-endian host
    d.in.bInterval = in;
    d.out.bInterval = out;
    return d;
}

static int ep0 = -1, ep_in = -1, ep_out = -1;

static void open_functionfs(void) {
    snprintf(ffs_dir, sizeof ffs_dir, "/dev/ffs-%s", function_name);
    if (mkdir(ffs_dir, 0755) < 0 && errno != EEXIST) die(ffs_dir);
    if (mount(function_name, ffs_dir, "functionfs", 0, NULL) < 0 && errno != EBUSY) die("mount functionfs (is usb_f_fs loaded?)");
    char path[256];
    snprintf(path, sizeof path, "%s/ep0", ffs_dir);
    ep0 = open(path, O_RDWR);
    if (ep0 < 0) die(path);

    struct {
        struct usb_functionfs_descs_head_v2 head;
        uint32_t fs_count, hs_count;
        struct interface_descs fs, hs;
    } __attribute__((packed)) descs;
    descs.head.magic = FUNCTIONFS_DESCRIPTORS_MAGIC_V2;
    descs.head.length = sizeof descs;
    descs.head.flags = FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC;
    descs.fs_count = descs.hs_count = 3;
    descs.fs = interface_descs(0);
    descs.hs = interface_descs(1);
    if (write(ep0, &descs, sizeof descs) != (ssize_t)sizeof descs) die("write FunctionFS descriptors");
    struct usb_functionfs_strings_head strings = {
        .magic = FUNCTIONFS_STRINGS_MAGIC, .length = sizeof strings, .str_count = 0, .lang_count = 0,
    };
    if (write(ep0, &strings, sizeof strings) != (ssize_t)sizeof strings) die("write FunctionFS strings");
    // The endpoint files appear once the descriptors are in: ep1 is the IN endpoint, ep2 the OUT one.
    snprintf(path, sizeof path, "%s/ep1", ffs_dir);
    ep_in = open(path, O_RDWR);
    if (ep_in < 0) die(path);
    snprintf(path, sizeof path, "%s/ep2", ffs_dir);
    ep_out = open(path, O_RDWR);
    if (ep_out < 0) die(path);
}

// --- the OUT endpoint: what xpad sends ------------------------------------------------------------

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_changed = PTHREAD_COND_INITIALIZER;
static int enabled;

static void hex(const uint8_t *b, ssize_t n, char *out) {
    for (ssize_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = 0;
}

static void decode(const uint8_t *b, ssize_t n) {
    char raw[2 * 64 + 1];
    hex(b, n, raw);
    if (kind == &pad_360) {
        if (n == 8 && b[0] == 0x00 && b[1] == 0x08) logline("RUMBLE strong=%u weak=%u raw=%s", b[3], b[4], raw);
        else if (n == 3 && b[0] == 0x01 && b[1] == 0x03) logline("LED value=%u raw=%s", b[2], raw);
        else logline("OUT raw=%s", raw);
    } else {
        if (n >= 13 && b[0] == 0x09) logline("RUMBLE strong=%u weak=%u raw=%s", b[8], b[9], raw);
        else if (n >= 4) logline("GIP cmd=%02x seq=%u raw=%s", b[0], b[2], raw);
        else logline("OUT raw=%s", raw);
    }
}

// A full-speed interrupt OUT endpoint moves at most one packet per bInterval frames: the host
// controller polls it on a fixed schedule. dummy_hcd ignores bInterval (it moves a packet in the next
// 1 ms frame), so without this the driver would drain far faster than on a real bus. The reader takes
// the next packet only at the schedule slot after the one that carried the previous packet. (What it
// cannot add: the wait of an isolated packet for the next slot, at most one interval, on average half.)
static int pace = 1, stalls = 0;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *read_out_endpoint(void *unused) {
    (void)unused;
    // The emulated bus keeps time like hardware: this thread (only this one, which never spins) runs
    // at real-time priority; the VM's one emulated CPU is shared with the daemon under test, and a
    // late reader would make the bus look slower than it is.
    struct sched_param sp = {.sched_priority = 50};
    int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (e) fprintf(stderr, "xpadgadget: SCHED_FIFO: %s (timing will be noisier)\n", strerror(e));
    uint8_t buf[64];
    const int64_t period = (int64_t)kind->out_interval_ms * 1000000;
    int64_t next_slot = 0, waited_for = 0;
    for (;;) {
        pthread_mutex_lock(&state_lock);
        while (!enabled) pthread_cond_wait(&state_changed, &state_lock);
        pthread_mutex_unlock(&state_lock);
        if (pace && next_slot > now_ns()) {
            struct timespec ts = {.tv_sec = next_slot / 1000000000, .tv_nsec = next_slot % 1000000000};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        }
        waited_for = next_slot;
        ssize_t n = read(ep_out, buf, sizeof buf);
        if (n > 0) {
            int64_t t = now_ns();
            decode(buf, n);
            // The slot that carried this packet: the one the reader waited for if the packet was
            // already queued, else the first after its arrival. The read returns up to one dummy_hcd
            // frame (1 ms) after that, later when the VM is busy, so the slot is taken as the last grid
            // point before (return time - 2 ms), never before the one waited for: when in doubt the
            // emulated bus is a little faster than the real one, never slower.
            int64_t slot = (t - 2000000) / period * period;
            if (slot < waited_for) slot = waited_for;
            next_slot = slot + period;
        } else if (n < 0 && errno != EINTR) {
            // The host went away mid-transfer (unplug, unbind): wait for the next ENABLE.
            pthread_mutex_lock(&state_lock);
            if (enabled) enabled = 0;
            pthread_mutex_unlock(&state_lock);
        }
    }
    return NULL;
}

static void set_enabled(int on) {
    pthread_mutex_lock(&state_lock);
    enabled = on;
    pthread_cond_broadcast(&state_changed);
    pthread_mutex_unlock(&state_lock);
}

// --- stall watch ----------------------------------------------------------------------------------

// The VM is emulated in software; when its host is busy, the whole guest stops for tens of
// milliseconds now and then, and every timer in it fires late. The tests cannot judge timing across
// such a stall, so with --stalls a thread at ordinary priority (like the daemon under test) sleeps
// 2 ms at a time and logs every wake-up more than 4 ms late: `STALL late_ms=<n>` (time = the wake-up).
static void *watch_stalls(void *unused) {
    (void)unused;
    const int64_t period = 2000000, threshold = 4000000;
    int64_t next = now_ns() + period;
    for (;;) {
        struct timespec ts = {.tv_sec = next / 1000000000, .tv_nsec = next % 1000000000};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        int64_t late = now_ns() - next;
        if (late > threshold) logline("STALL late_ms=%.1f", late / 1e6);
        next = now_ns() + period;
    }
    return NULL;
}

// --- ep0: FunctionFS events and control requests --------------------------------------------------

static volatile sig_atomic_t want_unplug, want_plug, want_exit;
static void on_signal(int sig) {
    if (sig == SIGUSR1) want_unplug = 1;
    if (sig == SIGUSR2) want_plug = 1;
    if (sig == SIGTERM || sig == SIGINT) want_exit = 1;
}

static void handle_event(const struct usb_functionfs_event *e) {
    static const char *names[] = {"BIND", "UNBIND", "ENABLE", "DISABLE", "SETUP", "SUSPEND", "RESUME"};
    switch (e->type) {
    case FUNCTIONFS_ENABLE:
        logline("ENABLE");
        set_enabled(1);
        break;
    case FUNCTIONFS_DISABLE:
    case FUNCTIONFS_UNBIND:
        logline("%s", names[e->type]);
        set_enabled(0);
        break;
    case FUNCTIONFS_SETUP: {
        // xpad sends no control requests to these interfaces; refuse any (a stall) and say so.
        const struct usb_ctrlrequest *r = &e->u.setup;
        logline("SETUP type=%02x request=%02x value=%04x index=%04x length=%u", r->bRequestType, r->bRequest,
                r->wValue, r->wIndex, r->wLength);
        char dummy;
        if (r->bRequestType & USB_DIR_IN) {
            if (read(ep0, &dummy, 0) < 0 && errno != EL2HLT) { /* stalled as intended */ }
        } else {
            if (write(ep0, &dummy, 0) < 0 && errno != EL2HLT) { /* stalled as intended */ }
        }
        break;
    }
    default:
        if (e->type < sizeof names / sizeof *names) logline("%s", names[e->type]);
    }
}

int main(int argc, char **argv) {
    const char *log_path = NULL, *type = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--type")) type = argv[i + 1];
        else if (!strcmp(argv[i], "--log")) log_path = argv[i + 1];
        else if (!strcmp(argv[i], "--udc")) snprintf(udc_name, sizeof udc_name, "%s", argv[i + 1]);
        else if (!strcmp(argv[i], "--pacing")) pace = strcmp(argv[i + 1], "off") != 0;
        else if (!strcmp(argv[i], "--stalls")) stalls = strcmp(argv[i + 1], "on") == 0;
    }
    if (!log_path || !type || (strcmp(type, "360") && strcmp(type, "one"))) {
        fprintf(stderr, "usage: xpadgadget --type 360|one --log FILE [--udc NAME] [--pacing on|off] [--stalls on|off]\n");
        return 2;
    }
    kind = strcmp(type, "360") ? &pad_one : &pad_360;
    logf_ = fopen(log_path, "a");
    if (!logf_) die(log_path);
    if (!udc_name[0]) first_udc();

    create_gadget();
    open_functionfs();

    // Signals stay blocked except inside ppoll() below (so none is lost between a check and the wait),
    // and the reader thread never takes them.
    sigset_t all, during_wait;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &during_wait);
    sigdelset(&during_wait, SIGUSR1);
    sigdelset(&during_wait, SIGUSR2);
    sigdelset(&during_wait, SIGTERM);
    sigdelset(&during_wait, SIGINT);
    pthread_t reader;
    if (pthread_create(&reader, NULL, read_out_endpoint, NULL) != 0) die("pthread_create");
    pthread_t watcher;
    if (stalls && pthread_create(&watcher, NULL, watch_stalls, NULL) != 0) die("pthread_create");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    char udc_line[300];
    snprintf(udc_line, sizeof udc_line, "%s\n", udc_name);
    put("UDC", udc_line);
    logline("CREATED type=%s vendor=%04x product=%04x udc=%s gadget=%s out_interval_ms=%u pacing=%s", kind->type,
            kind->vendor, kind->product, udc_name, gadget_dir, kind->out_interval_ms, pace ? "on" : "off");

    while (!want_exit) {
        if (want_unplug) {
            want_unplug = 0;
            put("UDC", "\n");
            logline("UNPLUGGED");
        }
        if (want_plug) {
            want_plug = 0;
            put("UDC", udc_line);
            logline("PLUGGED");
        }
        struct pollfd p = {.fd = ep0, .events = POLLIN};
        if (ppoll(&p, 1, NULL, &during_wait) < 0) {
            if (errno == EINTR) continue;
            die("poll ep0");
        }
        struct usb_functionfs_event events[4];
        ssize_t n = read(ep0, events, sizeof events);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("read ep0");
        }
        for (ssize_t i = 0; i < n / (ssize_t)sizeof *events; i++) handle_event(&events[i]);
    }
    put("UDC", "\n");
    logline("DESTROYED");
    close(ep_in);
    close(ep_out);
    close(ep0);
    umount(ffs_dir);
    rmdir(ffs_dir);
    remove_gadget();
    return 0;
}
