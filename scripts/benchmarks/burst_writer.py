"""One burst writer of `trigger` (a process of its own): its gifts, written as fast as it can
within one second. `burst_writer.py dir|postgres DATA-DIR|URL BATCH.json`."""
import json
import os
import sys
import time


def write_rows(url, batch, gap, start):
    """What is due every 10 ms goes in as one multi-row INSERT (its own transaction, waiting for
    its WAL flush like any commit): one INSERT per gift holds a session to about 1,000 a second
    here, a quarter of its share of 10,000 in one second."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.libpq import LibPQ, quote  # only here: a file writer starts without ctypes
    conn = LibPQ(url)
    k = 0
    while k < len(batch):
        due = max(k + 1, min(len(batch), int((time.monotonic() - start) / gap) + 1))
        rows = ", ".join(f"('transactions', {quote(doc_id)}, {quote(json.dumps(obj))}, nextval('document_versions'))" for doc_id, obj in batch[k:due])
        conn.query(f"INSERT INTO documents (collection, id, raw, version) VALUES {rows}")
        k = due
        wait = start + k * gap - time.monotonic()
        time.sleep(max(wait, 0.01))


def write_files(root, batch, gap, start):
    for k, (doc_id, obj) in enumerate(batch):
        tmp = os.path.join(root, "transactions", "." + doc_id)
        with open(tmp, "w") as f:
            json.dump(obj, f)
        os.rename(tmp, os.path.join(root, "transactions", doc_id + ".json"))
        wait = start + (k + 1) * gap - time.monotonic()
        if wait > 0:
            time.sleep(wait)


def main():
    backend, target, path = sys.argv[1:4]
    batch = json.load(open(path))
    gap = 1.0 / max(1, len(batch))
    start = time.monotonic()
    (write_rows if backend == "postgres" else write_files)(target, batch, gap, start)


if __name__ == "__main__":
    main()
