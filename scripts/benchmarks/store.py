"""Where a backend's runs go: a copy of the seed (`--data DIR`), or a PostgreSQL database
imported from it (`--config` naming it)."""
import os
import subprocess

from . import postgres
from .common import log, timed
from .data import fresh_copy


class Store:
    """Where a backend's runs go: `--data DIR`, or a config naming a PostgreSQL database."""

    def __init__(self, a, backend, users, seed, pg=None, label=""):
        self.a, self.backend, self.seed, self.users = a, backend, seed, users
        self.name = f"hearth_bench_{users}{label}"
        self.dir = os.path.join(a.work, f"run-{users}{label}")
        self.pg = pg
        self.import_seconds = self.import_cpu = self.import_rss = None
        if backend == "dir":
            self.args = ["--data", self.dir]
        else:
            self.config = postgres.write_config(os.path.join(a.work, f"pg-{users}{label}.toml"))
            self.args = ["--config", self.config]
            self.env = postgres.store_env(pg.url(self.name))
            self.loaded = self.name + "_loaded"

    def env_for(self):
        return self.env if self.backend == "postgres" else None

    def load(self):
        """Fresh data: a copy of the seed, or a database imported from it (timed, once; later
        loads copy that database)."""
        if self.backend == "dir":
            if getattr(self.a, "modes", None) == ["dry"]:  # plans write nothing: they read the seed itself
                self.args = ["--data", self.seed]
                return
            fresh_copy(self.seed, self.dir)
            return
        if self.import_seconds is None:
            self.import_seed()
        self.pg.database(self.name, template=self.loaded)

    def import_seed(self):
        env = postgres.store_env(self.pg.database(self.loaded))
        postgres.migrate(self.a.bin, self.config, env, cwd=self.a.work)
        os.sync()
        wall, cpu, rss, _ = timed([self.a.bin, "data", "import", self.seed, "--config", self.config], env=env, ok=(0,), cwd=self.a.work)
        self.import_seconds, self.import_cpu, self.import_rss = wall, cpu, rss
        log(f"imported {self.users:,} users into PostgreSQL in {wall:.1f} s (peak RSS {rss:.0f} MiB)")
        postgres.psql(self.pg.url(self.loaded), "VACUUM ANALYZE documents")

    # From WORK, never the repository: a ./Config/hearth.toml there would configure the
    # directory's runs (zones, command jobs) and not PostgreSQL's.
    def hearth(self, *args, check=True):
        return subprocess.run([self.a.bin] + list(args) + self.args, capture_output=True, text=True, check=check, env=self.env_for(), cwd=self.a.work)

    def timed(self, *args, ok=(0, 2)):
        os.sync()
        return timed([self.a.bin] + list(args) + self.args, env=self.env_for(), ok=ok, cwd=self.a.work)
