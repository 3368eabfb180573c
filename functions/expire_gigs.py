#!/usr/bin/env python3
"""Expire gigs past their deadline and tell the poster (a Hearth command job, docs/functions.md).

A gig is expired when its status is "active" and its `expiresAt` has passed at the run's
logical time, or, without `expiresAt`, when it was posted more than `maxAgeDays` days before.
It becomes `status: "expired"` with `expiredAt`; when the poster is a user, they get a
`gig_expired` notification, a push to their devices and the `gig.expired` webhook event.
Standard library only.
"""
import json
import sys
from datetime import datetime, timedelta


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def emit(**line):
    sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")


context = json.loads(sys.stdin.readline())
now = parse_time(context["logicalTime"])
max_age = timedelta(days=int(context["params"].get("maxAgeDays", 30)))
gigs, users = [], set()
for line in sys.stdin:
    doc = json.loads(line)
    if doc.get("end"):
        break
    collection, doc_id = doc["path"].rsplit("/", 1)
    if collection == "users":
        users.add(doc_id)
    elif collection == "gigs":
        gigs.append((doc_id, doc["data"]))

expired = 0
for gig_id, gig in gigs:
    if gig.get("status") != "active":
        continue
    try:
        deadline = parse_time(gig["expiresAt"]) if "expiresAt" in gig else parse_time(gig["postedAt"]) + max_age
    except (KeyError, ValueError, TypeError):
        emit(op="warn", message=f"gigs/{gig_id}: no valid expiresAt or postedAt; skipped")
        continue
    if deadline > now:
        continue
    expired += 1
    emit(op="update", path=f"gigs/{gig_id}", merge={"status": "expired", "expiredAt": context["startTime"]})
    poster = gig.get("postedBy")
    emit(op="webhook", id=f"gig-expired-{gig_id}", event="gig.expired",
         data={"gigId": gig_id, "postedBy": poster, "deadline": deadline.isoformat().replace("+00:00", "Z")})
    if poster in users:
        title = "Your gig has expired"
        message = f"\"{gig.get('title', gig_id)}\" is no longer listed. Repost it to keep hiring."
        emit(op="create", path=f"notifications/gig-expired-{gig_id}", data={
            "userId": poster, "type": "gig_expired", "title": title, "message": message,
            "read": False, "createdAt": context["startTime"], "actionUrl": f"/gigs/{gig_id}"})
        emit(op="push", id=f"gig-expired-{gig_id}", userId=poster, title=title, body=message,
             data={"notificationId": f"gig-expired-{gig_id}", "type": "gig_expired", "actionUrl": f"/gigs/{gig_id}"})

emit(op="log", level="info", message=f"{expired} of {len(gigs)} gigs expired")
