"""The benchmarks' PostgreSQL: a throwaway server (or $HEARTH_BENCH_PG's), databases created and
dropped with psql, and the configuration that points `hearth` at one."""
import contextlib
import os
import random
import shutil
import subprocess
import sys
import tempfile

from .common import log

# The documented configuration: no dataDir, the URL in an environment variable.
CONFIG = '[store]\nkind = "postgres"\nurlEnv = "HEARTH_BENCH_STORE"\n'


def write_config(path):
    with open(path, "w") as f:
        f.write(CONFIG)
    return path


def store_env(url):
    return dict(os.environ, HEARTH_BENCH_STORE=url)


def migrate(hearth, config, env, cwd=None):
    subprocess.run([hearth, "migrate", "--config", config], check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd)


def psql(url, statement):
    subprocess.run(["psql", url, "-qXc", statement], check=True)


@contextlib.contextmanager
def server(needed=True):
    """A Postgres for the duration of a `with` (None when not `needed`), stopped afterwards."""
    pg = Postgres() if needed else None
    try:
        yield pg
    finally:
        if pg:
            pg.stop()


class Postgres:
    """A throwaway server (or $HEARTH_BENCH_PG's), databases created and dropped with psql."""

    def __init__(self):
        self.dir = None
        self.admin = os.environ.get("HEARTH_BENCH_PG")
        if self.admin:
            self.base = self.admin.rpartition("/")[0]
            return
        versions = sorted(int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()) if os.path.isdir("/usr/lib/postgresql") else []
        bindir = os.environ.get("PG_BIN") or (f"/usr/lib/postgresql/{versions[-1]}/bin" if versions else "")
        if not os.access(os.path.join(bindir, "initdb"), os.X_OK):
            sys.exit("PostgreSQL's initdb not found (scripts/install-deps installs it), or set $HEARTH_BENCH_PG")
        self.dir = tempfile.mkdtemp(prefix="hearth-bench-pg-")
        self.launcher = []
        if os.getuid() == 0:  # PostgreSQL refuses to run as root
            subprocess.run("id hearthtest >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin hearthtest", shell=True, check=True)
            shutil.chown(self.dir, "hearthtest")
            os.chmod(self.dir, 0o755)
            self.launcher = ["/usr/sbin/runuser", "-u", "hearthtest", "--"]
        self.pg_ctl = os.path.join(bindir, "pg_ctl")
        subprocess.run(self.launcher + [os.path.join(bindir, "initdb"), "-D", self.dir + "/db", "-U", "hearth", "--auth=trust", "-E", "UTF8", "--locale=C"],
                       check=True, stdout=subprocess.DEVNULL)
        self.port = random.randint(20000, 60000)
        options = f"-p {self.port} -k {self.dir} -c listen_addresses='' -c shared_buffers=256MB -c max_connections=100"
        subprocess.run(self.launcher + [self.pg_ctl, "-D", self.dir + "/db", "-o", options, "-l", self.dir + "/server.log", "-w", "-t", "120", "start"],
                       check=True, stdout=subprocess.DEVNULL)
        self.admin = f"postgresql://hearth@/postgres?host={self.dir}&port={self.port}"
        self.base = None
        log(f"PostgreSQL started in {self.dir} (port {self.port}, shared_buffers 256MB)")

    def url(self, name):
        if self.base:
            return self.base + "/" + name
        return f"postgresql://hearth@/{name}?host={self.dir}&port={self.port}"

    def sql(self, *statements):
        cmd = ["psql", self.admin, "-qX", "-v", "ON_ERROR_STOP=1"]
        for s in statements:
            cmd += ["-c", s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, PGOPTIONS="-c client_min_messages=warning"))

    def database(self, name, template=None):
        self.sql(f"DROP DATABASE IF EXISTS {name}", f"CREATE DATABASE {name}" + (f" TEMPLATE {template} STRATEGY FILE_COPY" if template else ""), "CHECKPOINT")
        return self.url(name)

    def stop(self):
        if self.dir:
            subprocess.run(self.launcher + [self.pg_ctl, "-D", self.dir + "/db", "-m", "fast", "stop"], stdout=subprocess.DEVNULL)
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
