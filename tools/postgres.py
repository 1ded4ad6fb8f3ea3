"""The throwaway PostgreSQL server that the PostgreSQL store's tests in test_all.py and
``tools/bench.py --stores`` both start: shared test infrastructure, so a module of its own.

Stdlib only, and Python 3.6 like test_all.py, which imports it in every matrix environment.
"""

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from typing import Optional


class Postgres:
    """A PostgreSQL server of its own, from the installed binaries: a new cluster in a
    temporary folder, on a free port of 127.0.0.1, run as the unprivileged ``postgres``
    user when this runs as root (PostgreSQL refuses root)."""

    def __init__(self, bindir: str) -> None:
        self.bindir, self.root = bindir, tempfile.mkdtemp(prefix="notes-pg-")
        self.data, self.databases = os.path.join(self.root, "data"), 0
        self.run_as = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
        os.chmod(self.root, 0o755)
        if self.run_as:
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", self.data, "-U", "notes", "--auth=trust", "-E", "UTF8")
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]

    @staticmethod
    def find() -> Optional[str]:
        """The newest installed server's binaries (Debian's layout), or None."""
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        return os.path.dirname(found[-1]) if found else None

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(self.run_as + [os.path.join(self.bindir, program)] + list(args),
                       check=True, stdout=subprocess.DEVNULL, timeout=60)

    def start(self) -> None:
        self._run("pg_ctl", "-D", self.data, "-l", os.path.join(self.root, "log"), "-w", "-o",
                  "-p {} -k {} -h 127.0.0.1".format(self.port, self.root), "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def new_database(self) -> str:
        """The URL of a new, empty database on this server."""
        import psycopg
        self.databases += 1
        name = "notes_{}".format(self.databases)
        with psycopg.connect(self.url("postgres"), autocommit=True) as db:
            db.execute("CREATE DATABASE " + name)
        return self.url(name)

    def url(self, name: str) -> str:
        return "postgresql://notes@127.0.0.1:{}/{}".format(self.port, name)
