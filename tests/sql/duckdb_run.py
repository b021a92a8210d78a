#!/usr/bin/env python3
"""Run a query with DuckDB and write its answer (tests/sql.rs, benches/sql.sh).

  duckdb_run.py QUERY.sql OUT.parquet|OUT.csv

Exit 3 when the duckdb package is missing (the caller decides to skip or fail)."""
import sys

try:
    import duckdb
except ImportError:
    sys.exit(3)

with open(sys.argv[1]) as f:
    query = f.read()
con = duckdb.connect()
answer = con.sql(query)
if sys.argv[2].endswith(".parquet"):
    answer.write_parquet(sys.argv[2])
else:
    answer.write_csv(sys.argv[2])
