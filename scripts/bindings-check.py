#!/usr/bin/env python3
"""Checks the clients against the command declarations (issue 23 §3; scripts/bindings-test.sh runs it).

Usage: bindings-check.py PROTOCOL.json EXCEPTIONS CLIENT=RECORDING...

PROTOCOL.json is `hapticd --dump-protocol`. Each RECORDING holds the requests one client's tests sent
to a daemon (HAPTICD_RECORD_REQUESTS: `outcome<TAB>request line`). For every client:

- every member it sent is a declared argument of that command, with a value of the declared type
  (requests the daemon refused as bad_json, bad_request or unknown_command are the tests' deliberate
  bad input, and are left out);
- it sent every declared command, and every declared argument of each command, at least once —
  or EXCEPTIONS lists that command or argument for that client, with the reason it is not covered.

An exception that is no longer needed is an error too, so that the list stays true.
"""
import json
import sys

REFUSED = {"bad_json", "bad_request", "unknown_command", "?"}


def type_of(value, declared):
    """Whether `value` is of the declared argument type."""
    if declared == "integer":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and float(value).is_integer()
    if declared == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if declared == "time":
        return value == "now" or type_of(value, "number")
    return {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }[declared]


def load_exceptions(path):
    """`client command [argument]: reason` lines; `#` starts a comment."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            head, sep, reason = line.partition(":")
            words = head.split()
            if not sep or not reason.strip() or len(words) not in (2, 3):
                sys.exit(f"{path}:{n}: expected `client command [argument]: reason`, got {raw.strip()!r}")
            out[tuple(words)] = reason.strip()
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    protocol = json.load(open(sys.argv[1], encoding="utf-8"))
    declared = {c["name"]: {a["name"]: a["type"] for a in c["arguments"]} for c in protocol["commands"]}
    exceptions = load_exceptions(sys.argv[2])
    used = set()
    problems = []
    for spec in sys.argv[3:]:
        client, _, path = spec.partition("=")
        sent = {}  # command -> set of members
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                outcome, _, text = line.rstrip("\n").partition("\t")
                if outcome in REFUSED:
                    continue
                request = json.loads(text)
                cmd = request["cmd"]
                if cmd not in declared:
                    problems.append(f"{client}: sent {cmd}, which is not declared")
                    continue
                members = sent.setdefault(cmd, set())
                for key, value in request.items():
                    if key in ("id", "cmd") or value is None:
                        continue
                    if key not in declared[cmd]:
                        problems.append(f"{client}: {cmd} sent \"{key}\", which {cmd} does not declare")
                    elif not type_of(value, declared[cmd][key]):
                        problems.append(f"{client}: {cmd} sent \"{key}\" as {json.dumps(value)[:40]}, not {declared[cmd][key]}")
                    members.add(key)
        for cmd, arguments in declared.items():
            if cmd not in sent:
                if (client, cmd) in exceptions:
                    used.add((client, cmd))
                else:
                    problems.append(f"{client}: never sends {cmd} (cover it, or list it in {sys.argv[2]} with the reason)")
                continue
            if (client, cmd) in exceptions:
                problems.append(f"{client}: sends {cmd}, which {sys.argv[2]} says it does not")
            for argument in arguments:
                key = (client, cmd, argument)
                if argument in sent[cmd]:
                    if key in exceptions:
                        problems.append(f"{client}: sends {cmd} \"{argument}\", which {sys.argv[2]} says it does not")
                elif key in exceptions:
                    used.add(key)
                else:
                    problems.append(f"{client}: never sends {cmd} \"{argument}\" (cover it, or list it in {sys.argv[2]} with the reason)")
    clients = {spec.partition("=")[0] for spec in sys.argv[3:]}
    for key in exceptions:
        if key[0] in clients and key not in used and not any(p.startswith(f"{key[0]}: sends {key[1]}") for p in problems):
            problems.append(f"{sys.argv[2]}: {' '.join(key)} is listed but is not a declared command or argument")
    for p in sorted(set(problems)):
        print(p)
    if problems:
        sys.exit(f"bindings-check: {len(set(problems))} problems")
    print(f"bindings-check: {', '.join(sorted(clients))} agree with the {len(declared)} declared commands")


if __name__ == "__main__":
    main()
