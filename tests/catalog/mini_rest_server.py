"""A minimal Iceberg REST catalog, for testing basalt's REST client against
something other than basalt.

Written from the OpenAPI document (iceberg-rest-catalog-open-api.yaml) and
the table and view specs alone, with the Python standard library (boto3 only when
the warehouse is on S3), never from basalt's code. State lives in memory;
metadata files are written by the server, as the spec says a catalog does
on create and commit.

    mini_rest_server.py --warehouse DIR|s3://BUCKET/PATH [options]

  --port N              0 (default): one the kernel picks; prints
                        "listening on http://127.0.0.1:PORT" when ready
  --base-path /P        serve under /P/v1/... (default: /v1/...)
  --prefix P            the {prefix} segment, sent as overrides.prefix
  --no-endpoints        send no `endpoints` in the config (clients then
                        assume the spec's default set)
  --page-size N         page size when a client asks to page (default 2)
  --token T             a bearer token every /v1 request must carry
  --client ID:SECRET    client credentials for POST /v1/oauth/tokens; the
                        tokens issued there are accepted too
  --token-ttl S         lifetime of issued tokens in seconds (default 3600)
  --advertised-ttl S    expires_in announced (default: --token-ttl), to make
                        a client meet a 401 before it expects one
  --vend KEY=VALUE      table config handed out when a load or create asks
                        for vended-credentials (repeatable)
  --vend-prefix P       hand --vend out as storage-credentials for prefix P
                        instead of in config (repeatable --decoy-prefix P
                        adds a shorter prefix with bad keys)
  --delay-ms N          sleep before answering every /v1 request
  --s3-endpoint URL, --s3-key ID, --s3-secret S, --s3-region R
                        where s3:// metadata goes (boto3)

Test controls (outside /v1, no auth):
  POST /control/fail-next-commit?status=503&applied=1
        the next commit answers `status`; with applied=1 it is applied
        first (the answer is lost, the change is not)
  POST /control/commit-barrier?n=2
        the next n table commits wait for each other (at most 60 s) and
        are then applied one at a time: n writers that each loaded the
        table before committing all built on the same metadata, so all
        but the first meet 409 however many loads each made
  GET  /control/stats   counters as JSON
"""
import argparse
import copy
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

SEP = "\x1f"


class ApiError(Exception):
    def __init__(self, code, typ, message):
        super().__init__(message)
        self.code, self.type, self.message = code, typ, message


def now_ms():
    return int(time.time() * 1000)


class Storage:
    """Writes and reads metadata files: local paths, file:// or s3://."""

    def __init__(self, args):
        self.args = args
        self._s3 = None

    def s3(self):
        if self._s3 is None:
            import boto3
            from botocore.config import Config
            self._s3 = boto3.client(
                "s3", endpoint_url=self.args.s3_endpoint, region_name=self.args.s3_region,
                aws_access_key_id=self.args.s3_key, aws_secret_access_key=self.args.s3_secret,
                config=Config(s3={"addressing_style": "path"}))
        return self._s3

    @staticmethod
    def local(location):
        if location.startswith("file://"):
            return location[len("file://"):]
        if location.startswith("file:"):
            return location[len("file:"):]
        return location

    def write(self, location, data):
        if location.startswith("s3://"):
            bucket, _, key = location[5:].partition("/")
            self.s3().put_object(Bucket=bucket, Key=key, Body=data)
            return
        path = self.local(location)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "xb") as f:  # metadata files are never overwritten
            f.write(data)

    def read(self, location):
        if location.startswith("s3://"):
            bucket, _, key = location[5:].partition("/")
            return self.s3().get_object(Bucket=bucket, Key=key)["Body"].read()
        with open(self.local(location), "rb") as f:
            return f.read()


