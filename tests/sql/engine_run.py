#!/usr/bin/env python3
"""Run a `gpuaudit sql` query on an engine and write its answer (tests/sql.rs,
benches/sql.sh).

  engine_run.py duckdb QUERY.sql OUT.parquet|OUT.csv
  engine_run.py chdb   QUERY.sql OUT.parquet|OUT.csv
  engine_run.py spark  QUERY.sql OUT.csv INPUT.parquet|INPUT.csv

DuckDB and chDB (embedded ClickHouse) read the samples through the query's
own table expression (read_parquet(...), file(...)); Spark (local mode)
registers INPUT as the view `samples`. Exit 3 when the engine's package is
missing (the caller decides to skip or fail)."""
import csv
import sys


def duckdb_run(query, out):
    import duckdb

    answer = duckdb.connect().sql(query)
    if out.endswith(".parquet"):
        answer.write_parquet(out)
    else:
        answer.write_csv(out)


def chdb_run(query, out):
    import chdb

    fmt = "Parquet" if out.endswith(".parquet") else "CSVWithNames"
    with open(out, "wb") as f:
        f.write(chdb.query(query, fmt).bytes())


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
        elif engine == "spark":
            spark_run(query, out, sys.argv[4])
        else:
            sys.exit(f"unknown engine {engine}")
    except ImportError as e:
        print(e, file=sys.stderr)
        sys.exit(3)


main()
