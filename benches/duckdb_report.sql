-- The figures of `gpuaudit report --format json` (docs/semantics.md §2-6), as ONE
-- DuckDB query over the demo fleet, for the side-by-side benchmark (benches/fleet.sh).
-- {source} is replaced by a read_parquet(...) call by benches/duckdb_report.py.
-- Assumes what the demo data has: a job column (held rule 2), no --max-gap, --since,
-- --until, --interval or --price, and the built-in price profile (docs/semantics.md §6, §9).
-- Time is integer microseconds since the epoch, gpuaudit's tick (docs/semantics.md §1
-- "Time", §2): a ms column converts exactly, a ns one is truncated; weights are whole us.
WITH raw AS (
    SELECT host, gpu, model, job, device_util, sm_active, tensor_active,
           epoch_us(time) AS t,
           -- input order, so that "first kept" among duplicates means first read
           file_index::BIGINT * 4294967296 + file_row_number AS ord
    FROM {source}
),
seq AS (
    SELECT host, gpu, model, job, device_util, sm_active, tensor_active, t,
           ord = min(ord) OVER peers AS kept,
           -- the next distinct time of this GPU (NULL for its last sample)
           first_value(t) OVER after - t AS diff
    FROM raw
    WINDOW peers AS (PARTITION BY host, gpu ORDER BY t
                     RANGE BETWEEN CURRENT ROW AND CURRENT ROW),
           after AS (PARTITION BY host, gpu ORDER BY t
                     RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
),
steps AS (
    -- step = median by rank of the positive consecutive differences of a GPU's kept
    -- samples (docs/semantics.md §2); with an even count the mean of the middle two,
    -- truncated to the microsecond. quantile_cont gives that mean exactly (integers
    -- below 2^52 us and their halves are exact doubles), floor truncates it.
    SELECT host, gpu, floor(quantile_cont(diff, 0.5))::BIGINT AS step
    FROM seq WHERE kept AND diff IS NOT NULL GROUP BY host, gpu
),
stepped AS (
    SELECT seq.*, steps.step FROM seq LEFT JOIN steps USING (host, gpu)
),
weighted AS (
    SELECT kept, device_util, sm_active, tensor_active,
           -- a duplicate weighs nothing (it stays only to be counted);
           -- max_gap = 3 x step; the last sample weighs min(step, max_gap) = step;
           -- a GPU with a single sample is a snapshot and weighs one hour
           CASE WHEN NOT kept THEN 0
                WHEN step IS NULL THEN 3600000000
                ELSE least(coalesce(diff, step), 3 * step) END AS w_us,
           CASE WHEN kept AND diff > 3 * step THEN diff - 3 * step ELSE 0 END AS unobserved_us,
           job IS NOT NULL AND job <> '' AS held,
           CASE model WHEN 'NVIDIA H100 80GB HBM3' THEN 3.00
                      WHEN 'NVIDIA L40S' THEN 2.00
                      WHEN 'NVIDIA A100-SXM4-80GB' THEN 1.50 END::DOUBLE AS price
    FROM stepped
),
hours AS (
    SELECT *, w_us / 3600000000.0 AS w,
           held AND device_util < 0.01 AS idle
    FROM weighted
)
-- a sum over no rows is 0, as in gpuaudit (the demo has every column)
SELECT
    count(*) FILTER (WHERE kept) AS rows_used,
    count(*) FILTER (WHERE NOT kept) AS duplicates,
    coalesce(sum(w_us) / 3600000000.0, 0) AS observed_gpu_hours,
    coalesce(sum(w_us) FILTER (WHERE held) / 3600000000.0, 0) AS held_gpu_hours,
    coalesce(fsum(w * device_util) FILTER (WHERE held), 0) AS active_gpu_hours,
    coalesce(fsum(w * sm_active) FILTER (WHERE held), 0) AS sm_active_gpu_hours,
    coalesce(fsum(w * tensor_active) FILTER (WHERE held), 0) AS tensor_active_gpu_hours,
    coalesce(sum(w_us) FILTER (WHERE idle) / 3600000000.0, 0) AS idle_held_gpu_hours,
    coalesce(sum(unobserved_us) / 3600000000.0, 0) AS unobserved_gpu_hours,
    coalesce(fsum(w * price) FILTER (WHERE held), 0) AS held_usd,
    coalesce(fsum(w * price) FILTER (WHERE idle), 0) AS idle_held_usd,
    coalesce(fsum(w * price) FILTER (WHERE NOT held), 0) AS unallocated_usd
FROM hours
