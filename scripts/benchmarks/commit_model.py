"""`commit-model`: a big commit's file work alone, modelled in C (c/commit-model.c: no Hearth
code, no JSON). It rewrites the files under ROOT: run it on a copy."""
import subprocess

from .common import c_program


def options(p):
    p.add_argument("root")
    p.add_argument("list")
    p.add_argument("mode", type=int)
    p.add_argument("split", type=int)


def run(a):
    subprocess.run([c_program("commit-model", "-lpthread"), a.root, a.list, str(a.mode), str(a.split)], check=True)
