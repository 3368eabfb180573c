"""Hearth's benchmarks, run as scripts/bench.py. cli.py holds the one list of commands; one
module per command (jobs, data_import, feed_cost, feed_sql, outbox, floors, ab, push, idle,
functions, gigs, commit_model, trigger); common.py, data.py, store.py and postgres.py what they
share; libpq.py and inotify.py the ctypes bindings; c/ the C programs, built at run time."""
