
use builtin;
use str;

set edit:completion:arg-completer[gpuaudit] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'gpuaudit'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'gpuaudit'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand report 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps'
            cand demo 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)'
            cand scan 'Sample this node''s GPUs live through NVML: who holds each card, is it busy, what idle costs'
            cand mfu 'MFU calculator: model FLOP/s from throughput and model size over the GPUs'' dense peak'
            cand peaks 'The dense peak TFLOP/s table MFU is measured against, with sources'
            cand check 'Fail a CI build when utilization regresses: rules on a run''s report, against a baseline'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpuaudit;report'= {
            cand --prometheus 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]'
            cand --step 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)'
            cand --selector 'Narrow the series with label matchers, e.g. ''{cluster="a"}'''
            cand --prom-token 'Bearer token for the server (never printed)'
            cand --prom-user 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)'
            cand --prom-password 'Basic-auth password (never printed; prefer the environment variable)'
            cand --prom-timeout 'Give up on one request after this long'
            cand --prom-retries 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)'
            cand --hosts-per-query 'Hosts per query: smaller keeps memory lower, larger makes fewer requests'
            cand --prom-concurrency 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number'
            cand --prom-compression 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)'
            cand --input-format 'Read every input as this format instead of going by its extension'
            cand --map 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent'
            cand --at 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file''s modification time'
            cand --job-label 'Scrape / Prometheus label that names the job. Default: the workload''s pod (exported_pod, or pod when it is not the exporter''s own), else hpc_job. Prometheus'' own job and instance labels name the scrape target, never a workload'
            cand --team-label 'Scrape / Prometheus label that names the team. Default: the workload''s namespace'
            cand --align 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series'' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)'
            cand --columns 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used'
            cand --since 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)'
            cand --until 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)'
            cand --max-gap 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]'
            cand --interval 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]'
            cand --idle-below 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)'
            cand --min-idle 'List idle episodes at least this long; shorter ones still count in idle hours'
            cand --held-mem 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)'
            cand --price 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)'
            cand --prices 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)'
            cand --by 'Showback: group layers and cost by this label'
            cand --top 'How many idle episodes to list (all in JSON output unless set)'
            cand --bucket 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]'
            cand --leak-thresholds 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below'
            cand --want 'GPUs asked for: the purchase answer says whether idle capacity covers them'
            cand --jobs 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section'
            cand --threads 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)'
            cand --format 'Output format'
            cand -o 'Write the report to FILE instead of standard output'
            cand --output 'Write the report to FILE instead of standard output'
            cand --table 'The table `--format csv` writes'
            cand --width 'Lay tables out for this many columns [default: COLUMNS, else the terminal''s width; no limit when stdout is not a terminal]'
            cand --pushdown 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report''s notes)'
            cand --assume-held 'Treat every sample as held when the input has no held, job or memory column'
            cand --no-builtin-prices 'Do not fall back to the built-in dated price profile for unpriced models'
            cand -q 'No progress bar'
            cand --quiet 'No progress bar'
            cand --per-gpu 'Idle episodes one row per GPU, not one per job and span'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;demo'= {
            cand --out 'Where to write the synthetic fleet (.parquet, .csv or .ndjson); a path without extension with --partition-by-day becomes a hive-partitioned directory'
            cand --gpus 'Number of GPUs (rounded up to whole 8-GPU nodes)'
            cand --days 'Days of samples'
            cand --interval 'Sampling interval (e.g. 5m, 30s)'
            cand --seed 'Seed of the deterministic generator'
            cand --start 'First sample time (RFC 3339)'
            cand --partition-by-day 'Write one parquet file per day under OUT/day=YYYY-MM-DD/ (hive partitions)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;scan'= {
            cand --duration 'How long to sample (e.g. 5s, 1m). With a CMD, its lifetime instead'
            cand --interval 'Time between samples (at least 100ms)'
            cand --pre 'With a CMD: sample this long before starting it (e.g. 10s, for the idle baseline)'
            cand --post 'With a CMD: go on sampling this long after it exits (e.g. 10s)'
            cand --nvml-timeout 'Give up on a GPU whose NVML reading takes longer than this (a hung driver call); the other GPUs go on being sampled'
            cand --nvml-lib 'The NVML library to load instead of the driver''s libnvidia-ml.so.1'
            cand --out 'Also write the samples (canonical columns) to FILE: .parquet, .csv or .ndjson'
            cand --format 'Output format'
            cand --since 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)'
            cand --until 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)'
            cand --max-gap 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]'
            cand --idle-below 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)'
            cand --min-idle 'List idle episodes at least this long; shorter ones still count in idle hours'
            cand --price 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)'
            cand --prices 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)'
            cand --by 'Showback: group layers and cost by this label'
            cand --top 'How many idle episodes to list (all in JSON output unless set)'
            cand --bucket 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]'
            cand --leak-thresholds 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below'
            cand --want 'GPUs asked for: the purchase answer says whether idle capacity covers them'
            cand --jobs 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section'
            cand --threads 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)'
            cand --tokens-per-sec 'Tokens per second the job on this node processes (e.g. 12.5K); needs --flops-per-token or --params'
            cand --flops-per-token 'Model FLOPs per token'
            cand --params 'Parameter count (70B, 7b, 540.35e9): 6N FLOPs per token training, 2N inference'
            cand --mode 'train (6N) or inference (2N), for --params'
            cand --achieved-tflops 'Achieved model TFLOP/s of the job on this node, when known (instead of the above)'
            cand --dtype 'Number format the job runs in: picks each GPU''s dense peak [default: bf16]'
            cand --snapshot-interval 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]'
            cand --held-mem 'A GPU using more memory than this is held, even with no process visible (e.g. 1GiB, 512MiB)'
            cand --once 'Take one sample per GPU (after one interval) and report it as a snapshot'
            cand -q 'No progress bar'
            cand --quiet 'No progress bar'
            cand --assume-held 'Treat every sample as held when the input has no held, job or memory column'
            cand --no-builtin-prices 'Do not fall back to the built-in dated price profile for unpriced models'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;mfu'= {
            cand --gpus 'Number of GPUs (chips) the job runs on (16384 or 16,384)'
            cand --peak-tflops 'Dense peak TFLOP/s of one GPU for the dtype, instead of --gpu'
            cand --dtype 'Number format the model runs in: picks the peak'
            cand --tokens-per-sec 'Tokens per second of the whole job, all GPUs together (e.g. 238.3K or 238,300); needs --gpus'
            cand --tokens-per-sec-per-gpu 'Tokens per second of one GPU (the whole job''s rate divided by its GPUs)'
            cand --tokens-per-step 'Tokens per optimizer step of the whole job (global batch × sequence length); needs --step-time'
            cand --step-time 'Seconds per step (2.5, 2.5s, 850ms)'
            cand --flops-per-token 'Model FLOPs per token, when you know them'
            cand --params 'Parameter count N (540.35e9, 405B, 70B, 7b): 6N FLOPs per token training, 2N inference'
            cand --mode 'train (6N + 12·L·H·Q·T per token) or inference (2N + 4·L·H·Q·T)'
            cand --layers 'Layers L: with --heads, --head-dim and --seq-len adds the attention term'
            cand --heads 'Attention heads H'
            cand --head-dim 'Head dimension Q'
            cand --seq-len 'Sequence length T'
            cand --achieved-tflops-per-gpu 'Achieved model TFLOP/s per GPU, when you have it already (instead of throughput and FLOPs)'
            cand --recompute 'Also give HFU: FLOPs of activation recomputation count too (full: one more forward pass; selective: the attention core again)'
            cand --format 'Output format'
            cand --gpu 'GPU name as NVML reports it ("NVIDIA H100 80GB HBM3") or another spelling of one card ("H100 SXM", "NVIDIA-H100-80GB-HBM3"); its dense peak comes from the catalog (`gpuaudit peaks`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;peaks'= {
            cand --format 'Output format'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;check'= {
            cand --prometheus 'Query this Prometheus-compatible server (base URL, e.g. http://prometheus:9090) instead of reading files. --since/--until then count back from NOW [default window: --since 7d --until now]'
            cand --step 'Query resolution: one sample per GPU and metric every STEP (match the scrape interval)'
            cand --selector 'Narrow the series with label matchers, e.g. ''{cluster="a"}'''
            cand --prom-token 'Bearer token for the server (never printed)'
            cand --prom-user 'Basic-auth user (the password comes from GPUAUDIT_PROM_PASSWORD)'
            cand --prom-password 'Basic-auth password (never printed; prefer the environment variable)'
            cand --prom-timeout 'Give up on one request after this long'
            cand --prom-retries 'Retries of a request that failed to connect, was cut off mid-answer or got 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured)'
            cand --hosts-per-query 'Hosts per query: smaller keeps memory lower, larger makes fewer requests'
            cand --prom-concurrency 'Requests in flight at once (each fetched and decoded on its own thread); the report is the same for any number'
            cand --prom-compression 'Ask for answers gzip-compressed (about a sixth of the bytes on the wire; the server spends CPU on it) or plain (faster on the same host or a fast network)'
            cand --input-format 'Read every input as this format instead of going by its extension'
            cand --map 'Map a source column onto a canonical one: SOURCE=CANONICAL[:UNIT], UNIT one of percent, fraction, mib, bytes. Repeatable. Example: --map gpu_busy=device_util:percent. Without a unit, a fraction column whose values exceed 1 (within 0..100) is read as percent'
            cand --at 'Time for samples without a timestamp (a scrape without timestamps, an nvidia-smi snapshot). Default: the file''s modification time'
            cand --job-label 'Scrape / Prometheus label that names the job. Default: the workload''s pod (exported_pod, or pod when it is not the exporter''s own), else hpc_job. Prometheus'' own job and instance labels name the scrape target, never a workload'
            cand --team-label 'Scrape / Prometheus label that names the team. Default: the workload''s namespace'
            cand --align 'Samples of one GPU stamped this close form one sample: metrics of one scrape stamped apart (Prometheus; default half the series'' step, else 5s), or two exporters scraping one GPU (every input; default 0: only the same instant)'
            cand --columns 'Column names of an nvidia-smi log written with `noheader`, in order, e.g. timestamp,index,uuid,utilization.gpu,memory.used'
            cand --baseline 'The run to compare with: a gpuaudit.report/1 JSON or a metric dump, read and audited like CURRENT. Needed by --max-drop and --max-rise'
            cand --rules 'Read more rules from a TOML file: [min], [max], [max-drop], [max-rise] tables of metric = limit'
            cand --since 'Keep samples at or after this time: RFC 3339 (2026-07-01T00:00:00Z), a date (2026-07-01), or a span back from the end of the data (7d, 12h)'
            cand --until 'Keep samples before this time: RFC 3339, a date, or a span back from the end of the data (1d)'
            cand --max-gap 'A gap between two samples of a GPU longer than this is unobserved time [default: 3 x the GPU''s median sample step]'
            cand --interval 'What one sample of a single-sample GPU (a snapshot) stands for [default: 1h]'
            cand --idle-below 'A held GPU is idle when device activity is below this fraction (0..1) or percent (1%)'
            cand --min-idle 'List idle episodes at least this long; shorter ones still count in idle hours'
            cand --held-mem 'Without a held or job column, a GPU using more memory than this is held (e.g. 1GiB, 512MiB)'
            cand --price 'One price for every GPU, in USD per GPU-hour (overrides --prices and the built-in profile)'
            cand --prices 'Prices per model: CSV (model,usd_per_gpu_hour) or TOML ("model" = usd)'
            cand --by 'Showback: group layers and cost by this label'
            cand --top 'How many idle episodes to list (all in JSON output unless set)'
            cand --bucket 'Timeline bucket length (e.g. 15m, 1h) [default: the smallest of 1m, 5m, 15m, 1h, 6h, 1d that is at least 4 sample steps and spans at most 720 buckets]'
            cand --leak-thresholds 'Leak map thresholds from a TOML file (starved_below, underfilled_below, memory_bound_dram_at_least, memory_bound_tensor_below, no_tensor_below); a key left out keeps its default, the idle row is --idle-below'
            cand --want 'GPUs asked for: the purchase answer says whether idle capacity covers them'
            cand --jobs 'Declared work per job, for MFU (the "useful" layer): CSV, JSON or parquet with a job column and flops_per_token + tokens_per_sec, or achieved_tflops (the job''s total), or model_flops (over its run); optional dtype (default bf16), peak_tflops; optional kind (training, inference, interactive, batch) for the jobs section'
            cand --threads 'Worker threads for reading and auditing [default: every core]; the figures are the same for any number (sums to 1e-12, counts exactly)'
            cand --format 'Output format'
            cand --min 'A floor on CURRENT: METRIC=VALUE (a ratio as 0.35 or 35%). Repeatable'
            cand --max 'A ceiling on CURRENT: METRIC=VALUE. Repeatable'
            cand --max-drop 'How far CURRENT may fall below BASELINE: METRIC=AMOUNT, AMOUNT being 2pp (percentage points, ratios), 5% (relative) or a number in the metric''s unit (for a ratio a fraction: 0.02 is 2pp)'
            cand --max-rise 'How far CURRENT may rise above BASELINE: METRIC=AMOUNT (2pp, 5% or a number)'
            cand --pushdown 'Compute the layers, timeline and leak map inside Prometheus with PromQL and fetch only the aggregates (for fleets too large to pull; no idle episodes, per-GPU rows, node view or jobs; see the report''s notes)'
            cand --allow-missing 'A rule whose metric is null (not measured) is skipped instead of an error'
            cand --strict 'Comparability warnings (prices, window lengths, GPU count, held rule differ between CURRENT and BASELINE) fail the check instead of being reported'
            cand --list-metrics 'Print the metrics a rule can name and exit'
            cand --assume-held 'Treat every sample as held when the input has no held, job or memory column'
            cand --no-builtin-prices 'Do not fall back to the built-in dated price profile for unpriced models'
            cand -q 'No progress bar'
            cand --quiet 'No progress bar'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'gpuaudit;help'= {
            cand report 'Report held vs used GPU-hours, idle episodes and idle cost from metric dumps'
            cand demo 'Write a synthetic demo fleet (deterministic; for demos, tests and benchmarks)'
            cand scan 'Sample this node''s GPUs live through NVML: who holds each card, is it busy, what idle costs'
            cand mfu 'MFU calculator: model FLOP/s from throughput and model size over the GPUs'' dense peak'
            cand peaks 'The dense peak TFLOP/s table MFU is measured against, with sources'
            cand check 'Fail a CI build when utilization regresses: rules on a run''s report, against a baseline'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'gpuaudit;help;report'= {
        }
        &'gpuaudit;help;demo'= {
        }
        &'gpuaudit;help;scan'= {
        }
        &'gpuaudit;help;mfu'= {
        }
        &'gpuaudit;help;peaks'= {
        }
        &'gpuaudit;help;check'= {
        }
        &'gpuaudit;help;help'= {
        }
    ]
    $completions[$command]
}
