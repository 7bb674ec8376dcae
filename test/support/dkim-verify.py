#!/usr/bin/python3
"""Verifies every DKIM-Signature of the message on stdin with dkimpy (Debian's python3-dkim;
ed25519-sha256 needs python3-nacl), a verifier independent of mailauth. TXT records come from
the JSON file named by the first argument ({"name": "record", ...}), never from the network.
Prints a JSON list, one item per signature in header order: {"a", "s", "d", "pass"}."""
import json
import sys

import dkim

with open(sys.argv[1]) as f:
    records = {name.lower().rstrip("."): value for name, value in json.load(f).items()}


def dnsfunc(name, timeout=5):
    value = records.get(name.decode("ascii").lower().rstrip("."))
    return value.encode("ascii") if value is not None else None


message = sys.stdin.buffer.read()
d = dkim.DKIM(message)
count = sum(1 for name, _ in d.headers if name.lower() == b"dkim-signature")
out = []
for idx in range(count):
    ok = d.verify(idx=idx, dnsfunc=dnsfunc)
    out.append({"a": d.signature_fields.get(b"a", b"").decode(), "s": d.signature_fields.get(b"s", b"").decode(), "d": d.signature_fields.get(b"d", b"").decode(), "pass": bool(ok)})
json.dump(out, sys.stdout)
