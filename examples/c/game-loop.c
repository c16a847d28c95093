/* A game loop without threads: an engine rumble whose intensity and sharpness follow input.
 *
 *     cc game-loop.c $(pkg-config --cflags --libs hapticd) -lm -o game-loop
 *     ./game-loop            # keys on stdin: w/s intensity up/down, a/d sharpness, space a click, q quits
 *     ./game-loop --sine 5   # no input: intensity follows a 1 Hz sine for 5 seconds
 *
 * Each frame (60 per second) the loop polls stdin and hapticd_fd() together, hands the daemon's
 * events to a callback with hapticd_dispatch(), and sends the parameters when they changed. A
 * looping continuous pattern plays underneath; the daemon restarting is reported, and the loop
 * reconnects on its own time. */
#define _POSIX_C_SOURCE 200809L
#include <hapticd.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int lost;

static void on_event(const hapticd_event *e, void *user) {
    (void)user;
    switch (e->type) {
    case HAPTICD_EVENT_PLAYER_FINISHED: printf("player %d finished (%s)\n", e->player, e->reason_name); break;
    case HAPTICD_EVENT_ENGINE_STOPPED: printf("engine %d/%s stopped (%s)\n", e->device, e->locality, e->reason_name); break;
    case HAPTICD_EVENT_ENGINE_RESET: printf("engine %d/%s reset: players must be made again\n", e->device, e->locality); lost = 1; break;
    case HAPTICD_EVENT_DEVICE_ADDED: printf("pad %d added: %s\n", e->device, e->name); break;
    case HAPTICD_EVENT_DEVICE_REMOVED: printf("pad %d removed: %s\n", e->device, e->name); break;
    case HAPTICD_EVENT_CONNECTION_LOST: printf("hapticd went away\n"); lost = 1; break;
    default: break;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int check(const char *what, int r) {
    if (r) fprintf(stderr, "%s: %s\n", what, hapticd_last_error());
    return r;
}

/* The rumble underneath: one long continuous event, looping. */
static hapticd_player *make_player(hapticd_engine *engine) {
    hapticd_pattern *p;
    hapticd_player *player = NULL;
    if (check("pattern", hapticd_pattern_new(&p))) return NULL;
    hapticd_pattern_add_continuous(p, 0, 2.0, 1.0, 0.5);
    if (!check("player", hapticd_player_create(engine, p, HAPTICD_PLAYER_ADVANCED, &player))) {
        hapticd_player_set_loop(player, 1);
        hapticd_player_send_parameter(player, HAPTICD_PARAM_INTENSITY, 0, HAPTICD_TIME_NOW);
        check("start", hapticd_player_start(player, HAPTICD_TIME_NOW));
    }
    hapticd_pattern_free(p);
    return player;
}

int main(int argc, char **argv) {
    double sine_seconds = argc == 3 && !strcmp(argv[1], "--sine") ? atof(argv[2]) : 0;
    hapticd_client *client;
    if (check("connect", hapticd_connect(NULL, "org.hapticd.example.game-loop", &client))) return 2;
    hapticd_set_event_callback(client, on_event, NULL);
    hapticd_engine *engine;
    if (check("engine", hapticd_engine_create(client, -1, NULL, &engine))) return 1;
    hapticd_player *player = make_player(engine);
    if (!player) return 1;

    double intensity = 0, sharpness = 0, sent_i = -1, sent_s = -9, start = now(), next_retry = 0;
    int running = 1;
    while (running) {
        double frame = now();
        struct pollfd fds[2] = {{hapticd_fd(client), POLLIN, 0}, {sine_seconds > 0 ? -1 : 0, POLLIN, 0}};
        poll(fds, 2, 16);
        if (fds[0].revents & POLLIN) hapticd_dispatch(client, 0);
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            char keys[64];
            ssize_t n = read(0, keys, sizeof keys);
            if (n <= 0) running = 0;
            for (ssize_t k = 0; k < n; k++) {
                switch (keys[k]) {
                case 'w': intensity = fmin(1, intensity + 0.1); break;
                case 's': intensity = fmax(0, intensity - 0.1); break;
                case 'd': sharpness = fmin(1, sharpness + 0.1); break;
                case 'a': sharpness = fmax(-1, sharpness - 0.1); break;
                case ' ': hapticd_feedback(client, "impact", "rigid", -1, 0); break;
                case 'q': running = 0; break;
                }
            }
        }
        if (sine_seconds > 0) {
            double t = frame - start;
            intensity = 0.5 + 0.5 * sin(2 * 3.14159265358979 * t);
            if (t >= sine_seconds) running = 0;
        }
        if (lost) {
            /* The daemon restarted (or the pad's engine was reset): try again twice a second. */
            if (frame >= next_retry) {
                next_retry = frame + 0.5;
                if ((hapticd_is_connected(client) || hapticd_reconnect(client) == HAPTICD_OK)) {
                    hapticd_player_destroy(player);
                    if ((player = make_player(engine))) {
                        lost = 0;
                        sent_i = -1;
                        printf("reconnected\n");
                    }
                }
            }
            continue;
        }
        /* Send only changes, at most once a frame. */
        if (fabs(intensity - sent_i) > 0.005 || fabs(sharpness - sent_s) > 0.005) {
            hapticd_parameter_value v[2] = {{HAPTICD_PARAM_INTENSITY, 0, intensity}, {HAPTICD_PARAM_SHARPNESS, 0, sharpness}};
            if (!check("parameters", hapticd_player_send_parameters(player, v, 2, HAPTICD_TIME_NOW))) {
                sent_i = intensity;
                sent_s = sharpness;
                if (sine_seconds == 0) printf("intensity %.1f sharpness %+.1f\n", intensity, sharpness);
            }
        }
    }
    hapticd_player_stop(player, HAPTICD_TIME_NOW);
    hapticd_player_destroy(player);
    hapticd_engine_destroy(engine);
    hapticd_close(client);
    return 0;
}
