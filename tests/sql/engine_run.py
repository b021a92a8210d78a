#!/usr/bin/env python3
"""Run a `gpuaudit sql` query on an engine and write its answer (tests/sql.rs,
benches/sql.sh).

  engine_run.py duckdb QUERY.sql OUT.parquet|OUT.csv
  engine_run.py chdb   QUERY.sql OUT.parquet|OUT.csv
  engine_run.py spark  QUERY.sql OUT.csv INPUT.parquet|INPUT.csv
  engine_run.py chdb-otel QUERY.sql OUT.parquet|OUT.csv INPUT.parquet
  engine_run.py sqlglot-trino|sqlglot-bigquery QUERY.sql OUT.parquet|OUT.csv INPUT.parquet

DuckDB and chDB (embedded ClickHouse) read the samples through the query's
own table expression (read_parquet(...), file(...)); Spark (local mode)
registers INPUT as the view `samples`. chdb-otel loads INPUT (canonical
columns) into an `otel_metrics_gauge` table of the OpenTelemetry ClickHouse
exporter's schema, as dcgm-exporter's series scraped by the collector
arrive: one row per metric point, labels in Attributes, the exporter's own
pod beside the workload's exported_pod. sqlglot-trino and sqlglot-bigquery
parse the query with sqlglot's Trino or BigQuery grammar (error level
IMMEDIATE: the first error raises; an unsupported construct raises when
written out), transpile it to DuckDB and run it there with INPUT as the view
`samples`: no Trino or BigQuery runs here, so this checks that the text is
the dialect's grammar and that its meaning, as sqlglot reads it, gives the
figures. Exit 3 when the engine's package is
missing (the caller decides to skip or fail)."""
import csv
import sys


def duckdb_connect():
    """A DuckDB connection with the benches' settings, when given: DUCKDB_THREADS,
    DUCKDB_MEMORY_LIMIT ("12GB") and DUCKDB_TEMP_DIRECTORY (where a window that
    does not fit in memory spills; default .tmp under the working directory)."""
    import os

    import duckdb

    con = duckdb.connect()
    threads = os.environ.get("DUCKDB_THREADS")
    if threads:
        con.execute(f"SET threads TO {int(threads)}")
    limit = os.environ.get("DUCKDB_MEMORY_LIMIT")
    if limit:
        con.execute(f"SET memory_limit = '{limit}'")
    spill = os.environ.get("DUCKDB_TEMP_DIRECTORY")
    if spill:
        con.execute(f"SET temp_directory = '{spill}'")
    return con


def duckdb_run(query, out):
    answer = duckdb_connect().sql(query)
    if out.endswith(".parquet"):
        answer.write_parquet(out)
    else:
        answer.write_csv(out)


def chdb_run(query, out):
    import chdb

    fmt = "Parquet" if out.endswith(".parquet") else "CSVWithNames"
    with open(out, "wb") as f:
        f.write(chdb.query(query, fmt).bytes())


OTEL_SCHEMA = """
CREATE TABLE otel_metrics_gauge (
    ResourceAttributes Map(LowCardinality(String), String),
    ResourceSchemaUrl String,
    ScopeName String,
    ScopeVersion String,
    ScopeAttributes Map(LowCardinality(String), String),
    ScopeDroppedAttrCount UInt32,
    ScopeSchemaUrl String,
    ServiceName LowCardinality(String),
    MetricName String,
    MetricDescription String,
    MetricUnit String,
    Attributes Map(LowCardinality(String), String),
    StartTimeUnix DateTime64(9),
    TimeUnix DateTime64(9),
    Value Float64,
    Flags UInt32
) ENGINE = MergeTree ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))
"""

OTEL_LOAD = """
INSERT INTO otel_metrics_gauge (ServiceName, MetricName, MetricUnit, Attributes, TimeUnix, Value)
SELECT 'dcgm-exporter', m.1, '', map(
    'Hostname', host, 'UUID', gpu, 'gpu', '0', 'device', 'nvidia0', 'modelName', ifNull(model, ''),
    'container', 'nvidia-dcgm-exporter', 'namespace', 'gpu-operator',
    'pod', 'nvidia-dcgm-exporter-x7k2p', 'job', 'nvidia-dcgm-exporter',
    'exported_pod', ifNull(job, ''), 'exported_namespace', if(job IS NULL, '', ifNull(team, '')),
    'exported_container', 'main'),
  toDateTime64(time, 9, 'UTC'), assumeNotNull(m.2)
FROM file('{source}', Parquet)
ARRAY JOIN [
    ('DCGM_FI_DEV_GPU_UTIL', device_util * 100),
    ('DCGM_FI_PROF_SM_ACTIVE', sm_active),
    ('DCGM_FI_PROF_SM_OCCUPANCY', sm_occupancy),
    ('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', tensor_active),
    ('DCGM_FI_PROF_DRAM_ACTIVE', dram_active),
    ('DCGM_FI_DEV_FB_USED', mem_used_bytes / 1048576),
    ('DCGM_FI_DEV_POWER_USAGE', power_w)] AS m
WHERE m.2 IS NOT NULL
"""


def chdb_otel_run(query, out, source):
    from chdb import session

    s = session.Session()
    s.query("CREATE DATABASE IF NOT EXISTS otel")
    s.query("USE otel")
    s.query(OTEL_SCHEMA)
    s.query(OTEL_LOAD.replace("{source}", source.replace("'", "''")))
    fmt = "Parquet" if out.endswith(".parquet") else "CSVWithNames"
    with open(out, "wb") as f:
        f.write(s.query(query, fmt).bytes())
    s.close()


def sqlglot_run(dialect, query, out, source):
    import duckdb
    import sqlglot
    from sqlglot import ErrorLevel

    tree = sqlglot.parse_one(query, read=dialect, error_level=ErrorLevel.IMMEDIATE)
    sql = tree.sql(dialect="duckdb", unsupported_level=ErrorLevel.RAISE)
    con = duckdb.connect()
    reader = "read_parquet" if source.endswith(".parquet") else "read_csv"
    con.sql(f"CREATE VIEW samples AS SELECT * FROM {reader}('{source}')")
    answer = con.sql(sql)
    if out.endswith(".parquet"):
        answer.write_parquet(out)
    else:
        answer.write_csv(out)


def spark_run(query, out, source):
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]")
        .appName("gpuaudit-sql")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    if source.endswith(".parquet"):
        frame = spark.read.parquet(source)
    else:
        frame = spark.read.csv(source, header=True, inferSchema=True)
    frame.createOrReplaceTempView("samples")
    answer = spark.sql(query)
    rows = answer.collect()
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(answer.columns)
        for r in rows:
            w.writerow(["" if v is None else str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, float) else v for v in r])
    spark.stop()


def main():
    engine, query_file, out = sys.argv[1:4]
    with open(query_file) as f:
        query = f.read()
    try:
        if engine == "duckdb":
            duckdb_run(query, out)
        elif engine == "chdb":
            chdb_run(query, out)
        elif engine == "chdb-otel":
            chdb_otel_run(query, out, sys.argv[4])
        elif engine in ("sqlglot-trino", "sqlglot-bigquery"):
            sqlglot_run(engine.split("-")[1], query, out, sys.argv[4])
        elif engine == "spark":
            spark_run(query, out, sys.argv[4])
        else:
            sys.exit(f"unknown engine {engine}")
    except ImportError as e:
        print(e, file=sys.stderr)
        sys.exit(3)


main()
