#!/usr/bin/env python3
"""`echo`, the function of callable_reference.py beside this file, as a Hearth callable command
job (docs/callables.md#writing-a-callable-job). It answers as the call's data says:

    {"result": V}                                      {"op": "result", "value": V}
    {"error": {"code": C, "message": M, "details": D}} {"op": "error", "code": C, "message": M, "details": D}
    anything else                                      {"op": "result", "value": data}

Config (reads nothing, writes nothing):

    [jobs.echo]
    command = ["python3", "echo_function.py"]
    callable = true
    auth = "optional"
"""
import json
import sys

ctx = json.loads(sys.stdin.readline())
data = (ctx.get("call") or {}).get("data")

if isinstance(data, dict) and "error" in data:
    e = data["error"]
    op = {"op": "error", "code": e["code"], "message": e["message"]}
    if "details" in e:
        op["details"] = e["details"]
elif isinstance(data, dict) and "result" in data:
    op = {"op": "result", "value": data["result"]}
else:
    op = {"op": "result", "value": data}
print(json.dumps(op))
