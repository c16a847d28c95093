/* The AHAP text scanner (src/ahap_text.c) under random and mutated input.
 *
 * Properties, for every input: it returns (no crash, no read past the input: run it under ASan,
 * `make SANITIZE=1 test`); the output is never longer than the input and holds no newline; the
 * output scans again to itself. For strict JSON objects (as jansson reads them) it must accept, and
 * its output must mean the same (json_equal). Deterministic: a fixed seed, so a failure repeats. */
#include "internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static unsigned long long state = 0x9E3779B97F4A7C15ull;
static unsigned rnd(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (unsigned)(state >> 11);
}

static int failures;
static long accepted, strict_compared;

static void fail(const char *what, const char *input, size_t n) {
    failures++;
    if (failures <= 5) fprintf(stderr, "FAILED: %s for input (%zu bytes): %.*s\n", what, n, (int)(n < 300 ? n : 300), input);
}

static void check_one(const char *input, size_t n) {
    char *out = NULL, err[256];
    size_t olen = 0;
    int r = hd_ahap_minify(input, n, &out, &olen, err, sizeof err);
    if (r == HAPTICD_OK) {
        accepted++;
        if (olen > n) fail("output longer than input", input, n);
        if (memchr(out, '\n', olen)) fail("newline in output", input, n);
        if (strlen(out) != olen) fail("NUL inside output", input, n);
        char *again = NULL;
        size_t alen = 0;
        if (hd_ahap_minify(out, olen, &again, &alen, err, sizeof err) != HAPTICD_OK || alen != olen || memcmp(again, out, olen))
            fail("output does not scan to itself", input, n);
        free(again);
    } else if (r != HAPTICD_E_BAD_JSON) {
        fail("unexpected status", input, n);
    } else if (strncmp(err, "line ", 5) != 0) {
        fail("error without a line", input, n);
    }
    /* Strict JSON objects: accepted, same meaning. */
    json_error_t jerr;
    json_t *strict = json_loadb(input, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (json_is_object(strict) && !memchr(input, 0, n)) {
        if (r != HAPTICD_OK) {
            fail("refused strict JSON", input, n);
        } else {
            strict_compared++;
            json_t *back = json_loadb(out, olen, JSON_DECODE_ANY, &jerr);
            if (!back || !json_equal(strict, back)) fail("changed the meaning", input, n);
            json_decref(back);
        }
    }
    json_decref(strict);
    free(out);
}

static const char *const seeds[] = {
    "{\"Version\":1,\"Pattern\":[{\"Event\":{\"Time\":0,\"EventType\":\"HapticTransient\",\"EventParameters\":"
    "[{\"ParameterID\":\"HapticIntensity\",\"ParameterValue\":0.8}]}}]}",
    "// comment\n{ Version: 1.0, /* block */ 'Pattern': [ {\"Event\": {\"Time\": +.5, \"EventDuration\": 1e-3,},}, ], }\n",
    "{\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\\\"\", {}, []], \"b\": {\"c\": NaN, \"d\": -Infinity}}",
    "\xEF\xBB\xBF{\"k\":\"\xC3\xA9t\xC3\xA9\"}",
    "{\n  \"Pattern\": [\n    {\"ParameterCurve\": {\"ParameterID\": \"HapticIntensityControl\", \"Time\": 0,\n"
    "      \"ParameterCurveControlPoints\": [{\"Time\": 0, \"ParameterValue\": 1}, {\"Time\": 1, \"ParameterValue\": 0}]}}\n  ]\n}",
};

static const char alphabet[] = "{}[]\",:'/*\\\n\t 0123456789.-+eEtruefalsnNIyabc$_u";

int main(void) {
    long cases = 0;
    char buf[2048];
    /* Mutations of the seeds: change, insert, delete and duplicate bytes. */
    for (int round = 0; round < 60000; round++) {
        const char *seed = seeds[rnd() % (sizeof seeds / sizeof *seeds)];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + rnd() % 4;
        for (int k = 0; k < edits; k++) {
            size_t at = n ? rnd() % n : 0;
            switch (rnd() % 4) {
            case 0:
                if (n) buf[at] = (rnd() % 8) ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)(rnd() % 256);
                break;
            case 1:
                if (n + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = alphabet[rnd() % (sizeof alphabet - 1)];
                    n++;
                }
                break;
            case 2:
                if (n) {
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                }
                break;
            default: {
                size_t len = 1 + rnd() % 16;
                if (at + len <= n && n + len < sizeof buf) {
                    memmove(buf + at + len, buf + at, n - at);
                    n += len;
                }
            }
            }
        }
        check_one(buf, n);
        cases++;
    }
    /* Random text from the alphabet, and random bytes. */
    for (int round = 0; round < 40000; round++) {
        size_t n = rnd() % 64;
        for (size_t i = 0; i < n; i++) buf[i] = (round & 1) ? alphabet[rnd() % (sizeof alphabet - 1)] : (char)(rnd() % 256);
        if (n) buf[0] = '{';
        check_one(buf, n);
        cases++;
    }
    /* Nesting: 128 levels pass, 129 are refused, 100000 do not overflow the stack. */
    static char deep[200010];
    for (int depth = 127; depth <= 129; depth++) {
        size_t n = 0;
        deep[n++] = '{';
        deep[n++] = '"';
        deep[n++] = 'a';
        deep[n++] = '"';
        deep[n++] = ':';
        for (int i = 1; i < depth; i++) deep[n++] = '[';
        for (int i = 1; i < depth; i++) deep[n++] = ']';
        deep[n++] = '}';
        char *out = NULL, err[256];
        size_t olen;
        int r = hd_ahap_minify(deep, n, &out, &olen, err, sizeof err);
        if ((depth <= 128) != (r == HAPTICD_OK)) {
            failures++;
            fprintf(stderr, "FAILED: depth %d gave %d (%s)\n", depth, r, r ? err : "ok");
        }
        free(out);
        cases++;
    }
    memset(deep, '[', sizeof deep);
    memcpy(deep, "{\"a\":", 5);
    char *out = NULL, err[256];
    size_t olen;
    if (hd_ahap_minify(deep, sizeof deep, &out, &olen, err, sizeof err) != HAPTICD_E_BAD_JSON || !strstr(err, "deeper than 128")) {
        failures++;
        fprintf(stderr, "FAILED: deep nesting: %s\n", err);
    }
    free(out);
    printf("ahap text scanner: %ld inputs (%ld accepted, %ld strict JSON compared with jansson), %d failed\n", cases + 1, accepted, strict_compared, failures);
    return failures ? 1 : 0;
}
