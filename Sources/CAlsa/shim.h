// ALSA's PCM API (Debian libasound2-dev), for the DualSense's USB audio stream (issue 25).
#include <alsa/asoundlib.h>
