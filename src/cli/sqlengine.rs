//! A SQL engine that holds the samples and has an HTTP API: ClickHouse's HTTP
//! interface or Trino's REST protocol. `report` sends it `gpuaudit sql`'s query
//! and reads the partial sums it answers (docs/semantics.md §14).
use super::sql::SchemaArg;
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct SqlEngineArgs {
    /// Run the audit's query on this ClickHouse (HTTP interface, e.g. http://ch:8123)
    /// over --sql-table and report from its partial sums.
    #[arg(long, value_name = "URL", requires = "sql_table", conflicts_with_all = ["inputs", "prometheus", "partials", "trino"], help_heading = "SQL engine")]
    pub clickhouse: Option<String>,

    /// Run the audit's query on this Trino (REST protocol, e.g. http://trino:8080)
    /// over --sql-table and report from its partial sums.
    #[arg(long, value_name = "URL", requires = "sql_table", conflicts_with_all = ["inputs", "prometheus", "partials"], help_heading = "SQL engine")]
    pub trino: Option<String>,

    /// The engine's table of samples (Trino: catalog.schema.table); --columns names
    /// its columns as for `gpuaudit sql`.
    #[arg(long, value_name = "NAME", help_heading = "SQL engine")]
    pub sql_table: Option<String>,

    /// How the table lays samples out (otel: ClickHouse's OpenTelemetry exporter table).
    #[arg(
        long,
        value_enum,
        value_name = "SCHEMA",
        default_value = "wide",
        help_heading = "SQL engine"
    )]
    pub sql_schema: SchemaArg,

    /// The engine's user (ClickHouse: X-ClickHouse-User; Trino: X-Trino-User
    /// [default: gpuaudit]); the password comes from GPUAUDIT_SQL_PASSWORD.
    #[arg(
        long,
        env = "GPUAUDIT_SQL_USER",
        value_name = "USER",
        help_heading = "SQL engine"
    )]
    pub sql_user: Option<String>,

    /// The user's password (never printed; prefer the environment variable).
    #[arg(
        long,
        env = "GPUAUDIT_SQL_PASSWORD",
        hide_env_values = true,
        value_name = "PASSWORD",
        help_heading = "SQL engine"
    )]
    pub sql_password: Option<String>,

    /// Give up on one request after this long (ClickHouse answers the whole query in one).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = super::positive_duration_us_arg,
        default_value = "30m",
        help_heading = "SQL engine"
    )]
    pub sql_timeout: i64,

    /// Retries of a request that failed to connect, was cut off mid-answer or got
    /// 429/502/503/504 (with backoff; a Retry-After of up to 60 s is honoured).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 3,
        help_heading = "SQL engine"
    )]
    pub sql_retries: u32,
}

impl SqlEngineArgs {
    /// Whether an engine was named.
    pub fn given(&self) -> bool {
        self.clickhouse.is_some() || self.trino.is_some()
    }
}
