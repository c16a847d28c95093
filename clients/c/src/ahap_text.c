/*
 * AHAP text → one line of JSON for the socket.
 *
 * The protocol is one JSON object per line, and AHAP files have newlines, comments and trailing
 * commas (Apple's own samples do). This scanner checks the text with exactly the leniency of the
 * daemon's reader (Sources/HapticCore/JSON/JSONParser.swift: comments, trailing commas,
 * single-quoted strings, unquoted keys, a leading '+', NaN and Infinity, a UTF-8 byte order mark)
 * and writes it back without comments and whitespace, so that a syntax error is reported here with
 * the file's own line and column, and the daemon — which judges what the pattern means, with JSON
 * paths — receives the same text minus trivia. It builds no tree: the output is a copy of the input
 * with bytes left out, at most as long as the input, and nesting is bounded (128, as the daemon's).
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 128

typedef struct {
    const unsigned char *s;
    size_t n, i;
    size_t line, line_start;
    char *out;
    size_t o;
    int depth;
    char *err;
    size_t err_size;
} scanner;

static int fail(scanner *sc, const char *fmt, const char *arg) {
    size_t column = 1;
    for (size_t k = sc->line_start; k < sc->i && k < sc->n; k++)
        if ((sc->s[k] & 0xC0) != 0x80) column++;
    char reason[160];
    snprintf(reason, sizeof reason, fmt, arg ? arg : "");
    snprintf(sc->err, sc->err_size, "line %zu, column %zu: %s", sc->line, column, reason);
    return -1;
}

static int cur(const scanner *sc) { return sc->i < sc->n ? sc->s[sc->i] : -1; }

static void adv(scanner *sc) {
    if (sc->s[sc->i] == '\n') {
        sc->line++;
        sc->line_start = sc->i + 1;
    }
    sc->i++;
}

/* Copies the current byte to the output and advances. */
static void take(scanner *sc) {
    sc->out[sc->o++] = (char)sc->s[sc->i];
    adv(sc);
}

static const char *describe(const scanner *sc, char *buf, size_t size) {
    int b = cur(sc);
    if (b < 0) snprintf(buf, size, "end of file");
    else if (b >= 0x20 && b < 0x7f) snprintf(buf, size, "'%c'", b);
    else snprintf(buf, size, "byte 0x%x", b);
    return buf;
}

static int skip_trivia(scanner *sc) {
    for (;;) {
        int b = cur(sc);
        if (b == ' ' || b == '\t' || b == '\n' || b == '\r') {
            adv(sc);
        } else if (b == '/') {
            if (sc->i + 1 >= sc->n) return fail(sc, "unexpected '/'", NULL);
            if (sc->s[sc->i + 1] == '/') {
                while (cur(sc) >= 0 && cur(sc) != '\n') adv(sc);
            } else if (sc->s[sc->i + 1] == '*') {
                size_t open_line = sc->line;
                adv(sc);
                adv(sc);
                int closed = 0;
                while (sc->i < sc->n) {
                    if (sc->s[sc->i] == '*' && sc->i + 1 < sc->n && sc->s[sc->i + 1] == '/') {
                        adv(sc);
                        adv(sc);
                        closed = 1;
                        break;
                    }
                    adv(sc);
                }
                if (!closed) {
                    char l[32];
                    snprintf(l, sizeof l, "%zu", open_line);
                    return fail(sc, "the comment opened on line %s is never closed", l);
                }
            } else {
                return fail(sc, "unexpected '/' (comments start with // or /*)", NULL);
            }
        } else {
            return 0;
        }
    }
}

static int is_ident(int b) {
    return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_' || b == '$';
}

static size_t ident_len(const scanner *sc) {
    size_t e = sc->i;
    while (e < sc->n && is_ident(sc->s[e])) e++;
    return e - sc->i;
}

static int ident_is(const scanner *sc, const char *word) {
    size_t len = ident_len(sc);
    return len == strlen(word) && memcmp(sc->s + sc->i, word, len) == 0;
}

