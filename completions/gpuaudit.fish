# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_gpuaudit_global_optspecs
    string join \n h/help V/version
end

function __fish_gpuaudit_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_gpuaudit_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_gpuaudit_using_subcommand
    set -l cmd (__fish_gpuaudit_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -s h -l help -d 'Print help'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "report" -d 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "convert" -d 'Write the canonical sample table of any input as parquet: a CSV export read once, reports on the copy read it fast'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "demo" -d 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "scan" -d 'Sample this node\'s GPUs live through NVML: who holds each card, is it busy, what idle costs'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "explain" -d 'What a term of the report means (leak classes, shapes, gang, MTBI, spare...); every term without one'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "sql" -d 'The audit as one SQL query for an engine that holds the samples (DuckDB, ClickHouse, Spark, Trino, BigQuery); read its answer with report --partials'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "mfu" -d 'MFU calculator: model FLOP/s from throughput and model size over the GPUs\' dense peak'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "peaks" -d 'The dense peak TFLOP/s table MFU is measured against, with sources'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "check" -d 'Fail a CI build when utilization regresses: rules on a run\'s report, against a baseline'
complete -c gpuaudit -n "__fish_gpuaudit_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l partials -d 'Report from an engine\'s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prometheus -d 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l step -d 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l selector -d 'Narrow the series with label matchers, e.g. \'{cluster="a"}\'' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-token -d 'Bearer token for the server (never printed)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-user -d 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-password -d 'Basic-auth password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-timeout -d 'Give up on one request after this long' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l hosts-per-query -d 'Hosts per query: smaller keeps memory lower, larger makes fewer requests' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-concurrency -d 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-compression -d 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)' -r -f -a "gzip\t'ask for gzip: about a sixth of the bytes, but the server spends CPU compressing'
none\t'ask for plain answers: faster on the same host or a fast network'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l clickhouse -d 'Run the audit\'s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l trino -d 'Run the audit\'s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-table -d 'The engine\'s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-schema -d 'How the table lays samples out (otel: ClickHouse\'s OpenTelemetry exporter table)' -r -f -a "wide\t'one row per GPU per instant, canonical columns (or --columns)'
otel\t'the OpenTelemetry ClickHouse exporter\'s otel_metrics_gauge (DCGM metrics, labels in Attributes)'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-user -d 'The engine\'s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-password -d 'The user\'s password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-timeout -d 'Give up on one request after this long (ClickHouse answers the whole query in one)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l sql-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l input-format -d 'Read every input as this format instead of going by its extension' -r -f -a "parquet\t'Parquet file (or a directory of them)'
csv\t'CSV (or TSV) with a header row'
ndjson\t'Newline-delimited JSON objects (or a JSON array of them)'
prom\t'Prometheus text exposition or OpenMetrics (a dcgm-exporter or AMD exporter /metrics scrape)'
prom-json\t'Prometheus HTTP API response (/api/v1/query or /api/v1/query_range)'
nvidia-smi\t'nvidia-smi --query-gpu or --query-compute-apps CSV log'
nvidia-smi-dmon\t'nvidia-smi dmon log'
nvidia-smi-xml\t'nvidia-smi -q -x snapshots'
amd-smi-json\t'amd-smi metric --json or amd-smi monitor --json output'
amd-smi-monitor\t'amd-smi monitor (amd-smi dmon) table'
amd-smi-text\t'amd-smi metric (--usage, --power, --mem-usage) text output'
rocm-smi-json\t'rocm-smi --showuse --json output (GFX Activity is a counter, never a percent)'
rocm-smi-csv\t'rocm-smi --showuse --csv output'
hl-smi\t'hl-smi -Q ... -f csv log (Intel Gaudi)'
xpu-smi\t'xpu-smi dump CSV (Intel Data Center GPU)'
otlp-json\t'OpenTelemetry OTLP JSON metrics (collector file exporter): hw.gpu.*'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l map -d 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l at -d 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file\'s modification time' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l job-label -d 'Scrape / Prometheus label that names the job. Default: the workload\'s pod (exported_pod, or pod when it is not the exporter\'s own), else hpc_job. Prometheus\' own job and instance labels name the scrape target, never a workload' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l team-label -d 'Scrape / Prometheus label that names the team. Default: the workload\'s namespace' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l align -d 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series\' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l columns -d 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table\'s columns as `gpuaudit sql --columns` takes them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l since -d 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l until -d 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l max-gap -d 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU\'s median sample step]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l interval -d 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l idle-below -d 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l min-idle -d 'List idle episodes at least this long; shorter ones still count in idle hours' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l held-mem -d 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l price -d 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prices -d 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l by -d 'Showback: group layers and cost by this label' -r -f -a "team\t''
user\t''
job\t''
host\t''
model\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l top -d 'How many idle episodes to list (all in JSON output unless set)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l bucket -d 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l leak-thresholds -d 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l want -d 'GPUs asked for: the purchase answer says whether idle capacity covers them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l queue -d 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l queue-tz -d 'The zone of `--queue` times printed without one (sacct prints the cluster\'s local time): UTC or a fixed offset (+02:00) [default: UTC]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l min-window -d 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l own-cost -d 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l jobs -d 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job\'s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l threads -d 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l format -d 'Output format [default: from -o\'s extension (.html, .json, .csv, .md), else table]' -r -f -a "table\t''
json\t''
csv\t''
markdown\t''
html\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -s o -l output -d 'Write the report to FILE instead of standard output; its extension picks the format' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l table -d 'The table `--format csv` writes' -r -f -a "layers\t'the fleet\'s layers, ratios and dollars (and one row per group with --by)'
groups\t'one row per showback group (needs --by)'
episodes\t'idle episodes: one row per job and span, or per GPU with --per-gpu'
gpus\t'one row per GPU (or MIG instance)'
jobs\t'one row per job: shape, ETT, dollars (and MFU with --jobs)'
timeline\t'one row per timeline bucket (GPUs observed, held, active, spare...)'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l width -d 'Lay tables out for this many columns [default: COLUMNS, else the terminal\'s width; no limit when stdout is not a terminal]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l title -d 'The HTML page\'s heading (--format html) [default: "GPU audit: held vs used"]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l pushdown -d 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report\'s notes)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l prom-queue -d 'Also read demand from the server\'s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l assume-held -d 'Treat every sample as held when the input has no held, job or memory column'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l no-builtin-prices -d 'Do not fall back to the built-in dated price profile for unpriced models'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -s q -l quiet -d 'No progress bar'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -l per-gpu -d 'Idle episodes one row per GPU, not one per job and span'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand report" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l partials -d 'Report from an engine\'s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prometheus -d 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l step -d 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l selector -d 'Narrow the series with label matchers, e.g. \'{cluster="a"}\'' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-token -d 'Bearer token for the server (never printed)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-user -d 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-password -d 'Basic-auth password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-timeout -d 'Give up on one request after this long' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l hosts-per-query -d 'Hosts per query: smaller keeps memory lower, larger makes fewer requests' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-concurrency -d 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-compression -d 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)' -r -f -a "gzip\t'ask for gzip: about a sixth of the bytes, but the server spends CPU compressing'
none\t'ask for plain answers: faster on the same host or a fast network'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l clickhouse -d 'Run the audit\'s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l trino -d 'Run the audit\'s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-table -d 'The engine\'s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-schema -d 'How the table lays samples out (otel: ClickHouse\'s OpenTelemetry exporter table)' -r -f -a "wide\t'one row per GPU per instant, canonical columns (or --columns)'
otel\t'the OpenTelemetry ClickHouse exporter\'s otel_metrics_gauge (DCGM metrics, labels in Attributes)'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-user -d 'The engine\'s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-password -d 'The user\'s password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-timeout -d 'Give up on one request after this long (ClickHouse answers the whole query in one)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l sql-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l input-format -d 'Read every input as this format instead of going by its extension' -r -f -a "parquet\t'Parquet file (or a directory of them)'
csv\t'CSV (or TSV) with a header row'
ndjson\t'Newline-delimited JSON objects (or a JSON array of them)'
prom\t'Prometheus text exposition or OpenMetrics (a dcgm-exporter or AMD exporter /metrics scrape)'
prom-json\t'Prometheus HTTP API response (/api/v1/query or /api/v1/query_range)'
nvidia-smi\t'nvidia-smi --query-gpu or --query-compute-apps CSV log'
nvidia-smi-dmon\t'nvidia-smi dmon log'
nvidia-smi-xml\t'nvidia-smi -q -x snapshots'
amd-smi-json\t'amd-smi metric --json or amd-smi monitor --json output'
amd-smi-monitor\t'amd-smi monitor (amd-smi dmon) table'
amd-smi-text\t'amd-smi metric (--usage, --power, --mem-usage) text output'
rocm-smi-json\t'rocm-smi --showuse --json output (GFX Activity is a counter, never a percent)'
rocm-smi-csv\t'rocm-smi --showuse --csv output'
hl-smi\t'hl-smi -Q ... -f csv log (Intel Gaudi)'
xpu-smi\t'xpu-smi dump CSV (Intel Data Center GPU)'
otlp-json\t'OpenTelemetry OTLP JSON metrics (collector file exporter): hw.gpu.*'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l map -d 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l at -d 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file\'s modification time' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l job-label -d 'Scrape / Prometheus label that names the job. Default: the workload\'s pod (exported_pod, or pod when it is not the exporter\'s own), else hpc_job. Prometheus\' own job and instance labels name the scrape target, never a workload' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l team-label -d 'Scrape / Prometheus label that names the team. Default: the workload\'s namespace' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l align -d 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series\' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l columns -d 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table\'s columns as `gpuaudit sql --columns` takes them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -s o -l output -d 'The parquet file to write (replaced whole, never left half-written)' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l pushdown -d 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report\'s notes)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -l prom-queue -d 'Also read demand from the server\'s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -s q -l quiet -d 'No progress bar'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand convert" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l out -d 'Where to write the synthetic fleet (.parquet, .csv or .ndjson); a path without extension with --partition-by-day becomes a hive-partitioned directory' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l gpus -d 'Number of GPUs (rounded up to whole 8-GPU nodes)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l days -d 'Days of samples' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l interval -d 'Sampling interval (e.g. 5m, 30s)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l seed -d 'Seed of the deterministic generator' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l start -d 'First sample time (RFC 3339)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -l partition-by-day -d 'Write one parquet file per day under OUT/day=YYYY-MM-DD/ (hive partitions)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -s h -l help -d 'Print help'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand demo" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l duration -d 'How long to sample (e.g. 5s, 1m). With a CMD, its lifetime instead' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l interval -d 'Time between samples (at least 100ms)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l pre -d 'With a CMD: sample this long before starting it (e.g. 10s, for the idle baseline)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l post -d 'With a CMD: go on sampling this long after it exits (e.g. 10s)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l nvml-timeout -d 'Give up on a GPU whose NVML reading takes longer than this (a hung driver call); the other GPUs go on being sampled' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l nvml-lib -d 'The NVML library to load instead of the driver\'s libnvidia-ml.so.1' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l out -d 'Also write the samples (canonical columns) to FILE: .parquet, .csv or .ndjson' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l format -d 'Output format' -r -f -a "table\t''
json\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l since -d 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l until -d 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l max-gap -d 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU\'s median sample step]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l idle-below -d 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l min-idle -d 'List idle episodes at least this long; shorter ones still count in idle hours' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l price -d 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l prices -d 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l by -d 'Showback: group layers and cost by this label' -r -f -a "team\t''
user\t''
job\t''
host\t''
model\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l top -d 'How many idle episodes to list (all in JSON output unless set)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l bucket -d 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l leak-thresholds -d 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l want -d 'GPUs asked for: the purchase answer says whether idle capacity covers them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l queue -d 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l queue-tz -d 'The zone of `--queue` times printed without one (sacct prints the cluster\'s local time): UTC or a fixed offset (+02:00) [default: UTC]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l min-window -d 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l own-cost -d 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l jobs -d 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job\'s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l threads -d 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l tokens-per-sec -d 'Tokens per second the job on this node processes (e.g. 12.5K); needs --flops-per-token or --params' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l flops-per-token -d 'Model FLOPs per token' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l params -d 'Parameter count (70B, 7b, 540.35e9): 6N FLOPs per token training, 2N inference' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l mode -d 'train (6N) or inference (2N), for --params' -r -f -a "train\t''
inference\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l achieved-tflops -d 'Achieved model TFLOP/s of the job on this node, when known (instead of the above)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l dtype -d 'Number format the job runs in: picks each GPU\'s dense peak [default: bf16]' -r -f -a "fp64\t''
fp32\t''
tf32\t''
bf16\t''
fp16\t''
fp8\t''
int8\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l snapshot-interval -d 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l held-mem -d 'A GPU using more memory than this is held, even with no process visible (e.g. 1GiB, 512MiB)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l once -d 'Take one sample per GPU (after one interval) and report it as a snapshot'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l require-nvml -d 'With a CMD: exit 2 without running it when sampling cannot start (NVML missing, no driver, no GPU). Without this flag CMD runs unmonitored, gpuaudit exits with its code and says why on one stderr line'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -s q -l quiet -d 'No progress bar'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l assume-held -d 'Treat every sample as held when the input has no held, job or memory column'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -l no-builtin-prices -d 'Do not fall back to the built-in dated price profile for unpriced models'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -s h -l help -d 'Print help'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand scan" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand explain" -s h -l help -d 'Print help'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand explain" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l dialect -d 'The engine the query is written for' -r -f -a "duckdb\t'DuckDB (verified by the tests)'
clickhouse\t'ClickHouse (a plain wide table of canonical columns)'
spark\t'Spark SQL'
trino\t'Trino / Athena'
bigquery\t'BigQuery'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l table -d 'The table (or view, or a table function such as read_parquet(\'x.parquet\')) holding the samples' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l columns -d 'The table\'s columns, canonical names (time, host, gpu, model, held, job, user, team, device_util, sm_active, sm_occupancy, tensor_active, dram_active, mem_used_bytes, mem_total_bytes, power_w) or CANONICAL=SOURCE [default: the columns `gpuaudit demo` writes]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l schema -d 'How the table lays samples out (otel: ClickHouse only)' -r -f -a "wide\t'one row per GPU per instant, canonical columns (or --columns)'
otel\t'the OpenTelemetry ClickHouse exporter\'s otel_metrics_gauge (DCGM metrics, labels in Attributes)'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l since -d 'Keep samples at or after this time (RFC 3339 or a date; a span needs the data\'s end: not here)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l until -d 'Keep samples before this time (RFC 3339 or a date)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l max-gap -d 'A gap longer than this is unobserved [default: 3 x the GPU\'s median sample step]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l interval -d 'What a single-sample GPU\'s sample stands for [default: 1h, or the fleet\'s step in a series]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l idle-below -d 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l held-mem -d 'Without a held or job column, a GPU using more memory than this is held' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l by -d 'Showback: group the partial sums by this label (give report --partials the same --by)' -r -f -a "team\t''
user\t''
job\t''
host\t''
model\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l bucket -d 'Timeline bucket (e.g. 1h): the answer carries the sums per bucket too, and report --partials renders the timeline and the purchase answer from them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -s o -l output -d 'Write the query to FILE instead of standard output' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -l assume-held -d 'Treat every sample as held when the table has no held, job or memory column'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand sql" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l gpus -d 'Number of GPUs (chips) the job runs on (16384 or 16,384)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l peak-tflops -d 'Dense peak TFLOP/s of one GPU for the dtype, instead of --gpu' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l dtype -d 'Number format the model runs in: picks the peak' -r -f -a "fp64\t''
fp32\t''
tf32\t''
bf16\t''
fp16\t''
fp8\t''
int8\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l tokens-per-sec -d 'Tokens per second of the whole job, all GPUs together (e.g. 238.3K or 238,300); needs --gpus' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l tokens-per-sec-per-gpu -d 'Tokens per second of one GPU (the whole job\'s rate divided by its GPUs)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l tokens-per-step -d 'Tokens per optimizer step of the whole job (global batch × sequence length); needs --step-time' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l step-time -d 'Time per step (2.5s, 850ms, 1m)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l flops-per-token -d 'Model FLOPs per token, when you know them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l params -d 'Parameter count N (540.35e9, 405B, 70B, 7b): 6N FLOPs per token training, 2N inference' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l mode -d 'train (6N + 12·L·H·Q·T per token) or inference (2N + 4·L·H·Q·T)' -r -f -a "train\t''
inference\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l layers -d 'Layers L: with --heads, --head-dim and --seq-len adds the attention term' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l heads -d 'Attention heads H' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l head-dim -d 'Head dimension Q' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l seq-len -d 'Sequence length T' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l achieved-tflops-per-gpu -d 'Achieved model TFLOP/s per GPU, when you have it already (instead of throughput and FLOPs)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l recompute -d 'Also give HFU: FLOPs of activation recomputation count too (full: one more forward pass; selective: the attention core again)' -r -f -a "full\t'the whole forward pass again: + 2N + 4·L·H·Q·T per token'
selective\t'only the attention core again (Korthikanti et al.): + 4·L·H·Q·T per token'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l format -d 'Output format' -r -f -a "table\t''
json\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -l gpu -d 'GPU name as NVML reports it ("NVIDIA H100 80GB HBM3") or another spelling of one card ("H100 SXM", "NVIDIA-H100-80GB-HBM3"); its dense peak comes from the catalog (`gpuaudit peaks`)' -r -f -a "Tesla-T4\t''
Tesla-V100-SXM2-16GB\t''
Tesla-V100-SXM2-32GB\t''
Tesla-V100-PCIE-16GB\t''
Tesla-V100-PCIE-32GB\t''
A100-SXM4-40GB\t''
A100-SXM4-80GB\t''
A100-PCIE-40GB\t''
A100-80GB-PCIe\t''
A10\t''
A10G\t''
L4\t''
L40\t''
L40S\t''
H100-80GB-HBM3\t''
H100-PCIe\t''
H100-NVL\t''
H200\t''
H200-NVL\t''
B200\t''
GB200\t''
GeForce-RTX-4090\t''
AMD-Instinct-MI300X\t''
AMD-Instinct-MI325X\t''
AMD-Instinct-MI350X\t''
AMD-Instinct-MI355X\t''
AMD-Instinct-MI250X\t''
Intel-Gaudi-2\t''
Intel-Gaudi-3\t''
Intel-Data-Center-GPU-Max-1550\t''
Google-TPU-v4\t''
Google-TPU-v5e\t''
Google-TPU-v5p\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand mfu" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand peaks" -l format -d 'Output format' -r -f -a "table\t''
json\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand peaks" -s h -l help -d 'Print help'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand peaks" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l partials -d 'Report from an engine\'s partial sums: the answer of `gpuaudit sql`, exported as parquet or CSV, instead of samples' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prometheus -d 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l step -d 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l selector -d 'Narrow the series with label matchers, e.g. \'{cluster="a"}\'' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-token -d 'Bearer token for the server (never printed)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-user -d 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-password -d 'Basic-auth password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-timeout -d 'Give up on one request after this long' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l hosts-per-query -d 'Hosts per query: smaller keeps memory lower, larger makes fewer requests' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-concurrency -d 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-compression -d 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)' -r -f -a "gzip\t'ask for gzip: about a sixth of the bytes, but the server spends CPU compressing'
none\t'ask for plain answers: faster on the same host or a fast network'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l clickhouse -d 'Run the audit\'s query on this ClickHouse (HTTP interface, e.g. http://ch:8123) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l trino -d 'Run the audit\'s query on this Trino (REST protocol, e.g. http://trino:8080) over --sql-table and report from its partial sums' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-table -d 'The engine\'s table of samples (Trino: catalog.schema.table); --columns names its columns as for `gpuaudit sql`' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-schema -d 'How the table lays samples out (otel: ClickHouse\'s OpenTelemetry exporter table)' -r -f -a "wide\t'one row per GPU per instant, canonical columns (or --columns)'
otel\t'the OpenTelemetry ClickHouse exporter\'s otel_metrics_gauge (DCGM metrics, labels in Attributes)'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-user -d 'The engine\'s user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-password -d 'The user\'s password (never printed; prefer the environment variable)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-timeout -d 'Give up on one request after this long (ClickHouse answers the whole query in one)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l sql-retries -d 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l input-format -d 'Read every input as this format instead of going by its extension' -r -f -a "parquet\t'Parquet file (or a directory of them)'
csv\t'CSV (or TSV) with a header row'
ndjson\t'Newline-delimited JSON objects (or a JSON array of them)'
prom\t'Prometheus text exposition or OpenMetrics (a dcgm-exporter or AMD exporter /metrics scrape)'
prom-json\t'Prometheus HTTP API response (/api/v1/query or /api/v1/query_range)'
nvidia-smi\t'nvidia-smi --query-gpu or --query-compute-apps CSV log'
nvidia-smi-dmon\t'nvidia-smi dmon log'
nvidia-smi-xml\t'nvidia-smi -q -x snapshots'
amd-smi-json\t'amd-smi metric --json or amd-smi monitor --json output'
amd-smi-monitor\t'amd-smi monitor (amd-smi dmon) table'
amd-smi-text\t'amd-smi metric (--usage, --power, --mem-usage) text output'
rocm-smi-json\t'rocm-smi --showuse --json output (GFX Activity is a counter, never a percent)'
rocm-smi-csv\t'rocm-smi --showuse --csv output'
hl-smi\t'hl-smi -Q ... -f csv log (Intel Gaudi)'
xpu-smi\t'xpu-smi dump CSV (Intel Data Center GPU)'
otlp-json\t'OpenTelemetry OTLP JSON metrics (collector file exporter): hw.gpu.*'"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l map -d 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l at -d 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file\'s modification time' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l job-label -d 'Scrape / Prometheus label that names the job. Default: the workload\'s pod (exported_pod, or pod when it is not the exporter\'s own), else hpc_job. Prometheus\' own job and instance labels name the scrape target, never a workload' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l team-label -d 'Scrape / Prometheus label that names the team. Default: the workload\'s namespace' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l align -d 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series\' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l columns -d 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used; with --clickhouse or --trino, the table\'s columns as `gpuaudit sql --columns` takes them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l baseline -d 'The run to compare with: a gpuaudit.report/1 JSON or a metric dump, read and audited like CURRENT. Needed by --max-drop and --max-rise' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l rules -d 'Read more rules from a TOML file: [min], [max], [max-drop], [max-rise] tables of metric = limit' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l since -d 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l until -d 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l max-gap -d 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU\'s median sample step]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l interval -d 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l idle-below -d 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l min-idle -d 'List idle episodes at least this long; shorter ones still count in idle hours' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l held-mem -d 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l price -d 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prices -d 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l by -d 'Showback: group layers and cost by this label' -r -f -a "team\t''
user\t''
job\t''
host\t''
model\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l top -d 'How many idle episodes to list (all in JSON output unless set)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l bucket -d 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l leak-thresholds -d 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l want -d 'GPUs asked for: the purchase answer says whether idle capacity covers them' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l queue -d 'A scheduler queue whose waiting requests are demand (repeatable): a Slurm `sacct -a -X -P --format=JobID,User,Account,Partition,Submit,Start,End,State,ReqTRES,AllocTRES` dump (times without a zone read as UTC), or kube-state-metrics series (kube_pod_status_phase, kube_pod_container_resource_requests) as a scrape or a Prometheus API response' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l queue-tz -d 'The zone of `--queue` times printed without one (sacct prints the cluster\'s local time): UTC or a fixed offset (+02:00) [default: UTC]' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l min-window -d 'Shortest window the purchase verdict decides on (e.g. 12h); a window shorter than 24 h that this lets through gives a provisional verdict' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l own-cost -d 'What an owned GPU costs: capex=USD,years=N[,power_usd_per_kwh=X][,overhead=0.3] gives an amortized $/GPU-h; the purchase plan prices "buy N" with it too' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l jobs -d 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job\'s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section' -r -F
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l threads -d 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)' -r
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l format -d 'Output format' -r -f -a "table\t''
json\t''
markdown\t''
junit\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l min -d 'A floor on CURRENT: METRIC=VALUE (a ratio as 0.35 or 35%). Repeatable' -r -f -a "active=\t''
sm_active=\t''
sm_occupancy=\t''
tensor_active=\t''
mfu=\t''
held_of_observed=\t''
idle_held=\t''
idle_held_share=\t''
observed_gpu_hours=\t''
held_gpu_hours=\t''
active_gpu_hours=\t''
sm_active_gpu_hours=\t''
tensor_active_gpu_hours=\t''
useful_gpu_hours=\t''
idle_held_gpu_hours=\t''
unallocated_gpu_hours=\t''
unpriced_gpu_hours=\t''
observed_usd=\t''
held_usd=\t''
idle_held_usd=\t''
unallocated_usd=\t''
not_useful_usd=\t''
observed_usd_per_hour=\t''
held_usd_per_hour=\t''
idle_held_usd_per_hour=\t''
unallocated_usd_per_hour=\t''
not_useful_usd_per_hour=\t''
monthly_observed_usd=\t''
monthly_held_usd=\t''
monthly_idle_held_usd=\t''
monthly_unallocated_usd=\t''
monthly_not_useful_usd=\t''
leaks.held_unknown=\t''
leaks.held_unknown.share_of_held=\t''
leaks.held_unknown.usd=\t''
leaks.unallocated=\t''
leaks.unallocated.share_of_held=\t''
leaks.unallocated.usd=\t''
leaks.unmeasured=\t''
leaks.unmeasured.share_of_held=\t''
leaks.unmeasured.usd=\t''
leaks.idle=\t''
leaks.idle.share_of_held=\t''
leaks.idle.usd=\t''
leaks.starved=\t''
leaks.starved.share_of_held=\t''
leaks.starved.usd=\t''
leaks.underfilled=\t''
leaks.underfilled.share_of_held=\t''
leaks.underfilled.usd=\t''
leaks.memory_bound=\t''
leaks.memory_bound.share_of_held=\t''
leaks.memory_bound.usd=\t''
leaks.no_tensor=\t''
leaks.no_tensor.share_of_held=\t''
leaks.no_tensor.usd=\t''
leaks.effective=\t''
leaks.effective.share_of_held=\t''
leaks.effective.usd=\t''
leaks.busy_unprofiled=\t''
leaks.busy_unprofiled.share_of_held=\t''
leaks.busy_unprofiled.usd=\t''
nodes.node_held_gpu_hours=\t''
nodes.stranded_gpu_hours=\t''
nodes.free_node_gpu_hours=\t''
nodes.stranded_usd=\t''
nodes.free_node_usd=\t''
purchase.owned=\t''
purchase.held_p50=\t''
purchase.held_p95=\t''
purchase.held_max=\t''
purchase.spare_p5=\t''
purchase.output_equivalent_gpus=\t''
purchase.gpus_seen=\t''
purchase.reclaimable_gpus=\t''
purchase.covered_by_reclaim=\t''
purchase.uncovered_gpus=\t''
purchase.optimize_to_gpus=\t''
purchase.busy_equivalent_gpus_p95=\t''
purchase.busy_equivalent_gpus_peak=\t''
purchase.sm_equivalent_gpus_p95=\t''
purchase.sm_equivalent_gpus_peak=\t''
purchase.tensor_equivalent_gpus_p95=\t''
purchase.tensor_equivalent_gpus_peak=\t''
purchase.coverage=\t''
purchase.held_known_share=\t''
purchase.unobserved_gpu_hours=\t''
purchase.pending_gpu_hours=\t''
purchase.pending_gpus_p95=\t''
purchase.demand_p95=\t''
timeline.unobserved_buckets=\t''
jobs.ett.min=\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l max -d 'A ceiling on CURRENT: METRIC=VALUE. Repeatable' -r -f -a "active=\t''
sm_active=\t''
sm_occupancy=\t''
tensor_active=\t''
mfu=\t''
held_of_observed=\t''
idle_held=\t''
idle_held_share=\t''
observed_gpu_hours=\t''
held_gpu_hours=\t''
active_gpu_hours=\t''
sm_active_gpu_hours=\t''
tensor_active_gpu_hours=\t''
useful_gpu_hours=\t''
idle_held_gpu_hours=\t''
unallocated_gpu_hours=\t''
unpriced_gpu_hours=\t''
observed_usd=\t''
held_usd=\t''
idle_held_usd=\t''
unallocated_usd=\t''
not_useful_usd=\t''
observed_usd_per_hour=\t''
held_usd_per_hour=\t''
idle_held_usd_per_hour=\t''
unallocated_usd_per_hour=\t''
not_useful_usd_per_hour=\t''
monthly_observed_usd=\t''
monthly_held_usd=\t''
monthly_idle_held_usd=\t''
monthly_unallocated_usd=\t''
monthly_not_useful_usd=\t''
leaks.held_unknown=\t''
leaks.held_unknown.share_of_held=\t''
leaks.held_unknown.usd=\t''
leaks.unallocated=\t''
leaks.unallocated.share_of_held=\t''
leaks.unallocated.usd=\t''
leaks.unmeasured=\t''
leaks.unmeasured.share_of_held=\t''
leaks.unmeasured.usd=\t''
leaks.idle=\t''
leaks.idle.share_of_held=\t''
leaks.idle.usd=\t''
leaks.starved=\t''
leaks.starved.share_of_held=\t''
leaks.starved.usd=\t''
leaks.underfilled=\t''
leaks.underfilled.share_of_held=\t''
leaks.underfilled.usd=\t''
leaks.memory_bound=\t''
leaks.memory_bound.share_of_held=\t''
leaks.memory_bound.usd=\t''
leaks.no_tensor=\t''
leaks.no_tensor.share_of_held=\t''
leaks.no_tensor.usd=\t''
leaks.effective=\t''
leaks.effective.share_of_held=\t''
leaks.effective.usd=\t''
leaks.busy_unprofiled=\t''
leaks.busy_unprofiled.share_of_held=\t''
leaks.busy_unprofiled.usd=\t''
nodes.node_held_gpu_hours=\t''
nodes.stranded_gpu_hours=\t''
nodes.free_node_gpu_hours=\t''
nodes.stranded_usd=\t''
nodes.free_node_usd=\t''
purchase.owned=\t''
purchase.held_p50=\t''
purchase.held_p95=\t''
purchase.held_max=\t''
purchase.spare_p5=\t''
purchase.output_equivalent_gpus=\t''
purchase.gpus_seen=\t''
purchase.reclaimable_gpus=\t''
purchase.covered_by_reclaim=\t''
purchase.uncovered_gpus=\t''
purchase.optimize_to_gpus=\t''
purchase.busy_equivalent_gpus_p95=\t''
purchase.busy_equivalent_gpus_peak=\t''
purchase.sm_equivalent_gpus_p95=\t''
purchase.sm_equivalent_gpus_peak=\t''
purchase.tensor_equivalent_gpus_p95=\t''
purchase.tensor_equivalent_gpus_peak=\t''
purchase.coverage=\t''
purchase.held_known_share=\t''
purchase.unobserved_gpu_hours=\t''
purchase.pending_gpu_hours=\t''
purchase.pending_gpus_p95=\t''
purchase.demand_p95=\t''
timeline.unobserved_buckets=\t''
jobs.ett.min=\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l max-drop -d 'How far CURRENT may fall below BASELINE: METRIC=AMOUNT, AMOUNT being 2pp (percentage points, ratios), 5% (relative) or a number in the metric\'s unit (for a ratio a fraction: 0.02 is 2pp)' -r -f -a "active=\t''
sm_active=\t''
sm_occupancy=\t''
tensor_active=\t''
mfu=\t''
held_of_observed=\t''
idle_held=\t''
idle_held_share=\t''
observed_gpu_hours=\t''
held_gpu_hours=\t''
active_gpu_hours=\t''
sm_active_gpu_hours=\t''
tensor_active_gpu_hours=\t''
useful_gpu_hours=\t''
idle_held_gpu_hours=\t''
unallocated_gpu_hours=\t''
unpriced_gpu_hours=\t''
observed_usd=\t''
held_usd=\t''
idle_held_usd=\t''
unallocated_usd=\t''
not_useful_usd=\t''
observed_usd_per_hour=\t''
held_usd_per_hour=\t''
idle_held_usd_per_hour=\t''
unallocated_usd_per_hour=\t''
not_useful_usd_per_hour=\t''
monthly_observed_usd=\t''
monthly_held_usd=\t''
monthly_idle_held_usd=\t''
monthly_unallocated_usd=\t''
monthly_not_useful_usd=\t''
leaks.held_unknown=\t''
leaks.held_unknown.share_of_held=\t''
leaks.held_unknown.usd=\t''
leaks.unallocated=\t''
leaks.unallocated.share_of_held=\t''
leaks.unallocated.usd=\t''
leaks.unmeasured=\t''
leaks.unmeasured.share_of_held=\t''
leaks.unmeasured.usd=\t''
leaks.idle=\t''
leaks.idle.share_of_held=\t''
leaks.idle.usd=\t''
leaks.starved=\t''
leaks.starved.share_of_held=\t''
leaks.starved.usd=\t''
leaks.underfilled=\t''
leaks.underfilled.share_of_held=\t''
leaks.underfilled.usd=\t''
leaks.memory_bound=\t''
leaks.memory_bound.share_of_held=\t''
leaks.memory_bound.usd=\t''
leaks.no_tensor=\t''
leaks.no_tensor.share_of_held=\t''
leaks.no_tensor.usd=\t''
leaks.effective=\t''
leaks.effective.share_of_held=\t''
leaks.effective.usd=\t''
leaks.busy_unprofiled=\t''
leaks.busy_unprofiled.share_of_held=\t''
leaks.busy_unprofiled.usd=\t''
nodes.node_held_gpu_hours=\t''
nodes.stranded_gpu_hours=\t''
nodes.free_node_gpu_hours=\t''
nodes.stranded_usd=\t''
nodes.free_node_usd=\t''
purchase.owned=\t''
purchase.held_p50=\t''
purchase.held_p95=\t''
purchase.held_max=\t''
purchase.spare_p5=\t''
purchase.output_equivalent_gpus=\t''
purchase.gpus_seen=\t''
purchase.reclaimable_gpus=\t''
purchase.covered_by_reclaim=\t''
purchase.uncovered_gpus=\t''
purchase.optimize_to_gpus=\t''
purchase.busy_equivalent_gpus_p95=\t''
purchase.busy_equivalent_gpus_peak=\t''
purchase.sm_equivalent_gpus_p95=\t''
purchase.sm_equivalent_gpus_peak=\t''
purchase.tensor_equivalent_gpus_p95=\t''
purchase.tensor_equivalent_gpus_peak=\t''
purchase.coverage=\t''
purchase.held_known_share=\t''
purchase.unobserved_gpu_hours=\t''
purchase.pending_gpu_hours=\t''
purchase.pending_gpus_p95=\t''
purchase.demand_p95=\t''
timeline.unobserved_buckets=\t''
jobs.ett.min=\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l max-rise -d 'How far CURRENT may rise above BASELINE: METRIC=AMOUNT (2pp, 5% or a number)' -r -f -a "active=\t''
sm_active=\t''
sm_occupancy=\t''
tensor_active=\t''
mfu=\t''
held_of_observed=\t''
idle_held=\t''
idle_held_share=\t''
observed_gpu_hours=\t''
held_gpu_hours=\t''
active_gpu_hours=\t''
sm_active_gpu_hours=\t''
tensor_active_gpu_hours=\t''
useful_gpu_hours=\t''
idle_held_gpu_hours=\t''
unallocated_gpu_hours=\t''
unpriced_gpu_hours=\t''
observed_usd=\t''
held_usd=\t''
idle_held_usd=\t''
unallocated_usd=\t''
not_useful_usd=\t''
observed_usd_per_hour=\t''
held_usd_per_hour=\t''
idle_held_usd_per_hour=\t''
unallocated_usd_per_hour=\t''
not_useful_usd_per_hour=\t''
monthly_observed_usd=\t''
monthly_held_usd=\t''
monthly_idle_held_usd=\t''
monthly_unallocated_usd=\t''
monthly_not_useful_usd=\t''
leaks.held_unknown=\t''
leaks.held_unknown.share_of_held=\t''
leaks.held_unknown.usd=\t''
leaks.unallocated=\t''
leaks.unallocated.share_of_held=\t''
leaks.unallocated.usd=\t''
leaks.unmeasured=\t''
leaks.unmeasured.share_of_held=\t''
leaks.unmeasured.usd=\t''
leaks.idle=\t''
leaks.idle.share_of_held=\t''
leaks.idle.usd=\t''
leaks.starved=\t''
leaks.starved.share_of_held=\t''
leaks.starved.usd=\t''
leaks.underfilled=\t''
leaks.underfilled.share_of_held=\t''
leaks.underfilled.usd=\t''
leaks.memory_bound=\t''
leaks.memory_bound.share_of_held=\t''
leaks.memory_bound.usd=\t''
leaks.no_tensor=\t''
leaks.no_tensor.share_of_held=\t''
leaks.no_tensor.usd=\t''
leaks.effective=\t''
leaks.effective.share_of_held=\t''
leaks.effective.usd=\t''
leaks.busy_unprofiled=\t''
leaks.busy_unprofiled.share_of_held=\t''
leaks.busy_unprofiled.usd=\t''
nodes.node_held_gpu_hours=\t''
nodes.stranded_gpu_hours=\t''
nodes.free_node_gpu_hours=\t''
nodes.stranded_usd=\t''
nodes.free_node_usd=\t''
purchase.owned=\t''
purchase.held_p50=\t''
purchase.held_p95=\t''
purchase.held_max=\t''
purchase.spare_p5=\t''
purchase.output_equivalent_gpus=\t''
purchase.gpus_seen=\t''
purchase.reclaimable_gpus=\t''
purchase.covered_by_reclaim=\t''
purchase.uncovered_gpus=\t''
purchase.optimize_to_gpus=\t''
purchase.busy_equivalent_gpus_p95=\t''
purchase.busy_equivalent_gpus_peak=\t''
purchase.sm_equivalent_gpus_p95=\t''
purchase.sm_equivalent_gpus_peak=\t''
purchase.tensor_equivalent_gpus_p95=\t''
purchase.tensor_equivalent_gpus_peak=\t''
purchase.coverage=\t''
purchase.held_known_share=\t''
purchase.unobserved_gpu_hours=\t''
purchase.pending_gpu_hours=\t''
purchase.pending_gpus_p95=\t''
purchase.demand_p95=\t''
timeline.unobserved_buckets=\t''
jobs.ett.min=\t''"
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l pushdown -d 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report\'s notes)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l prom-queue -d 'Also read demand from the server\'s kube-state-metrics: pods Pending with nvidia_com_gpu requests over the window (as `--queue` does from a file)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l allow-missing -d 'A rule whose metric is null (not measured) is skipped instead of an error'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l strict -d 'Comparability warnings (prices, window lengths, GPU count, held rule differ between CURRENT and BASELINE) fail the check instead of being reported'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l list-metrics -d 'Print the metrics a rule can name and exit'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l assume-held -d 'Treat every sample as held when the input has no held, job or memory column'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -l no-builtin-prices -d 'Do not fall back to the built-in dated price profile for unpriced models'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -s q -l quiet -d 'No progress bar'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand check" -s V -l version -d 'Print version'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "report" -d 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "convert" -d 'Write the canonical sample table of any input as parquet: a CSV export read once, reports on the copy read it fast'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "demo" -d 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "scan" -d 'Sample this node\'s GPUs live through NVML: who holds each card, is it busy, what idle costs'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "explain" -d 'What a term of the report means (leak classes, shapes, gang, MTBI, spare...); every term without one'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "sql" -d 'The audit as one SQL query for an engine that holds the samples (DuckDB, ClickHouse, Spark, Trino, BigQuery); read its answer with report --partials'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "mfu" -d 'MFU calculator: model FLOP/s from throughput and model size over the GPUs\' dense peak'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "peaks" -d 'The dense peak TFLOP/s table MFU is measured against, with sources'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "check" -d 'Fail a CI build when utilization regresses: rules on a run\'s report, against a baseline'
complete -c gpuaudit -n "__fish_gpuaudit_using_subcommand help; and not __fish_seen_subcommand_from report convert demo scan explain sql mfu peaks check help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
