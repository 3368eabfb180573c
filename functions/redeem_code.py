#!/usr/bin/env python3
"""A callable command job (docs/functions.md#callable-command-jobs): an app calls
`redeem-code` with {"code": "WELCOME50"}; the signed-in user redeems the code once.

The run's context (first line of stdin) carries the call: {"data", "uid", "claims"}. The
function answers with {"op": "result", "value": ...} or refuses with
{"op": "error", "code": "FAILED_PRECONDITION", "message": ..., "details": ...}; a refusal
writes nothing. Config:

    [jobs.redeem-code]
    command = ["python3", "functions/redeem_code.py"]
    callable = true
    reads = ["codes"]
    writes = ["codes", "redemptions"]
"""
import json
import sys

ctx = json.loads(sys.stdin.readline())
call = ctx.get("call") or {}
data = call.get("data")
uid = call.get("uid")


def answer(op):
    print(json.dumps(op))
    sys.exit(0)


if not isinstance(data, dict) or not isinstance(data.get("code"), str):
    answer({"op": "error", "code": "INVALID_ARGUMENT", "message": "send {\"code\": \"...\"}",
            "details": {"reason": "invalid_request"}})

codes = {}
for line in sys.stdin:
    doc = json.loads(line)
    if doc.get("end"):
        break
    codes[doc["path"]] = doc["data"]

path = "codes/" + data["code"]
code = codes.get(path)
if code is None:
    answer({"op": "error", "code": "NOT_FOUND", "message": "no such code", "details": {"reason": "unknown_code"}})
if uid in code.get("redeemedBy", []):
    answer({"op": "error", "code": "ALREADY_EXISTS", "message": "you have redeemed this code",
            "details": {"reason": "already_redeemed"}})
points = int(code.get("points", 0))
# The commit checks the version of codes/CODE the function was streamed: two calls that
# redeem at once cannot both add themselves; the second runs again and is refused.
print(json.dumps({"op": "update", "path": path, "merge": {"redeemedBy": code.get("redeemedBy", []) + [uid]}}))
print(json.dumps({"op": "create", "path": "redemptions/" + data["code"] + "-" + uid,
                  "data": {"code": data["code"], "userId": uid, "points": points, "redeemedAt": ctx["startTime"]}}))
answer({"op": "result", "value": {"code": data["code"], "points": points}})