static void take_n(scanner *sc, size_t n) {
    while (n--) take(sc);
}

static int is_hex(int b) { return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F'); }

static int scan_string(scanner *sc) {
    int quote = cur(sc);
    take(sc);
    for (;;) {
        int b = cur(sc);
        if (b < 0) return fail(sc, "a string is never closed", NULL);
        if (b == quote) {
            take(sc);
            return 0;
        }
        if (b == '\n') return fail(sc, "a string is never closed before the end of the line", NULL);
        if (b < 0x20) {
            char h[8];
            snprintf(h, sizeof h, "%x", b);
            return fail(sc, "control character 0x%s in a string (escape it)", h);
        }
        if (b == '\\') {
            take(sc);
            int e = cur(sc);
            if (e < 0) return fail(sc, "a string is never closed", NULL);
            if (e == 'u') {
                take(sc);
                for (int k = 0; k < 4; k++) {
                    if (!is_hex(cur(sc))) return fail(sc, "\\u needs four hex digits", NULL);
                    take(sc);
                }
                continue;
            }
            if (!strchr("\"'\\/bfnrt", e) || e == 0) {
                char c[4] = {(char)e, 0};
                return fail(sc, "invalid escape '\\%s' in a string", c);
            }
            take(sc);
            continue;
        }
        take(sc);
    }
}

static int scan_number(scanner *sc) {
    if (cur(sc) == '-' || cur(sc) == '+') take(sc);
    if (ident_is(sc, "Infinity")) {
        take_n(sc, 8);
        return 0;
    }
    if (ident_is(sc, "NaN")) {
        take_n(sc, 3);
        return 0;
    }
    int digits = 0;
    while (cur(sc) >= '0' && cur(sc) <= '9') take(sc), digits++;
    if (cur(sc) == '.') {
        take(sc);
        while (cur(sc) >= '0' && cur(sc) <= '9') take(sc), digits++;
    }
    if (!digits) return fail(sc, "invalid number", NULL);
    if (cur(sc) == 'e' || cur(sc) == 'E') {
        take(sc);
        if (cur(sc) == '-' || cur(sc) == '+') take(sc);
        int exp = 0;
        while (cur(sc) >= '0' && cur(sc) <= '9') take(sc), exp++;
        if (!exp) return fail(sc, "invalid number: the exponent has no digits", NULL);
    }
    if (cur(sc) >= 0 && is_ident(cur(sc))) {
        char d[24];
        return fail(sc, "invalid number: unexpected %s", describe(sc, d, sizeof d));
    }
    return 0;
}

static int scan_value(scanner *sc);

static int enter(scanner *sc) {
    if (++sc->depth > MAX_DEPTH) return fail(sc, "nesting deeper than 128 levels", NULL);
    return 0;
}

static int scan_object(scanner *sc) {
    if (enter(sc)) return -1;
    char l[32], d[24];
    snprintf(l, sizeof l, "%zu", sc->line);
    take(sc); /* { */
    for (;;) {
        if (skip_trivia(sc)) return -1;
        int b = cur(sc);
        if (b < 0) return fail(sc, "the object opened on line %s is never closed", l);
        if (b == '}') {
            take(sc);
            break;
        }
        if (b == '"' || b == '\'') {
            if (scan_string(sc)) return -1;
        } else {
            size_t len = ident_len(sc);
            if (!len || (sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9'))
                return fail(sc, "expected a member name or '}', found %s", describe(sc, d, sizeof d));
            take_n(sc, len);
        }
        if (skip_trivia(sc)) return -1;
        if (cur(sc) != ':') return fail(sc, "expected ':' after a member name, found %s", describe(sc, d, sizeof d));
        take(sc);
        if (skip_trivia(sc)) return -1;
        if (scan_value(sc)) return -1;
        if (skip_trivia(sc)) return -1;
        b = cur(sc);
        if (b < 0) return fail(sc, "the object opened on line %s is never closed", l);
        if (b == ',') {
            /* A trailing comma is dropped from the output: the daemon would accept it, but strict
             * readers downstream (hapticd_pattern_json) need not. */
            adv(sc);
            if (skip_trivia(sc)) return -1;
            if (cur(sc) != '}') sc->out[sc->o++] = ',';
            continue;
        }
        if (b == '}') {
            take(sc);
            break;
        }
        return fail(sc, "expected ',' or '}' after a member's value, found %s", describe(sc, d, sizeof d));
    }
    sc->depth--;
    return 0;
}

static int scan_array(scanner *sc) {
    if (enter(sc)) return -1;
    char l[32], d[24];
    snprintf(l, sizeof l, "%zu", sc->line);
    take(sc); /* [ */
    for (;;) {
        if (skip_trivia(sc)) return -1;
        int b = cur(sc);
        if (b < 0) return fail(sc, "the array opened on line %s is never closed", l);
        if (b == ']') {
            take(sc);
            break;
        }
        if (b == ',') return fail(sc, "expected a value or ']', found ','", NULL);
        if (scan_value(sc)) return -1;
        if (skip_trivia(sc)) return -1;
        b = cur(sc);
        if (b < 0) return fail(sc, "the array opened on line %s is never closed", l);
        if (b == ',') {
            adv(sc);
            if (skip_trivia(sc)) return -1;
            if (cur(sc) != ']') sc->out[sc->o++] = ',';
            continue;
        }
        if (b == ']') {
            take(sc);
            break;
        }
        return fail(sc, "expected ',' or ']' in the array, found %s", describe(sc, d, sizeof d));
    }
    sc->depth--;
    return 0;
}

static int scan_value(scanner *sc) {
    int b = cur(sc);
    char d[24];
    if (b < 0) return fail(sc, "expected a value, found end of file", NULL);
    if (b == '{') return scan_object(sc);
    if (b == '[') return scan_array(sc);
    if (b == '"' || b == '\'') return scan_string(sc);
    if (b == '-' || b == '+' || b == '.' || (b >= '0' && b <= '9')) return scan_number(sc);
    static const char *const words[] = {"true", "false", "null", "NaN", "Infinity"};
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        if (ident_is(sc, words[k])) {
            take_n(sc, strlen(words[k]));
            return 0;
        }
    }
    size_t len = ident_len(sc);
    if (!len) return fail(sc, "expected a value, found %s", describe(sc, d, sizeof d));
    char word[48];
    snprintf(word, sizeof word, "%.*s", (int)(len < 40 ? len : 40), (const char *)sc->s + sc->i);
    return fail(sc, "expected a value, found '%s' (strings need quotes)", word);
}

int hd_ahap_minify(const char *text, size_t length, char **out, size_t *out_length, char *err, size_t err_size) {
    *out = NULL;
    scanner sc = {(const unsigned char *)text, length, 0, 1, 0, NULL, 0, 0, err, err_size};
    if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) sc.i = sc.line_start = 3;
    sc.out = malloc(length + 1);
    if (!sc.out) {
        snprintf(err, err_size, "out of memory");
        return HAPTICD_E_NO_MEMORY;
    }
    if (skip_trivia(&sc)) goto bad;
    if (cur(&sc) < 0) {
        fail(&sc, "the document is empty", NULL);
        goto bad;
    }
    if (cur(&sc) != '{') {
        char d[24];
        fail(&sc, "an AHAP pattern is a JSON object ({\"Pattern\": […]}), found %s", describe(&sc, d, sizeof d));
        goto bad;
    }
    if (scan_value(&sc) || skip_trivia(&sc)) goto bad;
    if (sc.i < sc.n) {
        char d[24];
        fail(&sc, "unexpected %s after the end of the document", describe(&sc, d, sizeof d));
        goto bad;
    }
    sc.out[sc.o] = 0;
    *out = sc.out;
    *out_length = sc.o;
    return HAPTICD_OK;
bad:
    free(sc.out);
    return HAPTICD_E_BAD_JSON;
}
