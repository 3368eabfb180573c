#!/usr/bin/env node
// A daily digest of unread notifications, one push per user (a Hearth command job,
// docs/functions.md). Node's standard library only.
//
// For every user with unread notifications created in the 24 hours before the run's logical
// time, queue one push ("3 new notifications") and record it as digests/{date}-{userId}, so a
// second run the same day changes nothing.
'use strict';
const readline = require('readline');

const rl = readline.createInterface({ input: process.stdin });
let context = null;
const unread = new Map();     // userId -> [titles]
const sent = new Set();       // digest ids already written
const users = new Set();

function emit(line) { process.stdout.write(JSON.stringify(line) + '\n'); }

rl.on('line', (text) => {
  const line = JSON.parse(text);
  if (context === null) { context = line; return; }
  if (line.end) return;
  const [collection, id] = [line.path.slice(0, line.path.lastIndexOf('/')), line.path.slice(line.path.lastIndexOf('/') + 1)];
  const data = line.data;
  if (collection === 'users') users.add(id);
  else if (collection === 'digests') sent.add(id);
  else if (collection === 'notifications') {
    const logical = Date.parse(context.logicalTime);
    const created = Date.parse(data.createdAt);
    if (data.read === false && typeof data.userId === 'string' && created <= logical && created > logical - 86400000) {
      if (!unread.has(data.userId)) unread.set(data.userId, []);
      unread.get(data.userId).push(String(data.title || data.type));
    }
  }
});

rl.on('close', () => {
  const day = context.logicalTime.slice(0, 10);
  let queued = 0;
  for (const userId of [...unread.keys()].sort()) {
    const id = `${day}-${userId}`;
    if (sent.has(id) || !users.has(userId)) continue;
    const titles = unread.get(userId);
    const title = titles.length === 1 ? '1 new notification' : `${titles.length} new notifications`;
    const body = titles.slice(0, 3).join(' · ');
    emit({ op: 'create', path: `digests/${id}`, data: { userId, day, count: titles.length, createdAt: context.startTime } });
    emit({ op: 'push', id: `digest-${id}`, userId, title, body, data: { type: 'digest', actionUrl: '/notifications' } });
    queued += 1;
  }
  emit({ op: 'log', level: 'info', message: `${queued} digests` });
});
