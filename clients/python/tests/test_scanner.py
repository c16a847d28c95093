"""The AHAP text scanner: the Python one against the C one (libhapticd, through ctypes) on the same
mutated inputs — the same verdict, the same output, the same message — and the meaning of strict
JSON kept."""

from __future__ import annotations

import ctypes
import json
import os
import random
from pathlib import Path

import pytest

from hapticd import BadJSONError, minify_ahap

LIB = Path(os.environ.get("HAPTICD_REPO", Path(__file__).resolve().parents[3])) / "clients/c/build/libhapticd.so.1"

SEEDS = [
    '{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":'
    '[{"ParameterID":"HapticIntensity","ParameterValue":0.8}]}}]}',
    "// comment\n{ Version: 1.0, /* block */ 'Pattern': [ {\"Event\": {\"Time\": +.5, \"EventDuration\": 1e-3,},}, ], }\n",
    '{"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n\\"", {}, []], "b": {"c": NaN, "d": -Infinity}}',
]
ALPHABET = "{}[]\",:'/*\\\n\t 0123456789.-+eEtruefalsnNIyabc$_u"


def mutate(rng: random.Random, s: str) -> str:
    b = list(s)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(b)) if b else 0
        op = rng.randrange(4)
        if op == 0 and b:
            b[at] = rng.choice(ALPHABET)
        elif op == 1:
            b.insert(at, rng.choice(ALPHABET))
        elif op == 2 and b:
            del b[at]
        else:
            b[at:at] = b[at : at + rng.randint(1, 16)]
    return "".join(b)


@pytest.fixture(scope="module")
def c_scanner():
    if not LIB.exists():
        pytest.fail(f"{LIB} is missing: build libhapticd first (make -C clients/c)")
    lib = ctypes.CDLL(str(LIB))
    lib.hapticd_pattern_from_ahap.argtypes = [ctypes.c_char_p, ctypes.c_ssize_t, ctypes.POINTER(ctypes.c_void_p)]
    lib.hapticd_pattern_json.argtypes = [ctypes.c_void_p]
    lib.hapticd_pattern_json.restype = ctypes.c_char_p
    lib.hapticd_pattern_free.argtypes = [ctypes.c_void_p]
    lib.hapticd_last_error.restype = ctypes.c_char_p

    def scan(text: str):
        data = text.encode()
        p = ctypes.c_void_p()
        r = lib.hapticd_pattern_from_ahap(data, len(data), ctypes.byref(p))
        if r:
            return ("error", lib.hapticd_last_error().decode().split("JSON: ", 1)[1])
        out = lib.hapticd_pattern_json(p).decode()
        lib.hapticd_pattern_free(p)
        return ("ok", out)

    return scan


def py_scan(text: str):
    try:
        return ("ok", minify_ahap(text))
    except BadJSONError as e:
        return ("error", e.message)


def test_python_and_c_agree(c_scanner):
    rng = random.Random(15)
    agreed = accepted = 0
    for _ in range(20000):
        text = mutate(rng, rng.choice(SEEDS))
        c, py = c_scanner(text), py_scan(text)
        assert c == py, text
        agreed += 1
        accepted += c[0] == "ok"
    assert accepted > 1000


def test_strict_json_keeps_its_meaning():
    rng = random.Random(7)

    def value(depth: int):
        k = rng.randrange(7 if depth < 4 else 4)
        return [lambda: rng.uniform(-1e6, 1e6), lambda: rng.randint(-5, 5), lambda: rng.choice([True, False, None]),
                lambda: "".join(rng.choice("aé\"\\\n\t/x€") for _ in range(rng.randint(0, 8))),
                lambda: [value(depth + 1) for _ in range(rng.randint(0, 4))],
                lambda: {f"k{i}": value(depth + 1) for i in range(rng.randint(0, 4))},
                lambda: {"Pattern": [value(depth + 1)]}][k]()

    for _ in range(2000):
        doc = {f"m{i}": value(0) for i in range(rng.randint(0, 5))}
        text = json.dumps(doc, indent=rng.choice([None, 2]), ensure_ascii=rng.choice([True, False]))
        assert json.loads(minify_ahap(text)) == doc


def test_nesting_is_bounded():
    ok = '{"a":' + "[" * 127 + "]" * 127 + "}"
    assert minify_ahap(ok) == ok
    with pytest.raises(BadJSONError, match="deeper than 128"):
        minify_ahap('{"a":' + "[" * 128 + "]" * 128 + "}")
    with pytest.raises(BadJSONError, match="deeper than 128"):
        minify_ahap('{"a":' + "[" * 100000)
