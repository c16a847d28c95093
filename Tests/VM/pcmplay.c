// PROTOTYPE (issue 25 §3): plays a known 4-channel 48 kHz S16 test signal on an ALSA PCM through the
// kernel's ioctls (no alsa-lib: none in the initramfs). Channel 3: 100 Hz at half scale from 200 ms
// to 500 ms; channel 4: 250 Hz at quarter scale from 400 ms to 700 ms; channels 1-2 and the rest
// silent; 1.0 s in all, then drain.
// Usage: pcmplay /dev/snd/pcmCxDyp
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <sound/asound.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static struct snd_mask *mask(struct snd_pcm_hw_params *p, int k) { return &p->masks[k - SNDRV_PCM_HW_PARAM_FIRST_MASK]; }
static struct snd_interval *iv(struct snd_pcm_hw_params *p, int k) { return &p->intervals[k - SNDRV_PCM_HW_PARAM_FIRST_INTERVAL]; }
static void only(struct snd_pcm_hw_params *p, int k, unsigned bit) {
    struct snd_mask *m = mask(p, k);
    memset(m, 0, sizeof *m);
    m->bits[bit / 32] = 1u << (bit % 32);
}
static void range(struct snd_pcm_hw_params *p, int k, unsigned lo, unsigned hi) {
    struct snd_interval *i = iv(p, k);
    i->min = lo; i->max = hi; i->openmin = i->openmax = 0;
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: pcmplay DEVICE\n"); return 2; }
    int fd = open(argv[1], O_RDWR);
    if (fd < 0) { perror("open"); return 1; }
    struct snd_pcm_hw_params p;
    memset(&p, 0, sizeof p);
    for (int k = SNDRV_PCM_HW_PARAM_FIRST_MASK; k <= SNDRV_PCM_HW_PARAM_LAST_MASK; k++)
        memset(mask(&p, k), 0xff, sizeof(struct snd_mask));
    for (int k = SNDRV_PCM_HW_PARAM_FIRST_INTERVAL; k <= SNDRV_PCM_HW_PARAM_LAST_INTERVAL; k++)
        range(&p, k, 0, UINT_MAX);
    p.rmask = ~0u; p.info = ~0u;
    only(&p, SNDRV_PCM_HW_PARAM_ACCESS, SNDRV_PCM_ACCESS_RW_INTERLEAVED);
    only(&p, SNDRV_PCM_HW_PARAM_FORMAT, SNDRV_PCM_FORMAT_S16_LE);
    only(&p, SNDRV_PCM_HW_PARAM_SUBFORMAT, SNDRV_PCM_SUBFORMAT_STD);
    range(&p, SNDRV_PCM_HW_PARAM_CHANNELS, 4, 4);
    range(&p, SNDRV_PCM_HW_PARAM_RATE, 48000, 48000);
    range(&p, SNDRV_PCM_HW_PARAM_PERIOD_TIME, 5000, 10000);
    range(&p, SNDRV_PCM_HW_PARAM_BUFFER_TIME, 20000, 40000);
    if (ioctl(fd, SNDRV_PCM_IOCTL_HW_PARAMS, &p) < 0) { perror("HW_PARAMS"); return 1; }
    printf("PCMPLAY hw period=%u buffer=%u channels=%u rate=%u\n", iv(&p, SNDRV_PCM_HW_PARAM_PERIOD_SIZE)->min,
           iv(&p, SNDRV_PCM_HW_PARAM_BUFFER_SIZE)->min, iv(&p, SNDRV_PCM_HW_PARAM_CHANNELS)->min,
           iv(&p, SNDRV_PCM_HW_PARAM_RATE)->min);
    if (ioctl(fd, SNDRV_PCM_IOCTL_PREPARE) < 0) { perror("PREPARE"); return 1; }
    const int total = 48000;
    int16_t *buf = calloc((size_t)total * 4, sizeof(int16_t));
    for (int i = 0; i < total; i++) {
        double t = i / 48000.0;
        if (i >= 9600 && i < 24000) buf[i * 4 + 2] = (int16_t)lround(16384 * sin(2 * M_PI * 100 * (t - 0.2)));
        if (i >= 19200 && i < 33600) buf[i * 4 + 3] = (int16_t)lround(8192 * sin(2 * M_PI * 250 * (t - 0.4)));
    }
    double t0 = now_s();
    printf("PCMPLAY start t=%.6f\n", t0);
    fflush(stdout);
    int done = 0;
    while (done < total) {
        struct snd_xferi x = {.buf = buf + done * 4, .frames = (snd_pcm_uframes_t)(total - done > 240 ? 240 : total - done)};
        if (ioctl(fd, SNDRV_PCM_IOCTL_WRITEI_FRAMES, &x) < 0) {
            perror("WRITEI");
            if (ioctl(fd, SNDRV_PCM_IOCTL_PREPARE) < 0) return 1;
            continue;
        }
        done += (int)x.result;
    }
    if (ioctl(fd, SNDRV_PCM_IOCTL_DRAIN) < 0) perror("DRAIN");
    printf("PCMPLAY end t=%.6f wrote=%d elapsed=%.3f\n", now_s(), done, now_s() - t0);
    close(fd);
    return 0;
}
