#!/usr/bin/env python3
"""Drives a running `basalt catalog serve` through every endpoint it
advertises and validates every response against the Iceberg REST catalog's
OpenAPI document (testdata/iceberg/rest-catalog/rest-catalog-open-api.yaml):
the body against the schema the operation declares for that status, an
empty body where none is declared. Request bodies are validated too (except
the ones that are wrong on purpose), so the test only ever blames the server
for what a conforming client could send.

Three traps of validating with this document (catalogs-notes.md, section a):
1. It declares OpenAPI 3.1 but marks nullable members the 3.0 way
   (`nullable: true`), which OAS31Validator ignores: {type: T, nullable:
   true} is rewritten to {type: [T, "null"]} before validating.
2. Requirements and updates are discriminated unions that a JSON Schema
   validator does not follow (an item missing its fields passes as a bare
   TableRequirement): each item is also validated against the concrete
   schema its `type` / `action` names (TableRequirement / ViewRequirement,
   TableUpdate / ViewUpdate).
3. The view routes (and the 406 response) declare a bare ErrorModel as the
   error body, while the document's own examples there -- and every client
   -- use IcebergErrorResponse {"error": ErrorModel}: such bodies are
   validated as IcebergErrorResponse.
All three are checked at start-up on known bodies, as is the validator's power
to reject an error body with an extra top-level member.

With --catalog-db, a commit is also made directly in the SQLite catalog
(as PyIceberg's SqlCatalog commits: a new metadata file, then a guarded
UPDATE) and must show through REST.

usage: rest_conformance.py SPEC_YAML BASE_URL [--token T] [--catalog-db PATH]
                           [--max-body N]
Prints one line per failure and a summary; exits 1 on any failure.
"""
import argparse
import copy
import json
import sqlite3
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import yaml
from openapi_schema_validator import OAS31Validator

# Statuses the document declares nowhere that the server may still send,
# each with the error model: 405 for a known path with another method,
# 413 for a body over --max-body.
UNDECLARED = {405, 413}


def stringify_keys(node):
    """PyYAML reads response codes (200:) as ints; JSON Schema wants strings."""
    if isinstance(node, dict):
        return {str(k): stringify_keys(v) for k, v in node.items()}
    if isinstance(node, list):
        return [stringify_keys(v) for v in node]
    return node


