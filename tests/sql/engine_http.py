#!/usr/bin/env python3
"""A small HTTP server that speaks an engine's protocol and runs the SQL on a
real engine (tests/sql_http.rs): no ClickHouse server or Trino is installable
on the test machines.

  engine_http.py clickhouse [--user U --password P]
  engine_http.py trino SAMPLES.parquet [--user U --password P] [--page N] [--die-after-pages K]

clickhouse: ClickHouse's HTTP interface (POST the query; default_format from
the URL; X-ClickHouse-User/X-ClickHouse-Key) on chDB, the ClickHouse engine
itself; an error is HTTP 500 with ClickHouse's "Code: N. DB::Exception: ..."
text. trino: Trino's REST protocol (POST /v1/statement with X-Trino-User,
then nextUri pages of N rows; an error object on failure), the SQL read with
sqlglot's Trino grammar (error level IMMEDIATE), transpiled to DuckDB and run
there with SAMPLES as the view `samples`; --die-after-pages K exits the
process when page K+1 is asked for (a server that goes away mid-paging).
With --user, a request without those credentials gets 401. Prints the port
it listens on (127.0.0.1, chosen free) as its first line; exit 3 when the
engine's package is missing."""
import base64
import json
import math
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

ARGS = {}
RESULTS = {}
LOCK = threading.Lock()
PAGES = [0]


def parse_args(argv):
    out = {"engine": argv[0], "page": 50, "die": None, "user": None, "password": None, "samples": None}
    rest = argv[1:]
    if out["engine"] == "trino":
        out["samples"] = rest.pop(0)
    while rest:
        k = rest.pop(0)
        v = rest.pop(0)
        key = {"--user": "user", "--password": "password", "--page": "page", "--die-after-pages": "die"}[k]
        out[key] = int(v) if key in ("page", "die") else v
    return out


def credentials(headers):
    """(user, password) the request carries: engine headers or basic auth."""
    auth = headers.get("Authorization", "")
    if auth.startswith("Basic "):
        u, _, p = base64.b64decode(auth[6:]).decode().partition(":")
        return u, p
    if ARGS["engine"] == "clickhouse":
        return headers.get("X-ClickHouse-User"), headers.get("X-ClickHouse-Key")
    return headers.get("X-Trino-User"), None


def json_cell(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    return v


def trino_type(t):
    t = str(t).upper()
    if t in ("BIGINT", "INTEGER", "HUGEINT", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER"):
        return "bigint"
    if t in ("DOUBLE", "FLOAT") or t.startswith("DECIMAL"):
        return "double"
    if t == "BOOLEAN":
        return "boolean"
    return "varchar"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, body, ctype="text/plain; charset=UTF-8", extra=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if ARGS["user"] is None:
            return True
        u, p = credentials(self.headers)
        if u == ARGS["user"] and (ARGS["password"] is None or p == ARGS["password"]):
            return True
        self.reply(401, "Code: 516. DB::Exception: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)"
                   if ARGS["engine"] == "clickhouse" else "Unauthorized")
        return False

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        if not self.authorized():
            return
        if ARGS["engine"] == "clickhouse":
            self.clickhouse(body)
        elif self.path == "/v1/statement":
            self.trino_start(body)
        else:
            self.reply(404, "not found")

    def do_GET(self):
        if not self.authorized():
            return
        if ARGS["engine"] == "trino" and self.path.startswith("/v1/statement/"):
            self.trino_page()
        else:
            self.reply(404, "not found")

    def clickhouse(self, query):
        import chdb

        params = parse_qs(urlparse(self.path).query)
        fmt = params.get("default_format", ["TabSeparated"])[0]
        try:
            out = chdb.query(query, fmt).bytes()
        except Exception as e:  # chDB raises the engine's own message
            text = str(e)
            if not text.startswith("Code:"):
                text = "Code: 1000. DB::Exception: " + text
            self.reply(500, text + "\n", extra={"X-ClickHouse-Exception-Code": "60"})
            return
        self.reply(200, out, extra={"X-ClickHouse-Format": fmt})

    def trino_start(self, query):
        import duckdb
        import sqlglot
        from sqlglot import ErrorLevel

        qid = uuid.uuid4().hex
        base = f"http://{self.headers.get('Host')}"
        if not self.headers.get("X-Trino-User"):
            self.reply(400, "Error: X-Trino-User must be set")
            return
        try:
            tree = sqlglot.parse_one(query, read="trino", error_level=ErrorLevel.IMMEDIATE)
            sql = tree.sql(dialect="duckdb", unsupported_level=ErrorLevel.RAISE)
            con = duckdb.connect()
            con.sql(f"CREATE VIEW samples AS SELECT * FROM read_parquet('{ARGS['samples']}')")
            rel = con.sql(sql)
            columns = [{"name": n, "type": trino_type(t)} for n, t in zip(rel.columns, rel.types)]
            rows = [[json_cell(v) for v in r] for r in rel.fetchall()]
            result = {"columns": columns, "rows": rows}
        except Exception as e:
            result = {"error": {"message": str(e).splitlines()[0], "errorCode": 1,
                                "errorName": "GENERIC_USER_ERROR", "errorType": "USER_ERROR"}}
        with LOCK:
            RESULTS[qid] = result
        # the first answer carries no data, as Trino's QUEUED one
        self.reply(200, json.dumps({"id": qid, "infoUri": f"{base}/ui/{qid}",
                                    "nextUri": f"{base}/v1/statement/executing/{qid}/0",
                                    "stats": {"state": "QUEUED"}}), "application/json")

    def trino_page(self):
        parts = self.path.rstrip("/").split("/")
        qid, k = parts[-2], int(parts[-1])
        base = f"http://{self.headers.get('Host')}"
        with LOCK:
            PAGES[0] += 1
            served = PAGES[0]
            result = RESULTS.get(qid)
        if ARGS["die"] is not None and served > ARGS["die"]:
            os._exit(0)
        if result is None:
            self.reply(404, "no such query")
            return
        doc = {"id": qid, "infoUri": f"{base}/ui/{qid}"}
        if "error" in result:
            doc.update({"stats": {"state": "FAILED"}, "error": result["error"]})
        else:
            n = ARGS["page"]
            rows = result["rows"][k * n:(k + 1) * n]
            doc["columns"] = result["columns"]
            if rows:
                doc["data"] = rows
            if (k + 1) * n < len(result["rows"]):
                doc["nextUri"] = f"{base}/v1/statement/executing/{qid}/{k + 1}"
                doc["stats"] = {"state": "RUNNING"}
            else:
                doc["stats"] = {"state": "FINISHED"}
        self.reply(200, json.dumps(doc), "application/json")


def main():
    ARGS.update(parse_args(sys.argv[1:]))
    try:
        if ARGS["engine"] == "clickhouse":
            import chdb  # noqa: F401
        else:
            import duckdb  # noqa: F401
            import sqlglot  # noqa: F401
    except ImportError as e:
        print(e, file=sys.stderr)
        sys.exit(3)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


main()
