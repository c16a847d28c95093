/* Calls every request-sending function of libhapticd, with every optional argument given, so that a
 * recording daemon sees what the library sends (scripts/bindings-test.sh). The daemon's refusals are
 * expected (a stopped engine, a player already gone) and ignored: what counts is what was sent.
 * Usage: exercise SOCKET */
#include <hapticd.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    hapticd_client *c = NULL;
    if (hapticd_connect(argv[1], "org.example.Bindings", &c) != 0) {
        fprintf(stderr, "exercise: %s\n", hapticd_last_error());
        return 1;
    }
    char version[64];
    int protocol = 0, total = 0, stopped = 0;
    int32_t id = 0;
    double t = 0;
    hapticd_identity identity;
    hapticd_policy policy;
    hapticd_device_info devices[4];
    hapticd_pattern_info patterns[4];
    hapticd_capabilities caps;
    hapticd_engine_status status;
    hapticd_player_status pstatus;

    hapticd_ping(c);
    hapticd_daemon_version(c, version, sizeof version, &protocol);
    hapticd_hello(c, "org.example.Bindings", &identity);
    hapticd_policy_get(c, &policy);
    hapticd_policy_set(c, "full", 1.0, 0.3, &policy);
    hapticd_devices(c, devices, 4, &total);
    hapticd_patterns(c, patterns, 4, &total);
    hapticd_subscribe(c, HAPTICD_EVENTS_DEFAULT);
    hapticd_capabilities_get(c, 0, &caps);
    hapticd_prepare(c);
    hapticd_play_name(c, "heartbeat", &id);
    hapticd_play_file(c, "config/patterns/heartbeat.ahap", &id);
    hapticd_feedback(c, "impact", "heavy", 0.5, HAPTICD_FEEDBACK_IMPORTANT);
    hapticd_rumble(c, 0.5, 0.5, 0.2);

    hapticd_engine *e = NULL;
    if (hapticd_engine_create(c, 0, "default", &e) == 0) {
        hapticd_engine_set_priority(e, 5);
        hapticd_engine_status_get(e, &status);
        hapticd_engine_current_time(e, &t);
        hapticd_engine_capabilities(e, &caps);
        hapticd_engine_prepare(e, &t);
        hapticd_engine_rumble(e, 0.5, 0.5, 0.2, 0.1);
        hapticd_engine_feedback(e, "impact", "heavy", 0.5, HAPTICD_FEEDBACK_IMPORTANT, &id);
        hapticd_pattern *named = NULL, *built = NULL;
        hapticd_pattern_from_name("heartbeat", &named);
        hapticd_pattern_new(&built);
        hapticd_pattern_add_continuous(built, 0, 0.2, 1, 0.5);
        hapticd_engine_play(e, named, HAPTICD_PLAY_LOOP, 1.5, &id);
        hapticd_engine_play(e, built, 0, 1, &id);
        hapticd_player *p = NULL;
        if (hapticd_player_create(e, built, HAPTICD_PLAYER_BASIC, &p) == 0) hapticd_player_destroy(p);
        /* A pattern over the inline bound goes in pieces (pattern.upload) and is named by `upload`. */
        hapticd_pattern *song = NULL;
        hapticd_pattern_new(&song);
        for (int i = 0; i < 3000; i++) hapticd_pattern_add_transient(song, i * 0.01, 0.5, 0.5);
        hapticd_engine_play(e, song, 0, 1, &id);
        if (hapticd_player_create(e, song, HAPTICD_PLAYER_BASIC, &p) == 0) hapticd_player_destroy(p);
        hapticd_pattern_free(song);
        if (hapticd_player_create(e, named, HAPTICD_PLAYER_ADVANCED, &p) == 0) {
            hapticd_engine_current_time(e, &t);
            hapticd_player_start(p, t + 0.01);
            hapticd_player_status_get(p, &pstatus);
            hapticd_player_set_loop(p, 1);
            hapticd_player_set_loop_end(p, 0.5);
            hapticd_player_set_rate(p, 1.5);
            hapticd_player_set_muted(p, 0);
            hapticd_parameter_value values[1] = {{HAPTICD_PARAM_INTENSITY, 0, 0.5}};
            hapticd_player_send_parameters(p, values, 1, t + 0.01);
            hapticd_player_send_parameter(p, HAPTICD_PARAM_INTENSITY, 0.5, 1);
            hapticd_curve_point points[2] = {{0, 0.5}, {0.1, 1}};
            hapticd_player_schedule_curve(p, HAPTICD_PARAM_INTENSITY, points, 2, t + 0.01);
            hapticd_player_seek(p, 0.1);
            hapticd_player_pause(p, t + 0.01);
            hapticd_player_resume(p, t + 0.01);
            hapticd_player_stop(p, t + 0.01);
            hapticd_player_cancel(p);
            hapticd_player_destroy(p);
        }
        hapticd_pattern_free(named);
        hapticd_pattern_free(built);
        hapticd_engine_admin(e, HAPTICD_ADMIN_START);
        hapticd_engine_admin(e, HAPTICD_ADMIN_STOP);
        hapticd_engine_admin(e, HAPTICD_ADMIN_RESET);
        hapticd_engine_start(e);
        hapticd_engine_stop(e);
        hapticd_engine_destroy(e);
    }
    hapticd_stop_all(c, &stopped);
    hapticd_close(c);
    return 0;
}
