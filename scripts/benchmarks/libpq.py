"""An app's connection to PostgreSQL through libpq, by ctypes (no pip package): statements and
LISTEN. Used by `trigger` and its burst writers."""
import ctypes
import ctypes.util
import select
import sys
import time


def quote(text):
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def load_libpq():
    pq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
    p, s, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
    signatures = {  # name: (result type, argument types)
        "PQconnectdb": (p, [s]), "PQexec": (p, [p, s]), "PQgetvalue": (s, [p, i, i]), "PQntuples": (i, [p]),
        "PQresultStatus": (i, [p]), "PQresultErrorMessage": (s, [p]), "PQclear": (None, [p]), "PQnotifies": (p, [p]),
        "PQconsumeInput": (i, [p]), "PQsocket": (i, [p]), "PQfreemem": (None, [p]), "PQstatus": (i, [p]), "PQfinish": (None, [p]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(pq, name)
        function.restype, function.argtypes = result, arguments
    return pq


class LibPQ:
    """An app's connection to PostgreSQL through libpq (ctypes): statements and LISTEN."""

    def __init__(self, url):
        pq = load_libpq()
        self.pq, self.conn = pq, pq.PQconnectdb(url.encode())
        if pq.PQstatus(self.conn) != 0:
            sys.exit(f"cannot connect to {url}")

    def close(self):
        self.pq.PQfinish(self.conn)
        self.conn = None

    def query(self, sql):
        r = self.pq.PQexec(self.conn, sql.encode())
        if self.pq.PQresultStatus(r) not in (1, 2):  # PGRES_COMMAND_OK, PGRES_TUPLES_OK
            message = self.pq.PQresultErrorMessage(r).decode()
            self.pq.PQclear(r)
            raise RuntimeError(f"{sql[:80]}: {message}")
        rows = [self.pq.PQgetvalue(r, i, 0).decode() for i in range(self.pq.PQntuples(r))]
        self.pq.PQclear(r)
        return rows

    def wait_notify(self, timeout):
        """True when a notification arrived within `timeout` s (all pending ones are consumed)."""
        got = False
        deadline = time.monotonic() + timeout
        while True:
            self.pq.PQconsumeInput(self.conn)
            while True:
                n = self.pq.PQnotifies(self.conn)
                if not n:
                    break
                self.pq.PQfreemem(n)
                got = True
            left = deadline - time.monotonic()
            if got or left <= 0:
                return got
            select.select([self.pq.PQsocket(self.conn)], [], [], left)