class Catalog:
    def __init__(self, args):
        self.args = args
        self.lock = threading.RLock()
        self.namespaces = {}          # tuple(levels) -> properties
        self.tables = {}              # (tuple(levels), name) -> {"location", "metadata"}
        self.views = {}               # (tuple(levels), name) -> {"location", "metadata"}
        self.tokens = {}              # issued token -> expiry (time.time())
        self.storage = Storage(args)
        self.fail_next_commit = None  # (status, applied)
        self.barrier = None
        self.stats = {"requests": 0, "tokens_issued": 0, "unauthorized": 0, "pages": 0,
                      "commits": 0, "commit_conflicts": 0, "commit_failures_injected": 0,
                      "delegation_requests": 0, "vended": 0, "staged_creates": 0,
                      "creates": 0, "loads": 0, "transactions": 0, "view_commits": 0,
                      "view_conflicts": 0}
        self.vend = dict(kv.split("=", 1) for kv in (args.vend or []))

    # ------------------------------------------------------------ helpers
    def count(self, key, n=1):
        with self.lock:
            self.stats[key] += n

    def table(self, ns, name):
        t = self.tables.get((ns, name))
        if t is None:
            raise ApiError(404, "NoSuchTableException", f"Table does not exist: {'.'.join(ns)}.{name}")
        return t

    def require_namespace(self, ns):
        if ns not in self.namespaces:
            raise ApiError(404, "NoSuchNamespaceException", f"Namespace does not exist: {'.'.join(ns)}")

    def config_for_table(self, delegated):
        if not delegated or not self.vend:
            return {}, None
        self.stats["vended"] += 1
        if self.args.vend_prefix:
            creds = [{"prefix": p, "config": dict(self.vend)} for p in self.args.vend_prefix]
            for p in self.args.decoy_prefix or []:
                bad = dict(self.vend)
                for k in list(bad):
                    if "secret" in k or "key-id" in k:
                        bad[k] = "decoy-" + k
                creds.append({"prefix": p, "config": bad})
            return {}, creds
        return dict(self.vend), None

    def load_result(self, t, delegated, staged=False):
        config, creds = self.config_for_table(delegated)
        out = {"metadata": t["metadata"], "config": config}
        if not staged:
            out["metadata-location"] = t["location"]
        if creds is not None:
            out["storage-credentials"] = creds
        return out

    def write_metadata(self, metadata, previous):
        version = 0
        if previous:
            m = re.match(r"(\d+)-", os.path.basename(previous))
            version = int(m.group(1)) + 1 if m else 1
        loc = f"{metadata['location'].rstrip('/')}/metadata/{version:05d}-{uuid.uuid4()}.metadata.json"
        self.storage.write(loc, json.dumps(metadata, indent=1).encode())
        return loc

    # ---------------------------------------------------------- metadata
    @staticmethod
    def max_field_id(fields):
        best = 0
        for f in fields:
            best = max(best, f["id"])
            t = f.get("type")
            best = max(best, Catalog.max_type_id(t))
        return best

    @staticmethod
    def max_type_id(t):
        if not isinstance(t, dict):
            return 0
        kind = t.get("type")
        if kind == "struct":
            return Catalog.max_field_id(t.get("fields", []))
        if kind == "list":
            return max(t["element-id"], Catalog.max_type_id(t.get("element")))
        if kind == "map":
            return max(t["key-id"], t["value-id"], Catalog.max_type_id(t.get("key")),
                       Catalog.max_type_id(t.get("value")))
        return 0

    def new_metadata(self, location, properties):
        props = dict(properties or {})
        fv = int(props.pop("format-version", 2))
        return {
            "format-version": fv, "table-uuid": str(uuid.uuid4()), "location": location,
            "last-sequence-number": 0, "last-updated-ms": now_ms(), "last-column-id": 0,
            "schemas": [], "current-schema-id": -1, "partition-specs": [], "default-spec-id": -1,
            "last-partition-id": 999, "sort-orders": [], "default-sort-order-id": -1,
            "properties": props, "current-snapshot-id": -1, "snapshots": [], "snapshot-log": [],
            "metadata-log": [], "refs": {},
        }

    def apply(self, m, updates):
        """Applies TableUpdates to metadata `m` (changed in place)."""
        last_schema = last_spec = last_order = None
        for u in updates:
            action = u.get("action")
            if action == "assign-uuid":
                m["table-uuid"] = u["uuid"]
            elif action == "upgrade-format-version":
                if u["format-version"] < m["format-version"]:
                    raise ApiError(400, "BadRequestException", "cannot downgrade the format version")
                m["format-version"] = u["format-version"]
            elif action == "add-schema":
                s = copy.deepcopy(u["schema"])
                s["schema-id"] = max([x["schema-id"] for x in m["schemas"]], default=-1) + 1
                m["schemas"].append(s)
                m["last-column-id"] = max(m["last-column-id"], self.max_field_id(s["fields"]))
                last_schema = s["schema-id"]
            elif action == "set-current-schema":
                sid = last_schema if u["schema-id"] == -1 else u["schema-id"]
                if sid not in [x["schema-id"] for x in m["schemas"]]:
                    raise ApiError(400, "BadRequestException", f"no schema {sid}")
                m["current-schema-id"] = sid
            elif action == "add-spec":
                s = copy.deepcopy(u["spec"])
                s["spec-id"] = max([x["spec-id"] for x in m["partition-specs"]], default=-1) + 1
                # field-id is optional in a request: the catalog assigns it.
                for f in s["fields"]:
                    if "field-id" not in f:
                        f["field-id"] = max([m["last-partition-id"]] +
                                            [g.get("field-id", 0) for g in s["fields"]]) + 1
                m["partition-specs"].append(s)
                m["last-partition-id"] = max([m["last-partition-id"]] +
                                             [f["field-id"] for f in s["fields"]])
                last_spec = s["spec-id"]
            elif action == "set-default-spec":
                m["default-spec-id"] = last_spec if u["spec-id"] == -1 else u["spec-id"]
            elif action == "add-sort-order":
                s = copy.deepcopy(u["sort-order"])
                if not s["fields"]:
                    s["order-id"] = 0
                elif s.get("order-id", 0) == 0:
                    s["order-id"] = max([x["order-id"] for x in m["sort-orders"]] + [0]) + 1
                if s["order-id"] not in [x["order-id"] for x in m["sort-orders"]]:
                    m["sort-orders"].append(s)
                last_order = s["order-id"]
            elif action == "set-default-sort-order":
                m["default-sort-order-id"] = last_order if u["sort-order-id"] == -1 else u["sort-order-id"]
            elif action == "set-location":
                m["location"] = u["location"]
            elif action == "set-properties":
                m["properties"].update(u["updates"])
            elif action == "remove-properties":
                for k in u["removals"]:
                    m["properties"].pop(k, None)
            elif action == "add-snapshot":
                s = u["snapshot"]
                if any(x["snapshot-id"] == s["snapshot-id"] for x in m["snapshots"]):
                    raise ApiError(400, "BadRequestException", "snapshot id exists")
                if m["format-version"] >= 2 and s["sequence-number"] <= m["last-sequence-number"]:
                    raise ApiError(400, "BadRequestException", "stale sequence number")
                m["snapshots"].append(s)
                m["last-sequence-number"] = max(m["last-sequence-number"], s.get("sequence-number", 0))
            elif action == "set-snapshot-ref":
                sid = u["snapshot-id"]
                if not any(x["snapshot-id"] == sid for x in m["snapshots"]):
                    raise ApiError(400, "BadRequestException", f"no snapshot {sid}")
                m["refs"][u["ref-name"]] = {"snapshot-id": sid, "type": u["type"]}
                if u["ref-name"] == "main":
                    m["current-snapshot-id"] = sid
                    m["snapshot-log"].append({"snapshot-id": sid, "timestamp-ms": now_ms()})
            else:
                raise ApiError(400, "BadRequestException", f"unknown or unsupported update: {action}")

    @staticmethod
    def check(requirements, t):
        """Checks TableRequirements; a failure is 409 CommitFailedException."""
        for r in requirements:
            typ = r.get("type")
            m = t["metadata"] if t else None
            fail = None
            if typ == "assert-create":
                if t is not None:
                    fail = "table already exists"
            elif m is None:
                raise ApiError(404, "NoSuchTableException", "Table does not exist")
            elif typ == "assert-table-uuid":
                if r["uuid"] != m["table-uuid"]:
                    fail = "UUID does not match"
            elif typ == "assert-ref-snapshot-id":
                ref = m["refs"].get(r["ref"])
                want = r.get("snapshot-id")
                if want is None and ref is not None:
                    fail = f"branch or tag {r['ref']} was created concurrently"
                elif want is not None and (ref is None or ref["snapshot-id"] != want):
                    fail = f"branch {r['ref']} has changed: expected id {want} != " \
                           f"{ref['snapshot-id'] if ref else None}"
            elif typ == "assert-current-schema-id":
                if r["current-schema-id"] != m["current-schema-id"]:
                    fail = "current schema changed"
            elif typ == "assert-last-assigned-field-id":
                if r["last-assigned-field-id"] != m["last-column-id"]:
                    fail = "last assigned field id changed"
            elif typ == "assert-last-assigned-partition-id":
                if r["last-assigned-partition-id"] != m["last-partition-id"]:
                    fail = "last assigned partition id changed"
            elif typ == "assert-default-spec-id":
                if r["default-spec-id"] != m["default-spec-id"]:
                    fail = "default spec changed"
            elif typ == "assert-default-sort-order-id":
                if r["default-sort-order-id"] != m["default-sort-order-id"]:
                    fail = "default sort order changed"
            else:
                raise ApiError(400, "BadRequestException", f"unknown requirement: {typ}")
            if fail:
                raise ApiError(409, "CommitFailedException", f"Requirement failed: {fail}")

    # ----------------------------------------------------------- routes
    def create_table(self, ns, body, delegated):
        name = body.get("name")
        schema = body.get("schema")
        if not isinstance(name, str) or not isinstance(schema, dict):
            raise ApiError(400, "BadRequestException", "CreateTableRequest needs name and schema")
        self.require_namespace(ns)
        if (ns, name) in self.tables or (ns, name) in self.views:
            raise ApiError(409, "AlreadyExistsException", f"Table already exists: {'.'.join(ns)}.{name}")
        location = body.get("location") or \
            f"{self.args.warehouse.rstrip('/')}/{'/'.join(ns)}/{name}"
        m = self.new_metadata(location.rstrip("/"), body.get("properties"))
        self.apply(m, [{"action": "add-schema", "schema": schema},
                       {"action": "set-current-schema", "schema-id": -1},
                       {"action": "add-spec", "spec": body.get("partition-spec") or {"spec-id": 0, "fields": []}},
                       {"action": "set-default-spec", "spec-id": -1},
                       {"action": "add-sort-order", "sort-order": body.get("write-order") or {"order-id": 0, "fields": []}},
                       {"action": "set-default-sort-order", "sort-order-id": -1}])
        t = {"metadata": m, "location": None}
        if body.get("stage-create"):
            self.stats["staged_creates"] += 1
            return 200, self.load_result(t, delegated, staged=True)
        t["location"] = self.write_metadata(m, None)
        self.tables[(ns, name)] = t
        self.stats["creates"] += 1
        return 200, self.load_result(t, delegated)

    def commit_one(self, ns, name, body):
        """Checks and applies one CommitTableRequest; returns the new table."""
        t = self.tables.get((ns, name))
        reqs = body.get("requirements")
        updates = body.get("updates")
        if not isinstance(reqs, list) or not isinstance(updates, list):
            raise ApiError(400, "BadRequestException", "CommitTableRequest needs requirements and updates")
        creating = any(r.get("type") == "assert-create" for r in reqs)
        if t is None and not creating:
            raise ApiError(404, "NoSuchTableException", f"Table does not exist: {'.'.join(ns)}.{name}")
        if creating:
            self.require_namespace(ns)
        try:
            self.check(reqs, t)
        except ApiError as e:
            if e.code == 409:
                self.stats["commit_conflicts"] += 1
            raise
        if t is None:
            # A table made by its updates: the format version they ask for.
            fv = next((u.get("format-version") for u in updates
                       if u.get("action") == "upgrade-format-version"), 2)
            m = self.new_metadata(None, {"format-version": fv})
        else:
            m = copy.deepcopy(t["metadata"])
        self.apply(m, updates)
        if not m.get("location") or not m["schemas"]:
            raise ApiError(400, "BadRequestException", "a new table needs a location and a schema")
        if t is not None:
            m["metadata-log"].append({"metadata-file": t["location"],
                                      "timestamp-ms": t["metadata"]["last-updated-ms"]})
        m["last-updated-ms"] = max(now_ms(), t["metadata"]["last-updated-ms"] + 1 if t else 0)
        return {"metadata": m, "previous": t["location"] if t else None}

    def commit(self, ns, name, body):
        self.stats["commits"] += 1
        staged = self.commit_one(ns, name, body)
        fail = self.fail_next_commit
        if fail:
            self.fail_next_commit = None
            self.stats["commit_failures_injected"] += 1
            status, applied = fail
            if applied:
                self.install(ns, name, staged)
            raise ApiError(status, "ServiceUnavailableException" if status == 503 else "ServerError",
                           "injected failure")
        t = self.install(ns, name, staged)
        return 200, {"metadata-location": t["location"], "metadata": t["metadata"]}

    def install(self, ns, name, staged):
        loc = self.write_metadata(staged["metadata"], staged["previous"])
        t = {"metadata": staged["metadata"], "location": loc}
        self.tables[(ns, name)] = t
        return t

    def transaction(self, body):
        changes = body.get("table-changes")
        if not isinstance(changes, list):
            raise ApiError(400, "BadRequestException", "CommitTransactionRequest needs table-changes")
        self.stats["transactions"] += 1
        staged = []
        for c in changes:
            ident = c.get("identifier") or {}
            ns, name = tuple(ident.get("namespace") or []), ident.get("name")
            staged.append((ns, name, self.commit_one(ns, name, c)))
        fail = self.fail_next_commit
        if fail:
            self.fail_next_commit = None
            raise ApiError(fail[0], "ServiceUnavailableException", "injected failure")
        for ns, name, s in staged:
            self.install(ns, name, s)
        return 204, None

    def register(self, ns, body):
        name, loc = body.get("name"), body.get("metadata-location")
        if not isinstance(name, str) or not isinstance(loc, str):
            raise ApiError(400, "BadRequestException", "RegisterTableRequest needs name and metadata-location")
        self.require_namespace(ns)
        if (ns, name) in self.tables:
            raise ApiError(409, "AlreadyExistsException", f"Table already exists: {name}")
        try:
            m = json.loads(self.storage.read(loc))
        except (OSError, ValueError) as e:
            raise ApiError(400, "BadRequestException", f"cannot read {loc}: {e}")
        t = {"metadata": m, "location": loc}
        self.tables[(ns, name)] = t
        return 200, self.load_result(t, False)

    # -------------------------------------------------------------- views
    # ViewMetadata as the OpenAPI document and the view spec define it:
    # format-version 1, schemas, versions, version-log, current-version-id.
    def view(self, ns, name):
        v = self.views.get((ns, name))
        if v is None:
            raise ApiError(404, "NoSuchViewException", f"View does not exist: {'.'.join(ns)}.{name}")
        return v

    def taken(self, ns, name):
        if (ns, name) in self.tables or (ns, name) in self.views:
            raise ApiError(409, "AlreadyExistsException", f"Table or view already exists: {'.'.join(ns)}.{name}")

    def create_view(self, ns, body):
        name, schema, version = body.get("name"), body.get("schema"), body.get("view-version")
        if not isinstance(name, str) or not isinstance(schema, dict) or not isinstance(version, dict):
            raise ApiError(400, "BadRequestException", "CreateViewRequest needs name, schema and view-version")
        self.require_namespace(ns)
        self.taken(ns, name)
        location = body.get("location") or f"{self.args.warehouse.rstrip('/')}/{'/'.join(ns)}/{name}"
        schema = dict(schema, **{"schema-id": 0})
        version = dict(version, **{"schema-id": 0})  # the id the request's schema got
        m = {"view-uuid": str(uuid.uuid4()), "format-version": 1, "location": location.rstrip("/"),
             "schemas": [schema], "versions": [version], "current-version-id": version["version-id"],
             "version-log": [{"version-id": version["version-id"], "timestamp-ms": version["timestamp-ms"]}],
             "properties": dict(body.get("properties") or {})}
        v = {"metadata": m, "location": self.write_metadata(m, None)}
        self.views[(ns, name)] = v
        return 200, {"metadata-location": v["location"], "metadata": m, "config": {}}

    def replace_view(self, ns, name, body):
        """A CommitViewRequest: requirements checked, updates applied in order."""
        v = self.view(ns, name)
        self.stats["view_commits"] += 1
        updates = body.get("updates")
        if not isinstance(updates, list):
            raise ApiError(400, "BadRequestException", "CommitViewRequest needs updates")
        for r in body.get("requirements") or []:
            if r.get("type") != "assert-view-uuid":
                raise ApiError(400, "BadRequestException", f"unknown requirement {r.get('type')}")
            if r.get("uuid") != v["metadata"]["view-uuid"]:
                self.stats["view_conflicts"] += 1
                raise ApiError(409, "CommitFailedException", "Requirement failed: view uuid changed")
        m = copy.deepcopy(v["metadata"])
        last_schema = last_version = None
        for u in updates:
            a = u.get("action")
            if a == "add-schema":
                new = u["schema"]
                same = [x for x in m["schemas"] if x["fields"] == new["fields"]]
                if same:
                    last_schema = same[0]["schema-id"]
                else:
                    last_schema = max(x["schema-id"] for x in m["schemas"]) + 1
                    m["schemas"].append(dict(new, **{"schema-id": last_schema}))
            elif a == "add-view-version":
                ver = dict(u["view-version"])
                if ver["schema-id"] == -1:
                    if last_schema is None:
                        raise ApiError(400, "BadRequestException", "no schema was added")
                    ver["schema-id"] = last_schema
                ver["version-id"] = max(x["version-id"] for x in m["versions"]) + 1
                m["versions"].append(ver)
                last_version = ver["version-id"]
            elif a == "set-current-view-version":
                vid = u["view-version-id"]
                if vid == -1:
                    vid = last_version
                if vid not in [x["version-id"] for x in m["versions"]]:
                    raise ApiError(400, "BadRequestException", f"no view version {vid}")
                if vid != m["current-version-id"]:
                    m["current-version-id"] = vid
                    m["version-log"].append({"version-id": vid, "timestamp-ms": now_ms()})
            elif a == "set-properties":
                m["properties"].update(u["updates"])
            elif a == "remove-properties":
                for k in u["removals"]:
                    m["properties"].pop(k, None)
            elif a == "set-location":
                m["location"] = u["location"]
            elif a in ("assign-uuid",):
                m["view-uuid"] = u["uuid"]
            elif a != "upgrade-format-version":
                raise ApiError(400, "BadRequestException", f"unknown view update {a}")
        v = {"metadata": m, "location": self.write_metadata(m, v["location"])}
        self.views[(ns, name)] = v
        return 200, {"metadata-location": v["location"], "metadata": m, "config": {}}

    def rename_view(self, body):
        src, dst = body.get("source") or {}, body.get("destination") or {}
        sns, dns = tuple(src.get("namespace") or ()), tuple(dst.get("namespace") or ())
        v = self.view(sns, src.get("name"))
        self.require_namespace(dns)
        self.taken(dns, dst.get("name"))
        del self.views[(sns, src.get("name"))]
        self.views[(dns, dst.get("name"))] = v
        return 204, None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    catalog = None  # set in main

    def log_message(self, fmt, *args):
        sys.stderr.write("mini-rest: " + (fmt % args) + "\n")

    def send_json(self, status, doc, headers=None):
        body = b"" if doc is None else json.dumps(doc).encode()
        self.send_response(status)
        if doc is not None:
            self.send_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def error(self, e):
        self.send_json(e.code, {"error": {"message": e.message, "type": e.type, "code": e.code}})

    def body(self):
        return self.raw_body

    def json_body(self):
        raw = self.body()
        try:
            doc = json.loads(raw or b"null")
        except ValueError:
            raise ApiError(400, "BadRequestException", "malformed JSON")
        if not isinstance(doc, dict):
            raise ApiError(400, "BadRequestException", "the body must be a JSON object")
        return doc

    def do_GET(self):
        self.route("GET")

    def do_HEAD(self):
        self.route("HEAD")

    def do_POST(self):
        self.route("POST")

    def do_DELETE(self):
        self.route("DELETE")

    # ---------------------------------------------------------- routing
    def route(self, method):
        c = self.catalog
        # Read the whole body first: an answer given before reading it would
        # leave it in the stream of a kept-alive connection.
        n = int(self.headers.get("Content-Length") or 0)
        self.raw_body = self.rfile.read(n) if n else b""
        url = urlsplit(self.path)
        query = parse_qs(url.query, keep_blank_values=True)
        path = url.path
        try:
            if path.startswith("/control/"):
                return self.control(method, path[len("/control/"):], query)
            base = c.args.base_path.rstrip("/")
            if not path.startswith(base + "/v1/"):
                raise ApiError(404, "NotFoundException", f"no route {path}")
            rest = path[len(base) + len("/v1/"):]
            with c.lock:
                c.stats["requests"] += 1
            if rest == "oauth/tokens" and method == "POST":
                return self.token()
            self.authenticate()  # a token is judged when it arrives
            if c.args.delay_ms:
                time.sleep(c.args.delay_ms / 1000.0)
            if rest == "config" and method == "GET":
                return self.config(query)
            prefix = c.args.prefix
            if prefix:
                if not rest.startswith(prefix + "/"):
                    raise ApiError(404, "NotFoundException", f"no route {path} (prefix {prefix})")
                rest = rest[len(prefix) + 1:]
            parts = rest.split("/")  # still percent-encoded: names may hold '/'
            self.dispatch(method, parts, query)
        except ApiError as e:
            self.error(e)
        except (KeyError, TypeError, ValueError) as e:
            self.error(ApiError(400, "BadRequestException", f"malformed request: {e!r}"))

    def authenticate(self):
        c = self.catalog
        if not c.args.token and not c.args.client:
            return
        auth = self.headers.get("Authorization") or ""
        ok = False
        if auth.startswith("Bearer "):
            tok = auth[len("Bearer "):]
            with c.lock:
                expiry = c.tokens.get(tok)
            ok = (c.args.token and tok == c.args.token) or (expiry is not None and time.time() < expiry)
        if not ok:
            c.count("unauthorized")
            raise ApiError(401, "NotAuthorizedException",
                           "Not authorized: " + ("the token expired or is unknown" if auth else "no token"))

    def token(self):
        c = self.catalog
        form = parse_qs(self.body().decode(), keep_blank_values=True)
        grant = form.get("grant_type", [""])[0]
        cid, secret = form.get("client_id", [""])[0], form.get("client_secret", [""])[0]
        if grant != "client_credentials":
            return self.send_json(400, {"error": "unsupported_grant_type",
                                        "error_description": f"grant_type {grant!r}"})
        if not c.args.client or f"{cid}:{secret}" != c.args.client:
            return self.send_json(401, {"error": "invalid_client",
                                        "error_description": "unknown client or wrong secret"})
        tok = uuid.uuid4().hex
        with c.lock:
            c.tokens[tok] = time.time() + c.args.token_ttl
            c.stats["tokens_issued"] += 1
        ttl = c.args.advertised_ttl if c.args.advertised_ttl is not None else c.args.token_ttl
        return self.send_json(200, {"access_token": tok, "token_type": "bearer",
                                    "expires_in": int(ttl),
                                    "issued_token_type": "urn:ietf:params:oauth:token-type:access_token"})

    def config(self, query):
        c = self.catalog
        doc = {"defaults": {"clients": "1"}, "overrides": {}}
        if c.args.prefix:
            doc["overrides"]["prefix"] = c.args.prefix
        wh = query.get("warehouse", [None])[0]
        if wh is not None and c.args.expect_warehouse and wh != c.args.expect_warehouse:
            raise ApiError(404, "NoSuchWarehouseException", f"no warehouse {wh}")
        if not c.args.no_endpoints:
            doc["endpoints"] = [
                "GET /v1/{prefix}/namespaces", "POST /v1/{prefix}/namespaces",
                "GET /v1/{prefix}/namespaces/{namespace}", "HEAD /v1/{prefix}/namespaces/{namespace}",
                "GET /v1/{prefix}/namespaces/{namespace}/tables",
                "POST /v1/{prefix}/namespaces/{namespace}/tables",
                "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}",
                "POST /v1/{prefix}/namespaces/{namespace}/register",
                "POST /v1/{prefix}/transactions/commit",
                "GET /v1/{prefix}/namespaces/{namespace}/views",
                "POST /v1/{prefix}/namespaces/{namespace}/views",
                "GET /v1/{prefix}/namespaces/{namespace}/views/{view}",
                "POST /v1/{prefix}/namespaces/{namespace}/views/{view}",
                "DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}",
                "POST /v1/{prefix}/views/rename",
            ]
        self.send_json(200, doc)

    @staticmethod
    def namespace(segment, decoded=False):
        # The separator arrives percent-encoded (%1F) and decodes to 0x1F;
        # every other byte of a level is decoded too (query values come
        # decoded already).
        levels = tuple((segment if decoded else unquote(segment)).split(SEP))
        if any(not x for x in levels):
            raise ApiError(400, "BadRequestException", "empty namespace level")
        return levels

    def paged(self, items, query, key):
        c = self.catalog
        if "pageToken" not in query:
            return {key: items}  # no paging asked for: everything at once
        c.count("pages")
        token = query["pageToken"][0]
        start = int(token) if token else 0
        size = c.args.page_size
        if "pageSize" in query:
            size = max(1, min(size, int(query["pageSize"][0])))
        page = items[start:start + size]
        nxt = str(start + size) if start + size < len(items) else None
        return {key: page, "next-page-token": nxt}

    def dispatch(self, method, parts, query):
        c = self.catalog
        delegated = "vended-credentials" in (self.headers.get("X-Iceberg-Access-Delegation") or "")
        if delegated:
            c.count("delegation_requests")
        n = len(parts)
        with_lock = c.lock
        if parts == ["namespaces"] and method == "GET":
            with with_lock:
                parent = self.namespace(query["parent"][0], True) if query.get("parent", [""])[0] else ()
                if parent:
                    c.require_namespace(parent)
                kids = sorted({ns[:len(parent) + 1] for ns in c.namespaces
                               if len(ns) > len(parent) and ns[:len(parent)] == parent})
                doc = self.paged([list(k) for k in kids], query, "namespaces")
            return self.send_json(200, doc)
        if parts == ["namespaces"] and method == "POST":
            body = self.json_body()
            levels = body.get("namespace")
            if not isinstance(levels, list) or not levels or not all(isinstance(x, str) and x for x in levels):
                raise ApiError(400, "BadRequestException", "namespace must be a non-empty array of strings")
            with with_lock:
                ns = tuple(levels)
                if ns in c.namespaces:
                    raise ApiError(409, "AlreadyExistsException", f"Namespace already exists: {'.'.join(ns)}")
                c.namespaces[ns] = dict(body.get("properties") or {})
            return self.send_json(200, {"namespace": list(ns), "properties": c.namespaces[ns]})
        if n == 2 and parts[0] == "namespaces" and method in ("GET", "HEAD"):
            ns = self.namespace(parts[1])
            with with_lock:
                c.require_namespace(ns)
                props = dict(c.namespaces[ns])
            if method == "HEAD":
                return self.send_json(204, None)
            return self.send_json(200, {"namespace": list(ns), "properties": props})
        if n == 3 and parts[0] == "namespaces" and parts[2] == "tables":
            ns = self.namespace(parts[1])
            if method == "GET":
                with with_lock:
                    c.require_namespace(ns)
                    names = sorted(name for (tns, name) in c.tables if tns == ns)
                    doc = self.paged([{"namespace": list(ns), "name": x} for x in names], query,
                                     "identifiers")
                return self.send_json(200, doc)
            if method == "POST":
                body = self.json_body()
                with with_lock:
                    status, doc = c.create_table(ns, body, delegated)
                return self.send_json(status, doc)
        if n == 3 and parts[0] == "namespaces" and parts[2] == "register" and method == "POST":
            ns = self.namespace(parts[1])
            body = self.json_body()
            with with_lock:
                status, doc = c.register(ns, body)
            return self.send_json(status, doc)
        if n == 4 and parts[0] == "namespaces" and parts[2] == "tables":
            ns, name = self.namespace(parts[1]), unquote(parts[3])
            if method == "GET":
                with with_lock:
                    c.stats["loads"] += 1
                    doc = c.load_result(c.table(ns, name), delegated)
                return self.send_json(200, doc)
            if method == "POST":
                body = self.json_body()
                ident = body.get("identifier")
                if ident is not None and (tuple(ident.get("namespace") or ()) != ns or ident.get("name") != name):
                    raise ApiError(400, "BadRequestException", "identifier does not match the path")
                self.wait_barrier()
                with with_lock:
                    status, doc = c.commit(ns, name, body)
                return self.send_json(status, doc)
            if method == "DELETE":
                if query.get("purgeRequested", ["false"])[0] not in ("false", ""):
                    raise ApiError(406, "UnsupportedOperationException", "purge is not supported")
                with with_lock:
                    c.table(ns, name)
                    del c.tables[(ns, name)]
                return self.send_json(204, None)
        if n == 3 and parts[0] == "namespaces" and parts[2] == "views":
            ns = self.namespace(parts[1])
            if method == "GET":
                with with_lock:
                    c.require_namespace(ns)
                    names = sorted(name for (vns, name) in c.views if vns == ns)
                    doc = self.paged([{"namespace": list(ns), "name": x} for x in names], query,
                                     "identifiers")
                return self.send_json(200, doc)
            if method == "POST":
                body = self.json_body()
                with with_lock:
                    status, doc = c.create_view(ns, body)
                return self.send_json(status, doc)
        if n == 4 and parts[0] == "namespaces" and parts[2] == "views":
            ns, name = self.namespace(parts[1]), unquote(parts[3])
            with with_lock:
                if method == "GET":
                    v = c.view(ns, name)
                    return self.send_json(200, {"metadata-location": v["location"],
                                                "metadata": v["metadata"], "config": {}})
                if method == "HEAD":
                    c.view(ns, name)
                    return self.send_json(204, None)
                if method == "DELETE":
                    c.view(ns, name)
                    del c.views[(ns, name)]
                    return self.send_json(204, None)
            if method == "POST":
                body = self.json_body()
                with with_lock:
                    status, doc = c.replace_view(ns, name, body)
                return self.send_json(status, doc)
        if parts == ["views", "rename"] and method == "POST":
            body = self.json_body()
            with with_lock:
                status, doc = c.rename_view(body)
            return self.send_json(status, doc)
        if parts == ["transactions", "commit"] and method == "POST":
            body = self.json_body()
            with with_lock:
                status, doc = c.transaction(body)
            return self.send_json(status, doc)
        raise ApiError(404, "NotFoundException", f"no route {method} /{'/'.join(parts)}")

    def wait_barrier(self):
        c = self.catalog
        with c.lock:
            b = c.barrier
            if b is not None:
                b["left"] -= 1
                if b["left"] <= 0:
                    c.barrier = None
        if b is not None:
            try:
                b["barrier"].wait(timeout=60)
            except threading.BrokenBarrierError:
                pass

    def control(self, method, what, query):
        c = self.catalog
        if what == "fail-next-commit" and method == "POST":
            with c.lock:
                c.fail_next_commit = (int(query.get("status", ["503"])[0]),
                                      query.get("applied", ["0"])[0] == "1")
            return self.send_json(200, {"ok": True})
        if what == "commit-barrier" and method == "POST":
            n = int(query.get("n", ["2"])[0])
            with c.lock:
                c.barrier = {"left": n, "barrier": threading.Barrier(n)}
            return self.send_json(200, {"ok": True})
        if what == "stats" and method == "GET":
            with c.lock:
                doc = dict(c.stats)
            return self.send_json(200, doc)
        raise ApiError(404, "NotFoundException", f"no control {what}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--warehouse", required=True)
    p.add_argument("--base-path", default="")
    p.add_argument("--prefix", default="")
    p.add_argument("--no-endpoints", action="store_true")
    p.add_argument("--page-size", type=int, default=2)
    p.add_argument("--token")
    p.add_argument("--client")
    p.add_argument("--token-ttl", type=float, default=3600)
    p.add_argument("--advertised-ttl", type=float)
    p.add_argument("--vend", action="append")
    p.add_argument("--vend-prefix", action="append")
    p.add_argument("--decoy-prefix", action="append")
    p.add_argument("--expect-warehouse")
    p.add_argument("--delay-ms", type=int, default=0)
    p.add_argument("--s3-endpoint")
    p.add_argument("--s3-key")
    p.add_argument("--s3-secret")
    p.add_argument("--s3-region", default="us-east-1")
    args = p.parse_args()
    Handler.catalog = Catalog(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
