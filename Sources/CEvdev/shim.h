// libevdev and the kernel's input API, plus what Swift cannot import from them.
//
// The EVIOC* request codes are function-like macros built with _IOW/_IOR, which Swift does not
// import; these inline functions give them to Swift as values. Nothing else belongs here.
#ifndef HAPTICD_CEVDEV_SHIM_H
#define HAPTICD_CEVDEV_SHIM_H

#include <libevdev-1.0/libevdev/libevdev.h>
#include <linux/input.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <poll.h>

static inline unsigned long hapticd_eviocsff(void) { return EVIOCSFF; }
static inline unsigned long hapticd_eviocrmff(void) { return EVIOCRMFF; }
static inline unsigned long hapticd_eviocgeffects(void) { return EVIOCGEFFECTS; }

// ioctl is variadic in C and so not callable from Swift: these fix its argument types.
static inline int hapticd_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }
static inline int hapticd_ioctl_int(int fd, unsigned long request, int arg) { return ioctl(fd, request, arg); }

#endif
