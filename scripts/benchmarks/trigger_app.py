"""The app side of `trigger`: what writes documents and waits for a triggered run's result, on
a data directory (a file renamed in, inotify to wait) or on PostgreSQL (an INSERT, LISTEN)."""
import json
import os
import time

from .inotify import Inotify
from .libpq import LibPQ, quote


def open_app(store):
    return PostgresApp(store.pg.url(store.name)) if store.backend == "postgres" else DirectoryApp(store.dir)


class App:
    def wait_for(self, collection, doc_id, done, timeout=30):
        """The time at which `done(document)` first held; it must within `timeout` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.wait(collection, 0.5)
            d = self.read(collection, doc_id)
            if d is not None and done(d):
                return time.monotonic()
        raise RuntimeError(f"{collection}/{doc_id} not done within {timeout} s")


class DirectoryApp(App):
    def __init__(self, root):
        self.root = root
        self.target = root  # what the burst writers write into
        self.watches = {}

    def watch(self, collection):
        self.watches[collection] = Inotify(os.path.join(self.root, collection))

    def write(self, collection, doc_id, obj):
        folder = os.path.join(self.root, collection)
        tmp = os.path.join(folder, f".bench-{doc_id}")
        with open(tmp, "w") as f:
            json.dump(obj, f)
        os.rename(tmp, os.path.join(folder, doc_id + ".json"))

    def read(self, collection, doc_id):
        try:
            return json.load(open(os.path.join(self.root, collection, doc_id + ".json")))
        except (OSError, ValueError):
            return None

    def wait(self, collection, timeout):
        self.watches[collection].names(timeout)

    def close(self):
        for w in self.watches.values():
            w.close()
        self.watches = {}


class PostgresApp(App):
    def __init__(self, url):
        self.target = url
        self.conn = LibPQ(url)
        self.conn.query("LISTEN hearth_documents")

    def watch(self, collection):
        pass  # LISTEN hears every collection

    def write(self, collection, doc_id, obj):
        self.conn.query(f"INSERT INTO documents (collection, id, raw, version) VALUES ('{collection}', {quote(doc_id)}, {quote(json.dumps(obj))}, nextval('document_versions'))")

    def read(self, collection, doc_id):
        rows = self.conn.query(f"SELECT raw FROM documents WHERE collection = '{collection}' AND id = {quote(doc_id)}")
        return json.loads(rows[0]) if rows else None

    def wait(self, collection, timeout):
        self.conn.wait_notify(timeout)

    def close(self):
        if self.conn.conn:
            self.conn.close()
