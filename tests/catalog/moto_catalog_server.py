"""moto (S3, Glue, S3 Tables) for the Glue and S3 Tables catalog tests.

    moto_catalog_server.py [--port N] [--no-version-check] [--race-file PATH]

Starts moto.server.ThreadedMotoServer on 127.0.0.1 (port 0, the default:
one the kernel picks) and prints "listening on http://127.0.0.1:PORT" once
it answers. Stops cleanly on SIGTERM or SIGINT.

moto 5.2.1 ignores the VersionId of Glue's UpdateTable (AWS refuses a stale
one with ConcurrentModificationException, which is what makes Glue commits
safe), so this launcher patches GlueResponse.update_table to check it
against the table's current version (moto's private
FakeTable._current_version) and raise that error on a mismatch; the check
and the update run under one lock, as do S3 Tables' version-token check and
update, so concurrent requests cannot slip between them. With
--no-version-check the Glue patch is left out (moto's own behaviour).

--race-file PATH: when PATH exists at an UpdateTable, it is removed and the
table gets one more version (its current input again) before the check, as
if another writer had committed between the client's GetTable and its
UpdateTable; the client's VersionId is then stale.
"""
import argparse
import copy
import os
import signal
import sys
import threading
import time
import urllib.request

import moto
from moto.core.exceptions import JsonRESTError
from moto.glue.responses import GlueResponse
from moto.s3tables.models import S3TablesBackend
from moto.server import ThreadedMotoServer

_LOCK = threading.Lock()


def _patch_glue(race_file):
    original = GlueResponse.update_table

    def update_table(self):
        database_name = self.parameters.get("DatabaseName")
        table_input = self.parameters.get("TableInput") or {}
        version_id = self.parameters.get("VersionId")
        with _LOCK:
            table = self.glue_backend.get_table(database_name, table_input.get("Name"))
            if race_file and os.path.exists(race_file):
                os.remove(race_file)
                table.update(copy.deepcopy(table.versions[str(table._current_version)]))
            if version_id is not None:
                current = str(table._current_version)
                if str(version_id) != current:
                    raise JsonRESTError(
                        "ConcurrentModificationException",
                        f"VersionId {version_id} is not the current version {current}")
            return original(self)

    GlueResponse.update_table = update_table


def _patch_s3tables():
    original = S3TablesBackend.update_table_metadata_location

    def update_table_metadata_location(self, *args, **kwargs):
        with _LOCK:
            return original(self, *args, **kwargs)

    S3TablesBackend.update_table_metadata_location = update_table_metadata_location


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--no-version-check", action="store_true")
    ap.add_argument("--race-file")
    args = ap.parse_args()
    if moto.__version__ != "5.2.1":
        print(f"moto_catalog_server: moto {moto.__version__}, written for 5.2.1 "
              "(FakeTable._current_version)", file=sys.stderr)
    if not args.no_version_check:
        _patch_glue(args.race_file)
    _patch_s3tables()
    port = args.port
    if port == 0:
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/moto-api/", timeout=5).read()
            break
        except Exception:
            if time.time() > deadline:
                print("moto_catalog_server: not answering after 30 s", file=sys.stderr)
                server.stop()
                return 1
            time.sleep(0.1)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"listening on {url}", flush=True)
    while not stop.wait(1):
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
