_gpuaudit() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="gpuaudit"
                ;;
            gpuaudit,check)
                cmd="gpuaudit__subcmd__check"
                ;;
            gpuaudit,convert)
                cmd="gpuaudit__subcmd__convert"
                ;;
            gpuaudit,demo)
                cmd="gpuaudit__subcmd__demo"
                ;;
            gpuaudit,explain)
                cmd="gpuaudit__subcmd__explain"
                ;;
            gpuaudit,help)
                cmd="gpuaudit__subcmd__help"
                ;;
            gpuaudit,mfu)
                cmd="gpuaudit__subcmd__mfu"
                ;;
            gpuaudit,peaks)
                cmd="gpuaudit__subcmd__peaks"
                ;;
            gpuaudit,report)
                cmd="gpuaudit__subcmd__report"
                ;;
            gpuaudit,scan)
                cmd="gpuaudit__subcmd__scan"
                ;;
            gpuaudit,sql)
                cmd="gpuaudit__subcmd__sql"
                ;;
            gpuaudit__subcmd__help,check)
                cmd="gpuaudit__subcmd__help__subcmd__check"
                ;;
            gpuaudit__subcmd__help,convert)
                cmd="gpuaudit__subcmd__help__subcmd__convert"
                ;;
            gpuaudit__subcmd__help,demo)
                cmd="gpuaudit__subcmd__help__subcmd__demo"
                ;;
            gpuaudit__subcmd__help,explain)
                cmd="gpuaudit__subcmd__help__subcmd__explain"
                ;;
            gpuaudit__subcmd__help,help)
                cmd="gpuaudit__subcmd__help__subcmd__help"
                ;;
            gpuaudit__subcmd__help,mfu)
                cmd="gpuaudit__subcmd__help__subcmd__mfu"
                ;;
            gpuaudit__subcmd__help,peaks)
                cmd="gpuaudit__subcmd__help__subcmd__peaks"
                ;;
            gpuaudit__subcmd__help,report)
                cmd="gpuaudit__subcmd__help__subcmd__report"
                ;;
            gpuaudit__subcmd__help,scan)
                cmd="gpuaudit__subcmd__help__subcmd__scan"
                ;;
            gpuaudit__subcmd__help,sql)
                cmd="gpuaudit__subcmd__help__subcmd__sql"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gpuaudit)
            opts="-h -V --help --version report convert demo scan explain sql mfu peaks check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__check)
            opts="-q -h -V --partials --prometheus --step --selector --pushdown --prom-queue --prom-token --prom-user --prom-password --prom-timeout --prom-retries --hosts-per-query --prom-concurrency --prom-compression --clickhouse --trino --sql-table --sql-schema --sql-user --sql-password --sql-timeout --sql-retries --input-format --map --at --job-label --team-label --align --columns --baseline --rules --allow-missing --strict --list-metrics --since --until --max-gap --interval --idle-below --min-idle --held-mem --assume-held --price --prices --no-builtin-prices --by --top --bucket --leak-thresholds --want --queue --queue-tz --min-window --own-cost --jobs --threads --format --quiet --min --max --max-drop --max-rise --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --partials)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prometheus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hosts-per-query)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-compression)
                    COMPREPLY=($(compgen -W "gzip none" -- "${cur}"))
                    return 0
                    ;;
                --clickhouse)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trino)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-table)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-schema)
                    COMPREPLY=($(compgen -W "wide otel" -- "${cur}"))
                    return 0
                    ;;
                --sql-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --input-format)
                    COMPREPLY=($(compgen -W "parquet csv ndjson prom prom-json nvidia-smi nvidia-smi-dmon nvidia-smi-xml amd-smi-json amd-smi-monitor amd-smi-text rocm-smi-json rocm-smi-csv hl-smi xpu-smi otlp-json" -- "${cur}"))
                    return 0
                    ;;
                --map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --team-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --align)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --columns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --baseline)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --rules)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-gap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-below)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-idle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --held-mem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --price)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prices)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --by)
                    COMPREPLY=($(compgen -W "team user job host model" -- "${cur}"))
                    return 0
                    ;;
                --top)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bucket)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --leak-thresholds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --want)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue-tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --own-cost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json markdown junit" -- "${cur}"))
                    return 0
                    ;;
                --min)
                    COMPREPLY=($(compgen -W "active= sm_active= sm_occupancy= tensor_active= mfu= held_of_observed= idle_held= idle_held_share= observed_gpu_hours= held_gpu_hours= active_gpu_hours= sm_active_gpu_hours= tensor_active_gpu_hours= useful_gpu_hours= idle_held_gpu_hours= unallocated_gpu_hours= unpriced_gpu_hours= observed_usd= held_usd= idle_held_usd= unallocated_usd= not_useful_usd= observed_usd_per_hour= held_usd_per_hour= idle_held_usd_per_hour= unallocated_usd_per_hour= not_useful_usd_per_hour= monthly_observed_usd= monthly_held_usd= monthly_idle_held_usd= monthly_unallocated_usd= monthly_not_useful_usd= leaks.held_unknown= leaks.held_unknown.share_of_held= leaks.held_unknown.usd= leaks.unallocated= leaks.unallocated.share_of_held= leaks.unallocated.usd= leaks.unmeasured= leaks.unmeasured.share_of_held= leaks.unmeasured.usd= leaks.idle= leaks.idle.share_of_held= leaks.idle.usd= leaks.starved= leaks.starved.share_of_held= leaks.starved.usd= leaks.underfilled= leaks.underfilled.share_of_held= leaks.underfilled.usd= leaks.memory_bound= leaks.memory_bound.share_of_held= leaks.memory_bound.usd= leaks.no_tensor= leaks.no_tensor.share_of_held= leaks.no_tensor.usd= leaks.effective= leaks.effective.share_of_held= leaks.effective.usd= leaks.busy_unprofiled= leaks.busy_unprofiled.share_of_held= leaks.busy_unprofiled.usd= nodes.node_held_gpu_hours= nodes.stranded_gpu_hours= nodes.free_node_gpu_hours= nodes.stranded_usd= nodes.free_node_usd= purchase.owned= purchase.held_p50= purchase.held_p95= purchase.held_max= purchase.spare_p5= purchase.output_equivalent_gpus= purchase.gpus_seen= purchase.reclaimable_gpus= purchase.covered_by_reclaim= purchase.uncovered_gpus= purchase.optimize_to_gpus= purchase.busy_equivalent_gpus_p95= purchase.busy_equivalent_gpus_peak= purchase.sm_equivalent_gpus_p95= purchase.sm_equivalent_gpus_peak= purchase.tensor_equivalent_gpus_p95= purchase.tensor_equivalent_gpus_peak= purchase.coverage= purchase.held_known_share= purchase.unobserved_gpu_hours= purchase.pending_gpu_hours= purchase.pending_gpus_p95= purchase.demand_p95= timeline.unobserved_buckets= jobs.ett.min=" -- "${cur}"))
                    return 0
                    ;;
                --max)
                    COMPREPLY=($(compgen -W "active= sm_active= sm_occupancy= tensor_active= mfu= held_of_observed= idle_held= idle_held_share= observed_gpu_hours= held_gpu_hours= active_gpu_hours= sm_active_gpu_hours= tensor_active_gpu_hours= useful_gpu_hours= idle_held_gpu_hours= unallocated_gpu_hours= unpriced_gpu_hours= observed_usd= held_usd= idle_held_usd= unallocated_usd= not_useful_usd= observed_usd_per_hour= held_usd_per_hour= idle_held_usd_per_hour= unallocated_usd_per_hour= not_useful_usd_per_hour= monthly_observed_usd= monthly_held_usd= monthly_idle_held_usd= monthly_unallocated_usd= monthly_not_useful_usd= leaks.held_unknown= leaks.held_unknown.share_of_held= leaks.held_unknown.usd= leaks.unallocated= leaks.unallocated.share_of_held= leaks.unallocated.usd= leaks.unmeasured= leaks.unmeasured.share_of_held= leaks.unmeasured.usd= leaks.idle= leaks.idle.share_of_held= leaks.idle.usd= leaks.starved= leaks.starved.share_of_held= leaks.starved.usd= leaks.underfilled= leaks.underfilled.share_of_held= leaks.underfilled.usd= leaks.memory_bound= leaks.memory_bound.share_of_held= leaks.memory_bound.usd= leaks.no_tensor= leaks.no_tensor.share_of_held= leaks.no_tensor.usd= leaks.effective= leaks.effective.share_of_held= leaks.effective.usd= leaks.busy_unprofiled= leaks.busy_unprofiled.share_of_held= leaks.busy_unprofiled.usd= nodes.node_held_gpu_hours= nodes.stranded_gpu_hours= nodes.free_node_gpu_hours= nodes.stranded_usd= nodes.free_node_usd= purchase.owned= purchase.held_p50= purchase.held_p95= purchase.held_max= purchase.spare_p5= purchase.output_equivalent_gpus= purchase.gpus_seen= purchase.reclaimable_gpus= purchase.covered_by_reclaim= purchase.uncovered_gpus= purchase.optimize_to_gpus= purchase.busy_equivalent_gpus_p95= purchase.busy_equivalent_gpus_peak= purchase.sm_equivalent_gpus_p95= purchase.sm_equivalent_gpus_peak= purchase.tensor_equivalent_gpus_p95= purchase.tensor_equivalent_gpus_peak= purchase.coverage= purchase.held_known_share= purchase.unobserved_gpu_hours= purchase.pending_gpu_hours= purchase.pending_gpus_p95= purchase.demand_p95= timeline.unobserved_buckets= jobs.ett.min=" -- "${cur}"))
                    return 0
                    ;;
                --max-drop)
                    COMPREPLY=($(compgen -W "active= sm_active= sm_occupancy= tensor_active= mfu= held_of_observed= idle_held= idle_held_share= observed_gpu_hours= held_gpu_hours= active_gpu_hours= sm_active_gpu_hours= tensor_active_gpu_hours= useful_gpu_hours= idle_held_gpu_hours= unallocated_gpu_hours= unpriced_gpu_hours= observed_usd= held_usd= idle_held_usd= unallocated_usd= not_useful_usd= observed_usd_per_hour= held_usd_per_hour= idle_held_usd_per_hour= unallocated_usd_per_hour= not_useful_usd_per_hour= monthly_observed_usd= monthly_held_usd= monthly_idle_held_usd= monthly_unallocated_usd= monthly_not_useful_usd= leaks.held_unknown= leaks.held_unknown.share_of_held= leaks.held_unknown.usd= leaks.unallocated= leaks.unallocated.share_of_held= leaks.unallocated.usd= leaks.unmeasured= leaks.unmeasured.share_of_held= leaks.unmeasured.usd= leaks.idle= leaks.idle.share_of_held= leaks.idle.usd= leaks.starved= leaks.starved.share_of_held= leaks.starved.usd= leaks.underfilled= leaks.underfilled.share_of_held= leaks.underfilled.usd= leaks.memory_bound= leaks.memory_bound.share_of_held= leaks.memory_bound.usd= leaks.no_tensor= leaks.no_tensor.share_of_held= leaks.no_tensor.usd= leaks.effective= leaks.effective.share_of_held= leaks.effective.usd= leaks.busy_unprofiled= leaks.busy_unprofiled.share_of_held= leaks.busy_unprofiled.usd= nodes.node_held_gpu_hours= nodes.stranded_gpu_hours= nodes.free_node_gpu_hours= nodes.stranded_usd= nodes.free_node_usd= purchase.owned= purchase.held_p50= purchase.held_p95= purchase.held_max= purchase.spare_p5= purchase.output_equivalent_gpus= purchase.gpus_seen= purchase.reclaimable_gpus= purchase.covered_by_reclaim= purchase.uncovered_gpus= purchase.optimize_to_gpus= purchase.busy_equivalent_gpus_p95= purchase.busy_equivalent_gpus_peak= purchase.sm_equivalent_gpus_p95= purchase.sm_equivalent_gpus_peak= purchase.tensor_equivalent_gpus_p95= purchase.tensor_equivalent_gpus_peak= purchase.coverage= purchase.held_known_share= purchase.unobserved_gpu_hours= purchase.pending_gpu_hours= purchase.pending_gpus_p95= purchase.demand_p95= timeline.unobserved_buckets= jobs.ett.min=" -- "${cur}"))
                    return 0
                    ;;
                --max-rise)
                    COMPREPLY=($(compgen -W "active= sm_active= sm_occupancy= tensor_active= mfu= held_of_observed= idle_held= idle_held_share= observed_gpu_hours= held_gpu_hours= active_gpu_hours= sm_active_gpu_hours= tensor_active_gpu_hours= useful_gpu_hours= idle_held_gpu_hours= unallocated_gpu_hours= unpriced_gpu_hours= observed_usd= held_usd= idle_held_usd= unallocated_usd= not_useful_usd= observed_usd_per_hour= held_usd_per_hour= idle_held_usd_per_hour= unallocated_usd_per_hour= not_useful_usd_per_hour= monthly_observed_usd= monthly_held_usd= monthly_idle_held_usd= monthly_unallocated_usd= monthly_not_useful_usd= leaks.held_unknown= leaks.held_unknown.share_of_held= leaks.held_unknown.usd= leaks.unallocated= leaks.unallocated.share_of_held= leaks.unallocated.usd= leaks.unmeasured= leaks.unmeasured.share_of_held= leaks.unmeasured.usd= leaks.idle= leaks.idle.share_of_held= leaks.idle.usd= leaks.starved= leaks.starved.share_of_held= leaks.starved.usd= leaks.underfilled= leaks.underfilled.share_of_held= leaks.underfilled.usd= leaks.memory_bound= leaks.memory_bound.share_of_held= leaks.memory_bound.usd= leaks.no_tensor= leaks.no_tensor.share_of_held= leaks.no_tensor.usd= leaks.effective= leaks.effective.share_of_held= leaks.effective.usd= leaks.busy_unprofiled= leaks.busy_unprofiled.share_of_held= leaks.busy_unprofiled.usd= nodes.node_held_gpu_hours= nodes.stranded_gpu_hours= nodes.free_node_gpu_hours= nodes.stranded_usd= nodes.free_node_usd= purchase.owned= purchase.held_p50= purchase.held_p95= purchase.held_max= purchase.spare_p5= purchase.output_equivalent_gpus= purchase.gpus_seen= purchase.reclaimable_gpus= purchase.covered_by_reclaim= purchase.uncovered_gpus= purchase.optimize_to_gpus= purchase.busy_equivalent_gpus_p95= purchase.busy_equivalent_gpus_peak= purchase.sm_equivalent_gpus_p95= purchase.sm_equivalent_gpus_peak= purchase.tensor_equivalent_gpus_p95= purchase.tensor_equivalent_gpus_peak= purchase.coverage= purchase.held_known_share= purchase.unobserved_gpu_hours= purchase.pending_gpu_hours= purchase.pending_gpus_p95= purchase.demand_p95= timeline.unobserved_buckets= jobs.ett.min=" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__convert)
            opts="-o -q -h -V --partials --prometheus --step --selector --pushdown --prom-queue --prom-token --prom-user --prom-password --prom-timeout --prom-retries --hosts-per-query --prom-concurrency --prom-compression --clickhouse --trino --sql-table --sql-schema --sql-user --sql-password --sql-timeout --sql-retries --input-format --map --at --job-label --team-label --align --columns --output --quiet --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --partials)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prometheus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hosts-per-query)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-compression)
                    COMPREPLY=($(compgen -W "gzip none" -- "${cur}"))
                    return 0
                    ;;
                --clickhouse)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trino)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-table)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-schema)
                    COMPREPLY=($(compgen -W "wide otel" -- "${cur}"))
                    return 0
                    ;;
                --sql-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --input-format)
                    COMPREPLY=($(compgen -W "parquet csv ndjson prom prom-json nvidia-smi nvidia-smi-dmon nvidia-smi-xml amd-smi-json amd-smi-monitor amd-smi-text rocm-smi-json rocm-smi-csv hl-smi xpu-smi otlp-json" -- "${cur}"))
                    return 0
                    ;;
                --map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --team-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --align)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --columns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    local oldifs
                    if [ -n "${IFS+x}" ]; then
                        oldifs="$IFS"
                    fi
                    IFS=$'\n'
                    COMPREPLY=($(compgen -f "${cur}"))
                    if [ -n "${oldifs+x}" ]; then
                        IFS="$oldifs"
                    fi
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o filenames
                    fi
                    return 0
                    ;;
                -o)
                    local oldifs
                    if [ -n "${IFS+x}" ]; then
                        oldifs="$IFS"
                    fi
                    IFS=$'\n'
                    COMPREPLY=($(compgen -f "${cur}"))
                    if [ -n "${oldifs+x}" ]; then
                        IFS="$oldifs"
                    fi
                    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
                        compopt -o filenames
                    fi
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__demo)
            opts="-h -V --out --gpus --days --interval --seed --start --partition-by-day --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --days)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__explain)
            opts="-h -V --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help)
            opts="report convert demo scan explain sql mfu peaks check help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__convert)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__demo)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__explain)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__mfu)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__peaks)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__report)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__scan)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__help__subcmd__sql)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__mfu)
            opts="-h -V --gpus --peak-tflops --dtype --tokens-per-sec --tokens-per-sec-per-gpu --tokens-per-step --step-time --flops-per-token --params --mode --layers --heads --head-dim --seq-len --achieved-tflops-per-gpu --recompute --format --gpu --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peak-tflops)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dtype)
                    COMPREPLY=($(compgen -W "fp64 fp32 tf32 bf16 fp16 fp8 int8" -- "${cur}"))
                    return 0
                    ;;
                --tokens-per-sec)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-per-sec-per-gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-per-step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --flops-per-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --params)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -W "train inference" -- "${cur}"))
                    return 0
                    ;;
                --layers)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --head-dim)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seq-len)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --achieved-tflops-per-gpu)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --recompute)
                    COMPREPLY=($(compgen -W "full selective" -- "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json" -- "${cur}"))
                    return 0
                    ;;
                --gpu)
                    COMPREPLY=($(compgen -W "Tesla-T4 Tesla-V100-SXM2-16GB Tesla-V100-SXM2-32GB Tesla-V100-PCIE-16GB Tesla-V100-PCIE-32GB A100-SXM4-40GB A100-SXM4-80GB A100-PCIE-40GB A100-80GB-PCIe A10 A10G L4 L40 L40S H100-80GB-HBM3 H100-PCIe H100-NVL H200 H200-NVL B200 GB200 GeForce-RTX-4090 AMD-Instinct-MI300X AMD-Instinct-MI325X AMD-Instinct-MI350X AMD-Instinct-MI355X AMD-Instinct-MI250X Intel-Gaudi-2 Intel-Gaudi-3 Intel-Data-Center-GPU-Max-1550 Google-TPU-v4 Google-TPU-v5e Google-TPU-v5p" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__peaks)
            opts="-h -V --format --help --version Tesla-T4 Tesla-V100-SXM2-16GB Tesla-V100-SXM2-32GB Tesla-V100-PCIE-16GB Tesla-V100-PCIE-32GB A100-SXM4-40GB A100-SXM4-80GB A100-PCIE-40GB A100-80GB-PCIe A10 A10G L4 L40 L40S H100-80GB-HBM3 H100-PCIe H100-NVL H200 H200-NVL B200 GB200 GeForce-RTX-4090 AMD-Instinct-MI300X AMD-Instinct-MI325X AMD-Instinct-MI350X AMD-Instinct-MI355X AMD-Instinct-MI250X Intel-Gaudi-2 Intel-Gaudi-3 Intel-Data-Center-GPU-Max-1550 Google-TPU-v4 Google-TPU-v5e Google-TPU-v5p"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "table json" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__report)
            opts="-o -q -h -V --partials --prometheus --step --selector --pushdown --prom-queue --prom-token --prom-user --prom-password --prom-timeout --prom-retries --hosts-per-query --prom-concurrency --prom-compression --clickhouse --trino --sql-table --sql-schema --sql-user --sql-password --sql-timeout --sql-retries --input-format --map --at --job-label --team-label --align --columns --since --until --max-gap --interval --idle-below --min-idle --held-mem --assume-held --price --prices --no-builtin-prices --by --top --bucket --leak-thresholds --want --queue --queue-tz --min-window --own-cost --jobs --threads --format --output --quiet --table --per-gpu --width --title --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --partials)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prometheus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --step)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --selector)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hosts-per-query)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-concurrency)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prom-compression)
                    COMPREPLY=($(compgen -W "gzip none" -- "${cur}"))
                    return 0
                    ;;
                --clickhouse)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trino)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-table)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-schema)
                    COMPREPLY=($(compgen -W "wide otel" -- "${cur}"))
                    return 0
                    ;;
                --sql-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sql-retries)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --input-format)
                    COMPREPLY=($(compgen -W "parquet csv ndjson prom prom-json nvidia-smi nvidia-smi-dmon nvidia-smi-xml amd-smi-json amd-smi-monitor amd-smi-text rocm-smi-json rocm-smi-csv hl-smi xpu-smi otlp-json" -- "${cur}"))
                    return 0
                    ;;
                --map)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --team-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --align)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --columns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-gap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-below)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-idle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --held-mem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --price)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prices)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --by)
                    COMPREPLY=($(compgen -W "team user job host model" -- "${cur}"))
                    return 0
                    ;;
                --top)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bucket)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --leak-thresholds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --want)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue-tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --own-cost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json csv markdown html" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --table)
                    COMPREPLY=($(compgen -W "layers groups episodes gpus jobs timeline" -- "${cur}"))
                    return 0
                    ;;
                --width)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --title)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__scan)
            opts="-q -h -V --duration --interval --once --pre --post --nvml-timeout --nvml-lib --require-nvml --out --format --quiet --since --until --max-gap --idle-below --min-idle --assume-held --price --prices --no-builtin-prices --by --top --bucket --leak-thresholds --want --queue --queue-tz --min-window --own-cost --jobs --threads --tokens-per-sec --flops-per-token --params --mode --achieved-tflops --dtype --snapshot-interval --held-mem --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pre)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --post)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --nvml-lib)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --out)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "table json" -- "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-gap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-below)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-idle)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --price)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prices)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --by)
                    COMPREPLY=($(compgen -W "team user job host model" -- "${cur}"))
                    return 0
                    ;;
                --top)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bucket)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --leak-thresholds)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --want)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --queue-tz)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --own-cost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --jobs)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-per-sec)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --flops-per-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --params)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mode)
                    COMPREPLY=($(compgen -W "train inference" -- "${cur}"))
                    return 0
                    ;;
                --achieved-tflops)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dtype)
                    COMPREPLY=($(compgen -W "fp64 fp32 tf32 bf16 fp16 fp8 int8" -- "${cur}"))
                    return 0
                    ;;
                --snapshot-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --held-mem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        gpuaudit__subcmd__sql)
            opts="-o -h -V --dialect --table --columns --schema --since --until --max-gap --interval --idle-below --held-mem --assume-held --by --bucket --output --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dialect)
                    COMPREPLY=($(compgen -W "duckdb clickhouse spark trino bigquery" -- "${cur}"))
                    return 0
                    ;;
                --table)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --columns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --schema)
                    COMPREPLY=($(compgen -W "wide otel" -- "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-gap)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-below)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --held-mem)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --by)
                    COMPREPLY=($(compgen -W "team user job host model" -- "${cur}"))
                    return 0
                    ;;
                --bucket)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _gpuaudit -o nosort -o bashdefault -o default gpuaudit
else
    complete -F _gpuaudit -o bashdefault -o default gpuaudit
fi
