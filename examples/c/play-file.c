/* Plays an AHAP file (or a library pattern by name) on the default pad and waits until it ends.
 *
 *     cc play-file.c $(pkg-config --cflags --libs hapticd) -o play-file
 *     ./play-file my.ahap          # or: ./play-file heartbeat
 *
 * The socket: $HAPTICD_SOCKET, or the daemon's default path. */
#include <hapticd.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, int status) {
    fprintf(stderr, "%s: %s\n", what, hapticd_last_error());
    const char *details = hapticd_last_error_details();
    if (*details) fprintf(stderr, "%s\n", details);
    return status == HAPTICD_E_NOT_RUNNING ? 2 : 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FILE.ahap | NAME\n", argv[0]);
        return 64;
    }
    hapticd_client *client;
    int r = hapticd_connect(NULL, "org.hapticd.example.play-file", &client);
    if (r) return fail("connect", r);

    hapticd_engine *engine;
    if ((r = hapticd_engine_create(client, -1, "default", &engine))) return fail("engine", r);

    /* A path (it has a '/' or ends in .ahap) is a file; anything else a library name. */
    hapticd_pattern *pattern;
    const char *arg = argv[1];
    size_t n = strlen(arg);
    int is_file = strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".ahap") == 0);
    r = is_file ? hapticd_pattern_from_file(arg, &pattern) : hapticd_pattern_from_name(arg, &pattern);
    if (r) return fail(arg, r);

    hapticd_player *player;
    if ((r = hapticd_player_create(engine, pattern, HAPTICD_PLAYER_ADVANCED, &player))) return fail(arg, r);
    if ((r = hapticd_player_start(player, HAPTICD_TIME_NOW))) return fail("start", r);
    hapticd_player_status st;
    hapticd_player_status_get(player, &st);
    printf("playing %s (%.3f s) as player %d on device %d\n", arg, st.duration, st.player, st.device);

    /* Wait for its player.finished event. */
    for (;;) {
        hapticd_event e;
        r = hapticd_next_event(client, &e, (int)(st.duration * 1000) + 5000);
        if (r < 0) return fail("events", r);
        if (r == 0) {
            fprintf(stderr, "no player.finished event came\n");
            return 1;
        }
        if (e.type == HAPTICD_EVENT_PLAYER_FINISHED && e.player == st.player) {
            printf("finished (%s)\n", e.reason_name);
            break;
        }
    }
    hapticd_player_destroy(player);
    hapticd_pattern_free(pattern);
    hapticd_close(client);
    return 0;
}
