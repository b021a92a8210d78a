# Writes small-fleet.pyarrow.parquet from small-fleet.csv with pyarrow, so a
# test proves gpuaudit reads parquet written by another tool.
# Made with: python3 make-pyarrow-parquet.py   (pyarrow 26)
import pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq
t = pc.read_csv("small-fleet.csv", convert_options=pc.ConvertOptions(
    column_types={"time": pa.timestamp("us", tz="UTC"), "mem_used_bytes": pa.int64()},
    strings_can_be_null=True))
pq.write_table(t, "small-fleet.pyarrow.parquet", compression="snappy")