def rewrite_nullable(node):
    """Trap 1: OpenAPI 3.0's `nullable: true` as a 3.1 type union."""
    if isinstance(node, list):
        return [rewrite_nullable(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: rewrite_nullable(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") is True:
        t = out.get("type")
        if isinstance(t, str):
            out["type"] = [t, "null"]
        elif isinstance(t, list):
            out["type"] = t + (["null"] if "null" not in t else [])
        else:
            out = {"anyOf": [out, {"type": "null"}]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = out["enum"] + [None]
    return out


class Spec:
    def __init__(self, path):
        with open(path) as f:
            raw = stringify_keys(yaml.safe_load(f))
        self.raw = raw
        self.doc = rewrite_nullable(raw)
        self.components = self.doc["components"]
        self.schemas = self.components["schemas"]
        self.paths = self.doc["paths"]
        self._validators = {}
        # Trap 2: the concrete schema of each requirement type and update action.
        mapping = self.schemas["TableRequirement"]["discriminator"]["mapping"]
        self.requirement_schemas = {t: ref.rsplit("/", 1)[1] for t, ref in mapping.items()}
        self.update_schemas = {}
        for item in self.schemas["TableUpdate"]["anyOf"]:
            name = item["$ref"].rsplit("/", 1)[1]
            action = self.schemas[name]["properties"]["action"]["const"]
            self.update_schemas[action] = name
        # Views: ViewRequirement's mapping, ViewUpdate's members.
        mapping = self.schemas["ViewRequirement"]["discriminator"]["mapping"]
        self.requirement_schemas.update({t: ref.rsplit("/", 1)[1] for t, ref in mapping.items()})
        for item in self.schemas["ViewUpdate"]["anyOf"]:
            name = item["$ref"].rsplit("/", 1)[1]
            action = self.schemas[name]["properties"]["action"]["const"]
            self.update_schemas[action] = name

    def validator(self, schema, components=None):
        key = json.dumps(schema, sort_keys=True) + ("raw" if components else "")
        if key not in self._validators:
            root = dict(schema)
            root["components"] = components or self.components
            self._validators[key] = OAS31Validator(root)
        return self._validators[key]

    def errors(self, schema, instance, components=None):
        v = self.validator(schema, components)
        return sorted(f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message[:200]}"
                      for e in v.iter_errors(instance))

    def named(self, name, instance, components=None):
        return self.errors({"$ref": f"#/components/schemas/{name}"}, instance, components)

    def change_errors(self, change):
        """Trap 2: each requirement and update against its concrete schema."""
        out = []
        for i, r in enumerate(change.get("requirements") or []):
            name = self.requirement_schemas.get(r.get("type") if isinstance(r, dict) else None)
            out += [f"requirements/{i}: unknown type"] if not name else \
                [f"requirements/{i}/{e}" for e in self.named(name, r)]
        for i, u in enumerate(change.get("updates") or []):
            name = self.update_schemas.get(u.get("action") if isinstance(u, dict) else None)
            out += [f"updates/{i}: unknown action"] if not name else \
                [f"updates/{i}/{e}" for e in self.named(name, u)]
        return out

    def operation(self, method, path, prefix):
        """The operation and template of a request path ("/v1/...")."""
        segments = path.split("/")
        for template, item in self.paths.items():
            t = template if prefix else template.replace("/{prefix}", "")
            parts = t.split("/")
            if len(parts) != len(segments):
                continue
            if all(p == s or (p.startswith("{") and p.endswith("}") and s)
                   for p, s in zip(parts, segments)):
                op = item.get(method.lower())
                return (op, template) if op else (None, template)
        return None, None

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node and node["$ref"].startswith(
                "#/components/responses/"):
            node = self.components["responses"][node["$ref"].rsplit("/", 1)[1]]
        return node

    def self_check(self):
        """The validator can fail, and both traps are real and handled."""
        problems = []
        good = {"error": {"message": "m", "type": "NoSuchTableException", "code": 404}}
        if self.named("IcebergErrorResponse", good):
            problems.append("a correct error body is rejected")
        bad = dict(good, extra=1)
        if not self.named("IcebergErrorResponse", bad):
            problems.append("an error body with an extra top-level member is accepted")
        page = {"namespaces": [], "next-page-token": None}
        if not self.named("ListNamespacesResponse", page, self.raw["components"]):
            problems.append("trap 1 is gone: null next-page-token passes without the rewrite")
        if self.named("ListNamespacesResponse", page):
            problems.append("null next-page-token is rejected after the rewrite")
        loose = {"requirements": [{"type": "assert-table-uuid"}], "updates": []}
        if self.named("CommitTableRequest", loose):
            problems.append("trap 2 is gone: the plain schema rejects a requirement without "
                            "its fields")
        if not self.change_errors(loose):
            problems.append("a requirement without its fields passes the concrete check")
        example = self.raw["components"]["examples"]["NoSuchViewError"]["value"]
        if not self.named("ErrorModel", example):
            problems.append("trap 3 is gone: the document's NoSuchViewError example is a bare "
                            "ErrorModel")
        if self.named("IcebergErrorResponse", example):
            problems.append("the document's NoSuchViewError example is no IcebergErrorResponse")
        return problems


class Conformance:
    def __init__(self, spec, base, token, max_body):
        self.spec = spec
        self.base = base.rstrip("/")
        self.token = token
        self.max_body = max_body
        self.prefix = ""
        self.checks = 0
        self.failures = []
        self.covered = set()  # (METHOD, template) answered 2xx/304

    def fail(self, what):
        self.failures.append(what)
        print(f"FAIL: {what}")

    def check(self, cond, what):
        self.checks += 1
        if not cond:
            self.fail(what)
        return cond

    def v1(self, *segments):
        parts = ["", "v1"] + ([urllib.parse.quote(self.prefix, safe="")] if self.prefix else [])
        return "/".join(parts + list(segments))

    @staticmethod
    def ns(*levels):
        return "%1F".join(urllib.parse.quote(level, safe="") for level in levels)

    def call(self, method, path, body=None, query=None, expect=None, token=True, headers=None,
             raw=None, valid_request=True):
        url = self.base + path + (f"?{query}" if query else "")
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token and self.token:
            req.add_header("Authorization", f"Bearer {self.token if token is True else token}")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                status, content, hdrs = resp.status, resp.read(), resp.headers
        except urllib.error.HTTPError as e:
            status, content, hdrs = e.code, e.read(), e.headers
        where = f"{method} {path}{'?' + query if query else ''}"
        op, template = self.spec.operation(method, path, bool(self.prefix))
        if body is not None and valid_request and op:
            self.check_request(where, op, body)
        parsed = self.check_response(where, method, op, template, status, content)
        if expect is not None:
            self.check(status == expect, f"{where}: status {status}, expected {expect}: "
                                         f"{content[:300]!r}")
        if op and (200 <= status < 300 or status == 304):
            self.covered.add((method, template))
        return status, parsed, hdrs

    def check_request(self, where, op, body):
        schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get(
            "schema")
        if not schema:
            return
        errors = self.spec.errors(schema, body)
        if "table-changes" in body:
            for change in body["table-changes"]:
                errors += self.spec.change_errors(change)
        elif isinstance(body.get("updates"), list):
            errors += self.spec.change_errors(body)
        self.check(not errors, f"{where}: the test's own request is not valid: {errors[:3]}")

    def check_response(self, where, method, op, template, status, content):
        self.checks += 1
        parsed = None
        if content:
            try:
                parsed = json.loads(content)
            except ValueError:
                self.fail(f"{where}: {status} with a body that is not JSON: {content[:200]!r}")
                return None
        if method == "HEAD":
            # HTTP: a HEAD answer has no body, whatever the spec's content says.
            self.check(not content, f"{where}: a HEAD answer with a body")
            return parsed
        schema = None
        if op is None:
            # A path or method the document does not have: still the error model.
            if not self.check(status >= 400, f"{where}: {status} for a route not in the spec"):
                return parsed
            schema = {"$ref": "#/components/schemas/IcebergErrorResponse"}
        else:
            responses = op["responses"]
            key = next((k for k in (str(status), f"{status // 100}XX", "default")
                        if k in responses), None)
            if key is None:
                if not self.check(status in UNDECLARED,
                                  f"{where}: status {status} is not declared by {template}"):
                    return parsed
                schema = {"$ref": "#/components/schemas/IcebergErrorResponse"}
            else:
                declared = self.spec.resolve(responses[key])
                content_spec = declared.get("content")
                if not content_spec:
                    self.check(not content, f"{where}: {status} declares no body, got "
                                            f"{content[:200]!r}")
                    return parsed
                schema = content_spec["application/json"]["schema"]
                if schema == {"$ref": "#/components/schemas/ErrorModel"} and status >= 400:
                    # Trap 3: the body is the document's own examples' (and
                    # every client's) IcebergErrorResponse.
                    schema = {"$ref": "#/components/schemas/IcebergErrorResponse"}
        if not self.check(parsed is not None, f"{where}: {status} without the declared body"):
            return parsed
        errors = self.spec.errors(schema, parsed)
        self.check(not errors, f"{where}: {status} body does not match the spec: {errors[:4]}")
        if status >= 400:
            # The error model for every non-2xx (also where the document
            # names bare ErrorModel), with the status as its code.
            errors = self.spec.named("IcebergErrorResponse", parsed)
            self.check(not errors and parsed["error"]["code"] == status,
                       f"{where}: {status} is not an IcebergErrorResponse of that code: {parsed}")
        return parsed

    # ------------------------------------------------------------ scenarios

    def run(self, catalog_db):
        self.config()
        if self.token:
            self.auth()
        self.namespaces()
        self.tables()
        self.commits()
        self.transactions()
        self.register_rename_drop()
        if any("/views" in e for e in self.endpoints):
            self.views()
        self.errors_and_limits()
        if catalog_db:
            self.direct_commit(catalog_db)
        self.coverage()

    def config(self):
        status, body, _ = self.call("GET", "/v1/config", expect=200)
        body = body or {}
        self.prefix = body.get("overrides", {}).get("prefix", "")
        self.endpoints = set(body.get("endpoints", []))
        self.check(body.get("overrides", {}).get("namespace-separator") == "%1F",
                   "config: namespace-separator is not %1F")
        self.call("GET", "/v1/config", query="warehouse=anything", expect=200)

    def auth(self):
        self.call("GET", "/v1/config", token=False, expect=401)
        self.call("GET", self.v1("namespaces"), token="wrong", expect=401)
        self.call("POST", self.v1("namespaces"), {"namespace": ["x"]}, token=False, expect=401)

    def namespaces(self):
        ns = self.v1("namespaces")
        self.call("POST", ns, {"namespace": ["db"], "properties": {"owner": "ann"}}, expect=200)
        self.call("POST", ns, {"namespace": ["db", "inner"]}, expect=200)
        self.call("POST", ns, {"namespace": ["other"]}, expect=200)
        self.call("POST", ns, {"namespace": ["db"]}, expect=409)
        _, body, _ = self.call("GET", ns, expect=200)
        self.check(body and ["db"] in body.get("namespaces", []), "list: db missing")
        _, body, _ = self.call("GET", ns, query="parent=db", expect=200)
        self.check(body and body.get("namespaces") == [["db", "inner"]], f"list parent: {body}")
        # Pages: with pageToken, next-page-token is there, null at the end (trap 1).
        _, body, _ = self.call("GET", ns, query="pageToken=&pageSize=1", expect=200)
        token = (body or {}).get("next-page-token")
        self.check(isinstance(token, str), f"page 1: no next-page-token: {body}")
        _, body, _ = self.call("GET", ns, query=f"pageToken={urllib.parse.quote(token or '')}"
                                                f"&pageSize=5", expect=200)
        self.check(body and "next-page-token" in body and body["next-page-token"] is None,
                   f"last page: next-page-token is not null: {body}")
        self.call("GET", ns, query="parent=nowhere", expect=404)
        _, body, _ = self.call("GET", self.v1("namespaces", "db"), expect=200)
        self.check(body and body.get("properties") == {"owner": "ann"}, f"load ns: {body}")
        self.call("HEAD", self.v1("namespaces", self.ns("db", "inner")), expect=204)
        self.call("HEAD", self.v1("namespaces", "nowhere"), expect=404)
        self.call("GET", self.v1("namespaces", "nowhere"), expect=404)
        props = self.v1("namespaces", "db", "properties")
        _, body, _ = self.call("POST", props, {"updates": {"team": "x"}, "removals": ["gone"]},
                               expect=200)
        self.check(body and body.get("missing") == ["gone"], f"properties: {body}")
        self.call("POST", props, {"updates": {"k": "v"}, "removals": ["k"]}, expect=422)
        self.call("POST", self.v1("namespaces", "nowhere", "properties"), {"updates": {}},
                  expect=404)
        self.call("DELETE", self.v1("namespaces", "db"), expect=409)
        self.call("DELETE", self.v1("namespaces", self.ns("db", "inner")), expect=204)
        self.call("DELETE", self.v1("namespaces", "nowhere"), expect=404)

    SCHEMA = {"type": "struct", "schema-id": 0, "identifier-field-ids": [1], "fields": [
        {"id": 1, "name": "id", "type": "long", "required": True},
        {"id": 2, "name": "ts", "type": "timestamptz", "required": False},
        {"id": 3, "name": "v", "type": "string", "required": False}]}

    def tables(self):
        tables = self.v1("namespaces", "db", "tables")
        create = {"name": "events", "schema": self.SCHEMA,
                  "partition-spec": {"spec-id": 0, "fields": [
                      {"source-id": 2, "field-id": 1000, "transform": "day", "name": "ts_day"}]},
                  "write-order": {"order-id": 1, "fields": [
                      {"source-id": 1, "transform": "identity", "direction": "asc",
                       "null-order": "nulls-first"}]},
                  "properties": {"owner": "ann"}}
        _, body, hdrs = self.call("POST", tables, create, expect=200)
        self.events_location = (body or {}).get("metadata-location")
        self.events_uuid = ((body or {}).get("metadata") or {}).get("table-uuid")
        self.call("POST", tables, create, expect=409)
        self.call("POST", self.v1("namespaces", "nowhere", "tables"), create, expect=404)
        self.call("POST", tables, {"name": "t", "schema": {"type": "struct", "fields": [
            {"id": 1, "name": "x", "type": "int", "required": False}]},
            "partition-spec": {"fields": [{"source-id": 9, "transform": "identity",
                                           "name": "x"}]}}, expect=400)
        for name in ("t1", "t2", "t3"):
            self.call("POST", tables, {"name": name, "schema": self.SCHEMA}, expect=200)
        _, body, _ = self.call("GET", tables, expect=200)
        self.check(body and len(body.get("identifiers", [])) == 4, f"list tables: {body}")
        _, body, _ = self.call("GET", tables, query="pageToken=&pageSize=3", expect=200)
        self.check(body and isinstance(body.get("next-page-token"), str), f"page: {body}")
        self.call("GET", self.v1("namespaces", "nowhere", "tables"), expect=404)
        table = self.v1("namespaces", "db", "tables", "events")
        _, body, hdrs = self.call("GET", table, expect=200)
        etag = hdrs.get("ETag")
        self.check(etag, "load: no ETag")
        self.check(body and body.get("metadata-location") == self.events_location,
                   "load: another metadata-location than create gave")
        self.call("GET", table, headers={"If-None-Match": etag or "x"}, expect=304)
        self.call("GET", table, query="snapshots=refs", expect=200)
        self.call("GET", table, query="snapshots=none", expect=400)
        self.call("GET", self.v1("namespaces", "db", "tables", "nothing"), expect=404)
        self.call("HEAD", table, expect=204)
        self.call("HEAD", self.v1("namespaces", "db", "tables", "nothing"), expect=404)
        # A staged create, then its commit with assert-create.
        _, body, _ = self.call("POST", tables, {"name": "staged", "schema": self.SCHEMA,
                                                "stage-create": True}, expect=200)
        self.check(body and "metadata-location" not in body, "staged create has a location")
        meta = (body or {}).get("metadata", {})
        commit = {"requirements": [{"type": "assert-create"}], "updates": [
            {"action": "assign-uuid", "uuid": meta.get("table-uuid", str(uuid.uuid4()))},
            {"action": "upgrade-format-version", "format-version": 2},
            {"action": "add-schema", "schema": self.SCHEMA},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "add-spec", "spec": {"spec-id": 0, "fields": []}},
            {"action": "set-default-spec", "spec-id": -1},
            {"action": "add-sort-order", "sort-order": {"order-id": 0, "fields": []}},
            {"action": "set-default-sort-order", "sort-order-id": -1},
            {"action": "set-location", "location": meta.get("location", "/tmp/x")},
            {"action": "set-properties", "updates": {"staged": "yes"}}]}
        staged = self.v1("namespaces", "db", "tables", "staged")
        self.call("HEAD", staged, expect=404)
        self.call("POST", staged, commit, expect=200)
        self.call("POST", staged, commit, expect=409)
        self.call("POST", self.v1("namespaces", "db", "tables", "events", "metrics"),
                  {"report-type": "commit-report", "table-name": "db.events", "snapshot-id": 1,
                   "sequence-number": 1, "operation": "append",
                   "metrics": {"total-records": {"unit": "count", "value": 0}}}, expect=204)
        self.call("POST", self.v1("namespaces", "db", "tables", "nothing", "metrics"),
                  {"report-type": "scan-report", "table-name": "db.nothing", "snapshot-id": 1,
                   "filter": True, "schema-id": 0, "projected-field-ids": [1],
                   "projected-field-names": ["id"], "metrics": {}}, expect=404)

    def append(self, table_uuid, parent, snapshot_id, sequence):
        snap = {"snapshot-id": snapshot_id, "sequence-number": sequence,
                "timestamp-ms": int(time.time() * 1000),
                "manifest-list": f"/nowhere/snap-{snapshot_id}.avro",
                "summary": {"operation": "append"}, "schema-id": 0}
        if parent is not None:
            snap["parent-snapshot-id"] = parent
        return {"requirements": [
            {"type": "assert-table-uuid", "uuid": table_uuid},
            {"type": "assert-ref-snapshot-id", "ref": "main", "snapshot-id": parent}],
            "updates": [{"action": "add-snapshot", "snapshot": snap},
                        {"action": "set-snapshot-ref", "ref-name": "main", "type": "branch",
                         "snapshot-id": snapshot_id}]}

    def commits(self):
        table = self.v1("namespaces", "db", "tables", "t1")
        _, body, _ = self.call("GET", table, expect=200)
        t1_uuid = ((body or {}).get("metadata") or {}).get("table-uuid", "")
        self.t1_uuid = t1_uuid
        # An append as a Java client sends it; snapshot-id null (trap 1).
        _, body, _ = self.call("POST", table, self.append(t1_uuid, None, 501, 1), expect=200)
        self.check(body and body["metadata"].get("current-snapshot-id") == 501, "append")
        self.call("POST", table, self.append(t1_uuid, None, 502, 1), expect=409)
        self.call("POST", table, {"requirements": [
            {"type": "assert-table-uuid", "uuid": str(uuid.uuid4())}], "updates": []},
            expect=409)
        self.call("POST", table, {"requirements": [], "updates": [
            {"action": "add-schema", "schema": dict(self.SCHEMA, fields=self.SCHEMA["fields"] + [
                {"id": 4, "name": "extra", "type": "double", "required": False}])},
            {"action": "set-current-schema", "schema-id": -1},
            {"action": "set-properties", "updates": {"k": "v"}},
            {"action": "remove-properties", "removals": ["nothing"]}]}, expect=200)
        # Unknown requirement and update: 400 (the requests are wrong on purpose).
        self.call("POST", table, {"requirements": [{"type": "assert-nothing"}], "updates": []},
                  expect=400, valid_request=False)
        self.call("POST", table, {"requirements": [], "updates": [{"action": "do-magic"}]},
                  expect=400, valid_request=False)
        self.call("POST", table, {"requirements": [], "updates": [
            {"action": "set-current-schema", "schema-id": 42}]}, expect=400)
        self.call("POST", self.v1("namespaces", "db", "tables", "nothing"),
                  {"requirements": [], "updates": []}, expect=404)
        self.call("POST", table, raw=b"{not json", expect=400)

    def transactions(self):
        path = self.v1("transactions", "commit")

        def change(name, key, requirements=()):
            return {"identifier": {"namespace": ["db"], "name": name},
                    "requirements": list(requirements),
                    "updates": [{"action": "set-properties", "updates": {key: "1"}}]}

        self.call("POST", path, {"table-changes": [change("t2", "both"), change("t3", "both")]},
                  expect=204)
        failing = {"type": "assert-current-schema-id", "current-schema-id": 77}
        self.call("POST", path, {"table-changes": [
            change("t2", "neither"), change("t3", "neither", [failing])]}, expect=409)
        self.call("POST", path, {"table-changes": [change("t2", "x"), change("zz", "x")]},
                  expect=404)
        for name in ("t2", "t3"):
            _, body, _ = self.call("GET", self.v1("namespaces", "db", "tables", name), expect=200)
            props = ((body or {}).get("metadata") or {}).get("properties", {})
            self.check("both" in props and "neither" not in props and "x" not in props,
                       f"transaction on {name}: properties {props}")
        self.call("POST", path, {"table-changes": [
            {"requirements": [], "updates": []}]}, expect=400, valid_request=False)

    def register_rename_drop(self):
        reg = self.v1("namespaces", "other", "register")
        self.call("POST", reg, {"name": "copy", "metadata-location": self.events_location},
                  expect=200)
        self.call("POST", reg, {"name": "copy", "metadata-location": self.events_location},
                  expect=409)
        self.call("POST", self.v1("namespaces", "nowhere", "register"),
                  {"name": "copy", "metadata-location": self.events_location}, expect=404)
        self.call("POST", reg, {"name": "copy", "metadata-location": self.events_location,
                                "overwrite": True}, expect=200)
        rename = self.v1("tables", "rename")

        def ident(ns, name):
            return {"namespace": [ns], "name": name}

        self.call("POST", rename, {"source": ident("other", "copy"),
                                   "destination": ident("other", "renamed")}, expect=204)
        self.call("POST", rename, {"source": ident("other", "copy"),
                                   "destination": ident("other", "again")}, expect=404)
        self.call("POST", rename, {"source": ident("other", "renamed"),
                                   "destination": ident("db", "events")}, expect=409)
        self.call("POST", rename, {"source": ident("other", "renamed"),
                                   "destination": ident("nowhere", "x")}, expect=404)
        self.call("HEAD", self.v1("namespaces", "other", "tables", "renamed"), expect=204)
        self.call("DELETE", self.v1("namespaces", "other", "tables", "renamed"),
                  query="purgeRequested=false", expect=204)
        self.call("DELETE", self.v1("namespaces", "other", "tables", "renamed"), expect=404)
        self.call("DELETE", self.v1("namespaces", "other"), expect=204)

    VIEW_SCHEMA = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "type": "long", "required": False},
        {"id": 2, "name": "v", "type": "string", "required": False}]}

    def view_version(self, version_id, sql, schema_id=-1):
        return {"version-id": version_id, "timestamp-ms": int(time.time() * 1000),
                "schema-id": schema_id, "summary": {"engine-name": "conformance"},
                "default-namespace": ["db"],
                "representations": [{"type": "sql", "sql": sql, "dialect": "spark"}]}

    def views(self):
        """Views: createView, loadView, replaceView, viewExists, listViews,
        renameView, registerView, dropView; tables and views never share a
        name."""
        views = self.v1("namespaces", "db", "views")
        create = {"name": "v", "schema": self.VIEW_SCHEMA,
                  "view-version": self.view_version(1, "SELECT id, v FROM db.events", 0),
                  "properties": {"comment": "conformance"}}
        _, body, _ = self.call("POST", views, create, expect=200)
        body = body or {}
        location = body.get("metadata-location")
        meta = body.get("metadata") or {}
        view_uuid = meta.get("view-uuid", "")
        self.check(meta.get("current-version-id") == 1 and len(meta.get("version-log", [])) == 1,
                   f"create view: {meta}")
        self.call("POST", views, create, expect=409)
        self.call("POST", views, dict(create, name="events"), expect=409)  # a table's name
        self.call("POST", self.v1("namespaces", "nowhere", "views"), create, expect=404)
        self.call("POST", views, {"name": "bad", "schema": self.VIEW_SCHEMA,
                                  "view-version": self.view_version(1, "SELECT 1", 7),
                                  "properties": {}}, expect=200)  # schema-id replaced
        _, body, _ = self.call("GET", views, expect=200)
        names = sorted(i.get("name") for i in (body or {}).get("identifiers", []))
        self.check(names == ["bad", "v"], f"list views: {names}")
        _, body, _ = self.call("GET", views, query="pageToken=&pageSize=1", expect=200)
        self.check(body and isinstance(body.get("next-page-token"), str), f"view page: {body}")
        self.call("GET", self.v1("namespaces", "nowhere", "views"), expect=404)
        _, body, _ = self.call("GET", self.v1("namespaces", "db", "tables"), expect=200)
        self.check(not any(i.get("name") in ("v", "bad") for i in (body or {}).get(
            "identifiers", [])), "a view is listed as a table")
        view = self.v1("namespaces", "db", "views", "v")
        _, body, _ = self.call("GET", view, expect=200)
        self.check(body and body.get("metadata-location") == location,
                   "load view: another metadata-location than create gave")
        self.call("GET", self.v1("namespaces", "db", "views", "events"), expect=404)
        self.call("GET", self.v1("namespaces", "db", "tables", "v"), expect=404)
        self.call("HEAD", view, expect=204)
        self.call("HEAD", self.v1("namespaces", "db", "views", "nothing"), expect=404)
        # A replace as the Java client sends it: a new schema and version.
        replace = {"identifier": {"namespace": ["db"], "name": "v"},
                   "requirements": [{"type": "assert-view-uuid", "uuid": view_uuid}],
                   "updates": [
                       {"action": "add-schema", "schema": dict(
                           self.VIEW_SCHEMA, fields=self.VIEW_SCHEMA["fields"] + [
                               {"id": 3, "name": "n", "type": "int", "required": False}])},
                       {"action": "add-view-version",
                        "view-version": self.view_version(2, "SELECT id, v, 1 AS n FROM db.events")},
                       {"action": "set-current-view-version", "view-version-id": -1},
                       {"action": "set-properties", "updates": {"owner": "ann"}},
                       {"action": "remove-properties", "removals": ["comment"]}]}
        _, body, _ = self.call("POST", view, replace, expect=200)
        meta = (body or {}).get("metadata") or {}
        self.check(meta.get("current-version-id") == 2 and len(meta.get("versions", [])) == 2
                   and [e.get("version-id") for e in meta.get("version-log", [])] == [1, 2]
                   and meta.get("properties") == {"owner": "ann"}, f"replace view: {meta}")
        self.check(body and body.get("metadata-location") != location, "replace: same file")
        stale = dict(replace, requirements=[{"type": "assert-view-uuid",
                                             "uuid": str(uuid.uuid4())}])
        self.call("POST", view, stale, expect=409)
        self.call("POST", view, {"updates": [
            {"action": "set-current-view-version", "view-version-id": 42}]}, expect=400)
        self.call("POST", view, {"requirements": [], "updates": [{"action": "add-snapshot"}]},
                  expect=400, valid_request=False)
        self.call("POST", self.v1("namespaces", "db", "views", "nothing"), {"updates": []},
                  expect=404)
        rename = self.v1("views", "rename")

        def ident(ns, name):
            return {"namespace": [ns], "name": name}

        self.call("POST", rename, {"source": ident("db", "bad"),
                                   "destination": ident("db", "events")}, expect=409)
        self.call("POST", rename, {"source": ident("db", "bad"),
                                   "destination": ident("db", "v")}, expect=409)
        self.call("POST", rename, {"source": ident("db", "nothing"),
                                   "destination": ident("db", "x")}, expect=404)
        self.call("POST", rename, {"source": ident("db", "bad"),
                                   "destination": ident("nowhere", "x")}, expect=404)
        self.call("POST", rename, {"source": ident("db", "bad"),
                                   "destination": ident("db", "good")}, expect=204)
        self.call("HEAD", self.v1("namespaces", "db", "views", "bad"), expect=404)
        _, body, _ = self.call("GET", view, expect=200)
        current = (body or {}).get("metadata-location")
        reg = self.v1("namespaces", "db", "register-view")
        _, body, _ = self.call("POST", reg, {"name": "copy", "metadata-location": current},
                               expect=200)
        self.check(body and body.get("metadata-location") == current, f"register view: {body}")
        self.call("POST", reg, {"name": "copy", "metadata-location": current}, expect=409)
        self.call("POST", self.v1("namespaces", "nowhere", "register-view"),
                  {"name": "copy", "metadata-location": current}, expect=404)
        for name in ("copy", "good"):
            self.call("DELETE", self.v1("namespaces", "db", "views", name), expect=204)
        self.call("DELETE", self.v1("namespaces", "db", "views", "good"), expect=404)
        self.view_location = current

    def errors_and_limits(self):
        # Routes the spec has but the server does not serve: 501 (declared by
        # every operation as 5XX) with the error model.
        if not any("/views" in e for e in self.endpoints):
            self.call("GET", self.v1("namespaces", "db", "views"), expect=501)
        self.call("POST", self.v1("namespaces", "db", "tables", "events", "plan"), {},
                  expect=501, valid_request=False)
        self.call("GET", self.v1("namespaces", "db", "tables", "events", "credentials"),
                  expect=501)
        # Not routes at all.
        self.call("GET", "/v1/nothing/here/at/all", expect=404)
        self.call("PUT", self.v1("namespaces"), {"namespace": ["x"]}, expect=405,
                  valid_request=False)
        big = {"namespace": ["big"], "properties": {"pad": "x" * (self.max_body + 1)}}
        self.call("POST", self.v1("namespaces"), big, expect=413)
        self.call("POST", self.v1("namespaces"), {"namespace": "flat"}, expect=400,
                  valid_request=False)

    def direct_commit(self, db_path):
        """A commit made in the SQLite catalog directly shows through REST."""
        con = sqlite3.connect(db_path)
        row = con.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                          "table_namespace = 'db' AND table_name = 'events'").fetchone()
        if not self.check(row, "direct: db.events is not in the catalog file"):
            return
        old = row[0]
        with open(old) as f:
            meta = json.load(f)
        now = int(time.time() * 1000)
        seq = meta.get("last-sequence-number", 0) + 1
        meta["snapshots"] = meta.get("snapshots", []) + [{
            "snapshot-id": 777, "sequence-number": seq, "timestamp-ms": now,
            "manifest-list": "/nowhere/snap-777.avro", "summary": {"operation": "append"},
            "schema-id": meta["current-schema-id"]}]
        meta["refs"] = {"main": {"snapshot-id": 777, "type": "branch"}}
        meta["current-snapshot-id"] = 777
        meta["last-sequence-number"] = seq
        meta["snapshot-log"] = meta.get("snapshot-log", []) + [
            {"snapshot-id": 777, "timestamp-ms": now}]
        meta["metadata-log"] = meta.get("metadata-log", []) + [
            {"metadata-file": old, "timestamp-ms": meta["last-updated-ms"]}]
        meta["last-updated-ms"] = now
        meta.setdefault("properties", {})["direct"] = "yes"
        version = int(old.rsplit("/", 1)[1].split("-", 1)[0]) + 1
        new = f"{meta['location']}/metadata/{version:05d}-{uuid.uuid4()}.metadata.json"
        with open(new, "x") as f:
            json.dump(meta, f)
        cur = con.execute("UPDATE iceberg_tables SET metadata_location = ?, "
                          "previous_metadata_location = ? WHERE table_namespace = 'db' AND "
                          "table_name = 'events' AND metadata_location = ?", (new, old, old))
        con.commit()
        con.close()
        self.check(cur.rowcount == 1, "direct: the guarded UPDATE did not change one row")
        table = self.v1("namespaces", "db", "tables", "events")
        _, body, _ = self.call("GET", table, expect=200)
        body = body or {}
        self.check(body.get("metadata-location") == new,
                   f"direct: REST loads {body.get('metadata-location')}, not {new}")
        m = body.get("metadata") or {}
        self.check(m.get("current-snapshot-id") == 777 and
                   m.get("properties", {}).get("direct") == "yes",
                   "direct: the commit does not show through REST")
        # A REST client still on the old state loses; on the new one it wins.
        self.call("POST", table, self.append(self.events_uuid, None, 778, seq), expect=409)
        self.call("POST", table, self.append(self.events_uuid, 777, 779, seq + 1), expect=200)

    def coverage(self):
        """Every advertised endpoint was answered with success at least once."""
        for endpoint in sorted(self.endpoints):
            method, template = endpoint.split(" ", 1)
            self.check((method, template) in self.covered,
                       f"endpoint {endpoint} was never exercised with success")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("base")
    parser.add_argument("--token")
    parser.add_argument("--catalog-db")
    parser.add_argument("--max-body", type=int, default=16 << 20)
    args = parser.parse_args()
    spec = Spec(args.spec)
    problems = spec.self_check()
    for p in problems:
        print(f"FAIL: validator self-check: {p}")
    if problems:
        return 1
    c = Conformance(spec, args.base, args.token, args.max_body)
    c.run(args.catalog_db)
    print(f"{c.checks - len(c.failures)} of {c.checks} checks passed, "
          f"{len(c.covered)} operations answered with success")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
