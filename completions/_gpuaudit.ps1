
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'gpuaudit' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'gpuaudit'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'gpuaudit' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Write the canonical sample table of any input as parquet: a CSV export read once, reports on the copy read it fast')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Sample this node''s GPUs live through NVML: who holds each card, is it busy, what idle costs')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'What a term of the report means (leak classes, shapes, gang, MTBI, spare...); every term without one')
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'The audit as one SQL query for an engine that holds the samples (DuckDB, ClickHouse, Spark, Trino, BigQuery); read its answer with report --partials')
            [CompletionResult]::new('mfu', 'mfu', [CompletionResultType]::ParameterValue, 'MFU calculator: model FLOP/s from throughput and model size over the GPUs'' dense peak')
            [CompletionResult]::new('peaks', 'peaks', [CompletionResultType]::ParameterValue, 'The dense peak TFLOP/s table MFU is measured against, with sources')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Fail a CI build when utilization regresses: rules on a run''s report, against a baseline')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpuaudit;report' {
            [CompletionResult]::new('--partials', '--partials', [CompletionResultType]::ParameterName, 'Report from an engine''s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Narrow the series with label matchers, e.g. ''{cluster="a"}''')
            [CompletionResult]::new('--prom-token', '--prom-token', [CompletionResultType]::ParameterName, 'Bearer token for the server (never printed)')
            [CompletionResult]::new('--prom-user', '--prom-user', [CompletionResultType]::ParameterName, 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)')
            [CompletionResult]::new('--prom-password', '--prom-password', [CompletionResultType]::ParameterName, 'Basic-auth password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--prom-timeout', '--prom-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long')
            [CompletionResult]::new('--prom-retries', '--prom-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--hosts-per-query', '--hosts-per-query', [CompletionResultType]::ParameterName, 'Hosts per query: smaller keeps memory lower, larger makes fewer requests')
            [CompletionResult]::new('--prom-concurrency', '--prom-concurrency', [CompletionResultType]::ParameterName, 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number')
            [CompletionResult]::new('--prom-compression', '--prom-compression', [CompletionResultType]::ParameterName, 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)')
            [CompletionResult]::new('--clickhouse', '--clickhouse', [CompletionResultType]::ParameterName, 'Run the audit''s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--trino', '--trino', [CompletionResultType]::ParameterName, 'Run the audit''s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--sql-table', '--sql-table', [CompletionResultType]::ParameterName, 'The engine''s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`')
            [CompletionResult]::new('--sql-schema', '--sql-schema', [CompletionResultType]::ParameterName, 'How the table lays samples out (otel: ClickHouse''s OpenTelemetry exporter table)')
            [CompletionResult]::new('--sql-user', '--sql-user', [CompletionResultType]::ParameterName, 'The engine''s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD')
            [CompletionResult]::new('--sql-password', '--sql-password', [CompletionResultType]::ParameterName, 'The user''s password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--sql-timeout', '--sql-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long (ClickHouse answers the whole query in one)')
            [CompletionResult]::new('--sql-retries', '--sql-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of going by its extension')
            [CompletionResult]::new('--map', '--map', [CompletionResultType]::ParameterName, 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file''s modification time')
            [CompletionResult]::new('--job-label', '--job-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the job. Default: the workload''s pod (exported_pod, or pod when it is not the exporter''s own), else hpc_job. Prometheus'' own job and instance labels name the scrape target, never a workload')
            [CompletionResult]::new('--team-label', '--team-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the team. Default: the workload''s namespace')
            [CompletionResult]::new('--align', '--align', [CompletionResultType]::ParameterName, 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series'' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table''s columns as `gpuaudit sql --columns` takes them')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)')
            [CompletionResult]::new('--max-gap', '--max-gap', [CompletionResultType]::ParameterName, 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]')
            [CompletionResult]::new('--idle-below', '--idle-below', [CompletionResultType]::ParameterName, 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)')
            [CompletionResult]::new('--min-idle', '--min-idle', [CompletionResultType]::ParameterName, 'List idle episodes at least this long; shorter ones still count in idle hours')
            [CompletionResult]::new('--held-mem', '--held-mem', [CompletionResultType]::ParameterName, 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)')
            [CompletionResult]::new('--price', '--price', [CompletionResultType]::ParameterName, 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Showback: group layers and cost by this label')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many idle episodes to list (all in JSON output unless set)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]')
            [CompletionResult]::new('--leak-thresholds', '--leak-thresholds', [CompletionResultType]::ParameterName, 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below')
            [CompletionResult]::new('--want', '--want', [CompletionResultType]::ParameterName, 'GPUs asked for: the purchase answer says whether idle capacity covers them')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response')
            [CompletionResult]::new('--queue-tz', '--queue-tz', [CompletionResultType]::ParameterName, 'The zone of `--queue` times printed without one (sacct prints the cluster''s local time): UTC or a fixed offset (+02:00) [default: UTC]')
            [CompletionResult]::new('--min-window', '--min-window', [CompletionResultType]::ParameterName, 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict')
            [CompletionResult]::new('--own-cost', '--own-cost', [CompletionResultType]::ParameterName, 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format [default: from -o''s extension (.html, .json, .csv, .md), else table]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output; its extension picks the format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the report to FILE instead of standard output; its extension picks the format')
            [CompletionResult]::new('--table', '--table', [CompletionResultType]::ParameterName, 'The table `--format csv` writes')
            [CompletionResult]::new('--width', '--width', [CompletionResultType]::ParameterName, 'Lay tables out for this many columns [default: COLUMNS, else the terminal''s width; no limit when stdout is not a terminal]')
            [CompletionResult]::new('--title', '--title', [CompletionResultType]::ParameterName, 'The HTML page''s heading (--format html) [default: "GPU audit: held vs used"]')
            [CompletionResult]::new('--pushdown', '--pushdown', [CompletionResultType]::ParameterName, 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report''s notes)')
            [CompletionResult]::new('--prom-queue', '--prom-queue', [CompletionResultType]::ParameterName, 'Also read demand from the server''s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)')
            [CompletionResult]::new('--assume-held', '--assume-held', [CompletionResultType]::ParameterName, 'Treat every sample as held when the input has no held, job or memory column')
            [CompletionResult]::new('--no-builtin-prices', '--no-builtin-prices', [CompletionResultType]::ParameterName, 'Do not fall back to the built-in dated price profile for unpriced models')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--per-gpu', '--per-gpu', [CompletionResultType]::ParameterName, 'Idle episodes one row per GPU, not one per job and span')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;convert' {
            [CompletionResult]::new('--partials', '--partials', [CompletionResultType]::ParameterName, 'Report from an engine''s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Narrow the series with label matchers, e.g. ''{cluster="a"}''')
            [CompletionResult]::new('--prom-token', '--prom-token', [CompletionResultType]::ParameterName, 'Bearer token for the server (never printed)')
            [CompletionResult]::new('--prom-user', '--prom-user', [CompletionResultType]::ParameterName, 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)')
            [CompletionResult]::new('--prom-password', '--prom-password', [CompletionResultType]::ParameterName, 'Basic-auth password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--prom-timeout', '--prom-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long')
            [CompletionResult]::new('--prom-retries', '--prom-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--hosts-per-query', '--hosts-per-query', [CompletionResultType]::ParameterName, 'Hosts per query: smaller keeps memory lower, larger makes fewer requests')
            [CompletionResult]::new('--prom-concurrency', '--prom-concurrency', [CompletionResultType]::ParameterName, 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number')
            [CompletionResult]::new('--prom-compression', '--prom-compression', [CompletionResultType]::ParameterName, 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)')
            [CompletionResult]::new('--clickhouse', '--clickhouse', [CompletionResultType]::ParameterName, 'Run the audit''s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--trino', '--trino', [CompletionResultType]::ParameterName, 'Run the audit''s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--sql-table', '--sql-table', [CompletionResultType]::ParameterName, 'The engine''s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`')
            [CompletionResult]::new('--sql-schema', '--sql-schema', [CompletionResultType]::ParameterName, 'How the table lays samples out (otel: ClickHouse''s OpenTelemetry exporter table)')
            [CompletionResult]::new('--sql-user', '--sql-user', [CompletionResultType]::ParameterName, 'The engine''s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD')
            [CompletionResult]::new('--sql-password', '--sql-password', [CompletionResultType]::ParameterName, 'The user''s password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--sql-timeout', '--sql-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long (ClickHouse answers the whole query in one)')
            [CompletionResult]::new('--sql-retries', '--sql-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of going by its extension')
            [CompletionResult]::new('--map', '--map', [CompletionResultType]::ParameterName, 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file''s modification time')
            [CompletionResult]::new('--job-label', '--job-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the job. Default: the workload''s pod (exported_pod, or pod when it is not the exporter''s own), else hpc_job. Prometheus'' own job and instance labels name the scrape target, never a workload')
            [CompletionResult]::new('--team-label', '--team-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the team. Default: the workload''s namespace')
            [CompletionResult]::new('--align', '--align', [CompletionResultType]::ParameterName, 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series'' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table''s columns as `gpuaudit sql --columns` takes them')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The parquet file to write (replaced whole, never left half-written)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The parquet file to write (replaced whole, never left half-written)')
            [CompletionResult]::new('--pushdown', '--pushdown', [CompletionResultType]::ParameterName, 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report''s notes)')
            [CompletionResult]::new('--prom-queue', '--prom-queue', [CompletionResultType]::ParameterName, 'Also read demand from the server''s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;demo' {
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Where to write the synthetic fleet (.parquet, .csv or .ndjson); a path without extension with --partition-by-day becomes a hive-partitioned directory')
            [CompletionResult]::new('--gpus', '--gpus', [CompletionResultType]::ParameterName, 'Number of GPUs (rounded up to whole 8-GPU nodes)')
            [CompletionResult]::new('--days', '--days', [CompletionResultType]::ParameterName, 'Days of samples')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Sampling interval (e.g. 5m, 30s)')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Seed of the deterministic generator')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'First sample time (RFC 3339)')
            [CompletionResult]::new('--partition-by-day', '--partition-by-day', [CompletionResultType]::ParameterName, 'Write one parquet file per day under OUT/day=YYYY-MM-DD/ (hive partitions)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;scan' {
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long to sample (e.g. 5s, 1m). With a CMD, its lifetime instead')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Time between samples (at least 100ms)')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'With a CMD: sample this long before starting it (e.g. 10s, for the idle baseline)')
            [CompletionResult]::new('--post', '--post', [CompletionResultType]::ParameterName, 'With a CMD: go on sampling this long after it exits (e.g. 10s)')
            [CompletionResult]::new('--nvml-timeout', '--nvml-timeout', [CompletionResultType]::ParameterName, 'Give up on a GPU whose NVML reading takes longer than this (a hung driver call); the other GPUs go on being sampled')
            [CompletionResult]::new('--nvml-lib', '--nvml-lib', [CompletionResultType]::ParameterName, 'The NVML library to load instead of the driver''s libnvidia-ml.so.1')
            [CompletionResult]::new('--out', '--out', [CompletionResultType]::ParameterName, 'Also write the samples (canonical columns) to FILE: .parquet, .csv or .ndjson')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)')
            [CompletionResult]::new('--max-gap', '--max-gap', [CompletionResultType]::ParameterName, 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]')
            [CompletionResult]::new('--idle-below', '--idle-below', [CompletionResultType]::ParameterName, 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)')
            [CompletionResult]::new('--min-idle', '--min-idle', [CompletionResultType]::ParameterName, 'List idle episodes at least this long; shorter ones still count in idle hours')
            [CompletionResult]::new('--price', '--price', [CompletionResultType]::ParameterName, 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Showback: group layers and cost by this label')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many idle episodes to list (all in JSON output unless set)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]')
            [CompletionResult]::new('--leak-thresholds', '--leak-thresholds', [CompletionResultType]::ParameterName, 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below')
            [CompletionResult]::new('--want', '--want', [CompletionResultType]::ParameterName, 'GPUs asked for: the purchase answer says whether idle capacity covers them')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response')
            [CompletionResult]::new('--queue-tz', '--queue-tz', [CompletionResultType]::ParameterName, 'The zone of `--queue` times printed without one (sacct prints the cluster''s local time): UTC or a fixed offset (+02:00) [default: UTC]')
            [CompletionResult]::new('--min-window', '--min-window', [CompletionResultType]::ParameterName, 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict')
            [CompletionResult]::new('--own-cost', '--own-cost', [CompletionResultType]::ParameterName, 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)')
            [CompletionResult]::new('--tokens-per-sec', '--tokens-per-sec', [CompletionResultType]::ParameterName, 'Tokens per second the job on this node processes (e.g. 12.5K); needs --flops-per-token or --params')
            [CompletionResult]::new('--flops-per-token', '--flops-per-token', [CompletionResultType]::ParameterName, 'Model FLOPs per token')
            [CompletionResult]::new('--params', '--params', [CompletionResultType]::ParameterName, 'Parameter count (70B, 7b, 540.35e9): 6N FLOPs per token training, 2N inference')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'train (6N) or inference (2N), for --params')
            [CompletionResult]::new('--achieved-tflops', '--achieved-tflops', [CompletionResultType]::ParameterName, 'Achieved model TFLOP/s of the job on this node, when known (instead of the above)')
            [CompletionResult]::new('--dtype', '--dtype', [CompletionResultType]::ParameterName, 'Number format the job runs in: picks each GPU''s dense peak [default: bf16]')
            [CompletionResult]::new('--snapshot-interval', '--snapshot-interval', [CompletionResultType]::ParameterName, 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]')
            [CompletionResult]::new('--held-mem', '--held-mem', [CompletionResultType]::ParameterName, 'A GPU using more memory than this is held, even with no process visible (e.g. 1GiB, 512MiB)')
            [CompletionResult]::new('--once', '--once', [CompletionResultType]::ParameterName, 'Take one sample per GPU (after one interval) and report it as a snapshot')
            [CompletionResult]::new('--require-nvml', '--require-nvml', [CompletionResultType]::ParameterName, 'With a CMD: exit 2 without running it when sampling cannot start (NVML missing, no driver, no GPU). Without this flag CMD runs unmonitored, gpuaudit exits with its code and says why on one stderr line')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--assume-held', '--assume-held', [CompletionResultType]::ParameterName, 'Treat every sample as held when the input has no held, job or memory column')
            [CompletionResult]::new('--no-builtin-prices', '--no-builtin-prices', [CompletionResultType]::ParameterName, 'Do not fall back to the built-in dated price profile for unpriced models')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;explain' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;sql' {
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'The engine the query is written for')
            [CompletionResult]::new('--table', '--table', [CompletionResultType]::ParameterName, 'The table (or view, or a table function such as read_parquet(''x.parquet'')) holding the samples')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The table''s columns, canonical names (time, host, gpu, model, held, job, user, team, device_util, sm_active, sm_occupancy, tensor_active, dram_active, mem_used_bytes, mem_total_bytes, power_w) or CANONICAL=SOURCE [default: the columns `gpuaudit demo` writes]')
            [CompletionResult]::new('--schema', '--schema', [CompletionResultType]::ParameterName, 'How the table lays samples out (otel: ClickHouse only)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Keep samples at or after this time (RFC 3339 or a date; a span needs the data''s end: not here)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Keep samples before this time (RFC 3339 or a date)')
            [CompletionResult]::new('--max-gap', '--max-gap', [CompletionResultType]::ParameterName, 'A gap longer than this is unobserved [default: 3 x the GPU''s median sample step]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'What a single-sample GPU''s sample stands for [default: 1h, or the fleet''s step in a series]')
            [CompletionResult]::new('--idle-below', '--idle-below', [CompletionResultType]::ParameterName, 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)')
            [CompletionResult]::new('--held-mem', '--held-mem', [CompletionResultType]::ParameterName, 'Without a held or job column, a GPU using more memory than this is held')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Showback: group the partial sums by this label (give report --partials the same --by)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'Timeline bucket (e.g. 1h): the answer carries the sums per bucket too, and report --partials renders the timeline and the purchase answer from them')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the query to FILE instead of standard output')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the query to FILE instead of standard output')
            [CompletionResult]::new('--assume-held', '--assume-held', [CompletionResultType]::ParameterName, 'Treat every sample as held when the table has no held, job or memory column')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;mfu' {
            [CompletionResult]::new('--gpus', '--gpus', [CompletionResultType]::ParameterName, 'Number of GPUs (chips) the job runs on (16384 or 16,384)')
            [CompletionResult]::new('--peak-tflops', '--peak-tflops', [CompletionResultType]::ParameterName, 'Dense peak TFLOP/s of one GPU for the dtype, instead of --gpu')
            [CompletionResult]::new('--dtype', '--dtype', [CompletionResultType]::ParameterName, 'Number format the model runs in: picks the peak')
            [CompletionResult]::new('--tokens-per-sec', '--tokens-per-sec', [CompletionResultType]::ParameterName, 'Tokens per second of the whole job, all GPUs together (e.g. 238.3K or 238,300); needs --gpus')
            [CompletionResult]::new('--tokens-per-sec-per-gpu', '--tokens-per-sec-per-gpu', [CompletionResultType]::ParameterName, 'Tokens per second of one GPU (the whole job''s rate divided by its GPUs)')
            [CompletionResult]::new('--tokens-per-step', '--tokens-per-step', [CompletionResultType]::ParameterName, 'Tokens per optimizer step of the whole job (global batch × sequence length); needs --step-time')
            [CompletionResult]::new('--step-time', '--step-time', [CompletionResultType]::ParameterName, 'Time per step (2.5s, 850ms, 1m)')
            [CompletionResult]::new('--flops-per-token', '--flops-per-token', [CompletionResultType]::ParameterName, 'Model FLOPs per token, when you know them')
            [CompletionResult]::new('--params', '--params', [CompletionResultType]::ParameterName, 'Parameter count N (540.35e9, 405B, 70B, 7b): 6N FLOPs per token training, 2N inference')
            [CompletionResult]::new('--mode', '--mode', [CompletionResultType]::ParameterName, 'train (6N + 12·L·H·Q·T per token) or inference (2N + 4·L·H·Q·T)')
            [CompletionResult]::new('--layers', '--layers', [CompletionResultType]::ParameterName, 'Layers L: with --heads, --head-dim and --seq-len adds the attention term')
            [CompletionResult]::new('--heads', '--heads', [CompletionResultType]::ParameterName, 'Attention heads H')
            [CompletionResult]::new('--head-dim', '--head-dim', [CompletionResultType]::ParameterName, 'Head dimension Q')
            [CompletionResult]::new('--seq-len', '--seq-len', [CompletionResultType]::ParameterName, 'Sequence length T')
            [CompletionResult]::new('--achieved-tflops-per-gpu', '--achieved-tflops-per-gpu', [CompletionResultType]::ParameterName, 'Achieved model TFLOP/s per GPU, when you have it already (instead of throughput and FLOPs)')
            [CompletionResult]::new('--recompute', '--recompute', [CompletionResultType]::ParameterName, 'Also give HFU: FLOPs of activation recomputation count too (full: one more forward pass; selective: the attention core again)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--gpu', '--gpu', [CompletionResultType]::ParameterName, 'GPU name as NVML reports it ("NVIDIA H100 80GB HBM3") or another spelling of one card ("H100 SXM", "NVIDIA-H100-80GB-HBM3"); its dense peak comes from the catalog (`gpuaudit peaks`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;peaks' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;check' {
            [CompletionResult]::new('--partials', '--partials', [CompletionResultType]::ParameterName, 'Report from an engine''s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Narrow the series with label matchers, e.g. ''{cluster="a"}''')
            [CompletionResult]::new('--prom-token', '--prom-token', [CompletionResultType]::ParameterName, 'Bearer token for the server (never printed)')
            [CompletionResult]::new('--prom-user', '--prom-user', [CompletionResultType]::ParameterName, 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)')
            [CompletionResult]::new('--prom-password', '--prom-password', [CompletionResultType]::ParameterName, 'Basic-auth password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--prom-timeout', '--prom-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long')
            [CompletionResult]::new('--prom-retries', '--prom-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--hosts-per-query', '--hosts-per-query', [CompletionResultType]::ParameterName, 'Hosts per query: smaller keeps memory lower, larger makes fewer requests')
            [CompletionResult]::new('--prom-concurrency', '--prom-concurrency', [CompletionResultType]::ParameterName, 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number')
            [CompletionResult]::new('--prom-compression', '--prom-compression', [CompletionResultType]::ParameterName, 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)')
            [CompletionResult]::new('--clickhouse', '--clickhouse', [CompletionResultType]::ParameterName, 'Run the audit''s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--trino', '--trino', [CompletionResultType]::ParameterName, 'Run the audit''s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums')
            [CompletionResult]::new('--sql-table', '--sql-table', [CompletionResultType]::ParameterName, 'The engine''s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`')
            [CompletionResult]::new('--sql-schema', '--sql-schema', [CompletionResultType]::ParameterName, 'How the table lays samples out (otel: ClickHouse''s OpenTelemetry exporter table)')
            [CompletionResult]::new('--sql-user', '--sql-user', [CompletionResultType]::ParameterName, 'The engine''s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD')
            [CompletionResult]::new('--sql-password', '--sql-password', [CompletionResultType]::ParameterName, 'The user''s password (never printed; prefer the environment variable)')
            [CompletionResult]::new('--sql-timeout', '--sql-timeout', [CompletionResultType]::ParameterName, 'Give up on one request after this long (ClickHouse answers the whole query in one)')
            [CompletionResult]::new('--sql-retries', '--sql-retries', [CompletionResultType]::ParameterName, 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)')
            [CompletionResult]::new('--input-format', '--input-format', [CompletionResultType]::ParameterName, 'Read every input as this format instead of going by its extension')
            [CompletionResult]::new('--map', '--map', [CompletionResultType]::ParameterName, 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file''s modification time')
            [CompletionResult]::new('--job-label', '--job-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the job. Default: the workload''s pod (exported_pod, or pod when it is not the exporter''s own), else hpc_job. Prometheus'' own job and instance labels name the scrape target, never a workload')
            [CompletionResult]::new('--team-label', '--team-label', [CompletionResultType]::ParameterName, 'Scrape / Prometheus label that names the team. Default: the workload''s namespace')
            [CompletionResult]::new('--align', '--align', [CompletionResultType]::ParameterName, 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series'' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table''s columns as `gpuaudit sql --columns` takes them')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'The run to compare with: a gpuaudit.report/1 JSON or a metric dump, read and audited like CURRENT. Needed by --max-drop and --max-rise')
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'Read more rules from a TOML file: [min], [max], [max-drop], [max-rise] tables of metric = limit')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)')
            [CompletionResult]::new('--max-gap', '--max-gap', [CompletionResultType]::ParameterName, 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]')
            [CompletionResult]::new('--idle-below', '--idle-below', [CompletionResultType]::ParameterName, 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)')
            [CompletionResult]::new('--min-idle', '--min-idle', [CompletionResultType]::ParameterName, 'List idle episodes at least this long; shorter ones still count in idle hours')
            [CompletionResult]::new('--held-mem', '--held-mem', [CompletionResultType]::ParameterName, 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)')
            [CompletionResult]::new('--price', '--price', [CompletionResultType]::ParameterName, 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)')
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Showback: group layers and cost by this label')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'How many idle episodes to list (all in JSON output unless set)')
            [CompletionResult]::new('--bucket', '--bucket', [CompletionResultType]::ParameterName, 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]')
            [CompletionResult]::new('--leak-thresholds', '--leak-thresholds', [CompletionResultType]::ParameterName, 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below')
            [CompletionResult]::new('--want', '--want', [CompletionResultType]::ParameterName, 'GPUs asked for: the purchase answer says whether idle capacity covers them')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response')
            [CompletionResult]::new('--queue-tz', '--queue-tz', [CompletionResultType]::ParameterName, 'The zone of `--queue` times printed without one (sacct prints the cluster''s local time): UTC or a fixed offset (+02:00) [default: UTC]')
            [CompletionResult]::new('--min-window', '--min-window', [CompletionResultType]::ParameterName, 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict')
            [CompletionResult]::new('--own-cost', '--own-cost', [CompletionResultType]::ParameterName, 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--min', '--min', [CompletionResultType]::ParameterName, 'A floor on CURRENT: METRIC=VALUE (a ratio as 0.35 or 35%). Repeatable')
            [CompletionResult]::new('--max', '--max', [CompletionResultType]::ParameterName, 'A ceiling on CURRENT: METRIC=VALUE. Repeatable')
            [CompletionResult]::new('--max-drop', '--max-drop', [CompletionResultType]::ParameterName, 'How far CURRENT may fall below BASELINE: METRIC=AMOUNT, AMOUNT being 2pp (percentage points, ratios), 5% (relative) or a number in the metric''s unit (for a ratio a fraction: 0.02 is 2pp)')
            [CompletionResult]::new('--max-rise', '--max-rise', [CompletionResultType]::ParameterName, 'How far CURRENT may rise above BASELINE: METRIC=AMOUNT (2pp, 5% or a number)')
            [CompletionResult]::new('--pushdown', '--pushdown', [CompletionResultType]::ParameterName, 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report''s notes)')
            [CompletionResult]::new('--prom-queue', '--prom-queue', [CompletionResultType]::ParameterName, 'Also read demand from the server''s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)')
            [CompletionResult]::new('--allow-missing', '--allow-missing', [CompletionResultType]::ParameterName, 'A rule whose metric is null (not measured) is skipped instead of an error')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Comparability warnings (prices, window lengths, GPU count, held rule differ between CURRENT and BASELINE) fail the check instead of being reported')
            [CompletionResult]::new('--list-metrics', '--list-metrics', [CompletionResultType]::ParameterName, 'Print the metrics a rule can name and exit')
            [CompletionResult]::new('--assume-held', '--assume-held', [CompletionResultType]::ParameterName, 'Treat every sample as held when the input has no held, job or memory column')
            [CompletionResult]::new('--no-builtin-prices', '--no-builtin-prices', [CompletionResultType]::ParameterName, 'Do not fall back to the built-in dated price profile for unpriced models')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No progress bar')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'gpuaudit;help' {
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps')
            [CompletionResult]::new('convert', 'convert', [CompletionResultType]::ParameterValue, 'Write the canonical sample table of any input as parquet: a CSV export read once, reports on the copy read it fast')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)')
            [CompletionResult]::new('scan', 'scan', [CompletionResultType]::ParameterValue, 'Sample this node''s GPUs live through NVML: who holds each card, is it busy, what idle costs')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'What a term of the report means (leak classes, shapes, gang, MTBI, spare...); every term without one')
            [CompletionResult]::new('sql', 'sql', [CompletionResultType]::ParameterValue, 'The audit as one SQL query for an engine that holds the samples (DuckDB, ClickHouse, Spark, Trino, BigQuery); read its answer with report --partials')
            [CompletionResult]::new('mfu', 'mfu', [CompletionResultType]::ParameterValue, 'MFU calculator: model FLOP/s from throughput and model size over the GPUs'' dense peak')
            [CompletionResult]::new('peaks', 'peaks', [CompletionResultType]::ParameterValue, 'The dense peak TFLOP/s table MFU is measured against, with sources')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Fail a CI build when utilization regresses: rules on a run''s report, against a baseline')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'gpuaudit;help;report' {
            break
        }
        'gpuaudit;help;convert' {
            break
        }
        'gpuaudit;help;demo' {
            break
        }
        'gpuaudit;help;scan' {
            break
        }
        'gpuaudit;help;explain' {
            break
        }
        'gpuaudit;help;sql' {
            break
        }
        'gpuaudit;help;mfu' {
            break
        }
        'gpuaudit;help;peaks' {
            break
        }
        'gpuaudit;help;check' {
            break
        }
        'gpuaudit;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
