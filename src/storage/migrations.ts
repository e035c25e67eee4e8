// Schema of Slipway's own database, oldest first. Never edit a migration that has shipped: add one.
import type { Migration } from './db/types.js';

/**
 * Writes one DDL list for both dialects. `SORTED_TEXT` marks text columns that are compared and sorted:
 * PostgreSQL gets COLLATE "C" so they order bytewise, exactly as SQLite's BINARY collation does
 * (a locale collation would order 'a-b' and 'ab' differently and break keyset pagination).
 */
function ddl(id: string, statements: readonly string[]): Migration {
  return {
    id,
    sqlite: statements.map((s) => s.replaceAll('SORTED_TEXT', 'TEXT')),
    postgres: statements.map((s) => s.replaceAll('SORTED_TEXT', 'TEXT COLLATE "C"')),
  };
}

/** A ResourceTable (src/storage/repositories/resource-table.ts) and its creation-time index. */
function resourceTable(t: string): string[] {
  return [
    `CREATE TABLE ${t} (
        account_id TEXT NOT NULL,
        region TEXT NOT NULL,
        name_key SORTED_TEXT NOT NULL,
        name TEXT NOT NULL,
        arn TEXT NOT NULL,
        status SORTED_TEXT,
        doc TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        last_modified_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, region, name_key)
      )`,
    `CREATE INDEX ${t}_by_time ON ${t} (account_id, region, created_at, name_key)`,
  ];
}

/** Tables whose rows Search finds, with the column naming the resource a row's change touches. */
const SEARCH_SOURCES: ReadonlyArray<readonly [table: string, arnColumn: string]> = [
  ['lineage_entities', 'arn'],
  ['model_packages', 'arn'],
  ['model_package_groups', 'arn'],
  ['endpoints', 'arn'],
  // A resource's Tags and a trial component's Parents are part of its search record.
  ['tags', 'resource_arn'],
  ['lineage_trial_members', 'component_arn'],
];

/** Lineage kinds Search serves (artifacts, actions and contexts are not among ResourceType). */
const SEARCHED_KINDS = `('experiment', 'experiment-trial', 'experiment-trial-component')`;

/**
 * The triggers that mark a resource dirty for Search whenever a row of `table` naming it (in
 * `arnColumn`) is written. A table that comes to hold searchable resources (training jobs...)
 * gets them in its own migration: `searchSources('00xx_search_jobs', [['training_jobs', 'arn']])`,
 * which also marks the rows already there (the backfill) unless `backfill` is false.
 */
export function searchSources(
  id: string,
  sources: ReadonlyArray<readonly [table: string, arnColumn: string]>,
  backfill = true,
): Migration {
  const kinds = (table: string, row: string) =>
    table === 'lineage_entities' ? ` WHEN ${row}.kind IN ${SEARCHED_KINDS}` : '';
  return {
    id,
    both: !backfill
      ? []
      : sources.map(
          ([table, col]) =>
            `INSERT INTO search_dirty (arn) SELECT DISTINCT ${col} FROM ${table} WHERE ${col} NOT IN (SELECT arn FROM search_dirty)`,
        ),
    // Not INSERT OR IGNORE: an outer UPSERT (tags) overrides a trigger's conflict clause in SQLite.
    sqlite: sources.flatMap(([table, col]) =>
      [
        ['INSERT', 'NEW'],
        ['UPDATE', 'NEW'],
        ['DELETE', 'OLD'],
      ].map(
        ([event, row]) =>
          `CREATE TRIGGER search_dirty_${table}_${event!.toLowerCase()} AFTER ${event} ON ${table}${kinds(table, row!)}
           BEGIN INSERT INTO search_dirty (arn) SELECT ${row}.${col} WHERE NOT EXISTS (SELECT 1 FROM search_dirty WHERE arn = ${row}.${col}); END`,
      ),
    ),
    postgres: sources.map(
      ([table, col]) =>
        `CREATE TRIGGER search_dirty_${table} AFTER INSERT OR UPDATE OR DELETE ON ${table}
         FOR EACH ROW EXECUTE FUNCTION search_mark_dirty('${col}'${table === 'lineage_entities' ? ", 'kinds'" : ''})`,
    ),
  };
}

/**
 * Search's index (issue 18): one row per searchable resource (search_docs), one per resource type
 * and property path per partition (search_paths), and the values at each path (search_values), so
 * a filtered, sorted page is an index range scan. Triggers mark every written resource dirty in
 * the writer's own transaction (search_dirty), whoever the writer is; the service re-indexes dirty
 * resources before it answers. Existing resources start dirty (the backfill).
 */
function searchIndex(): Migration {
  const tables = (id: string) => [
    `CREATE TABLE search_docs (
      id ${id},
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      resource_type SORTED_TEXT NOT NULL,
      arn SORTED_TEXT NOT NULL UNIQUE
    )`,
    `CREATE TABLE search_paths (
      id ${id},
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      resource_type SORTED_TEXT NOT NULL,
      path SORTED_TEXT NOT NULL,
      UNIQUE (account_id, region, resource_type, path)
    )`,
    // num: numbers, and timestamps as epoch ms; str: text (booleans as 'true'/'false').
    `CREATE TABLE search_values (
      path_id BIGINT NOT NULL,
      num DOUBLE PRECISION,
      str SORTED_TEXT,
      doc_id BIGINT NOT NULL
    )`,
    `CREATE INDEX search_values_by_num ON search_values (path_id, num, doc_id) WHERE num IS NOT NULL`,
    `CREATE INDEX search_values_by_str ON search_values (path_id, str, doc_id) WHERE str IS NOT NULL`,
    `CREATE INDEX search_values_by_doc ON search_values (doc_id, path_id)`,
    `CREATE TABLE search_dirty (arn SORTED_TEXT PRIMARY KEY)`,
    `INSERT INTO search_dirty (arn)
       SELECT arn FROM lineage_entities WHERE kind IN ${SEARCHED_KINDS}
       UNION SELECT arn FROM model_packages UNION SELECT arn FROM model_package_groups UNION SELECT arn FROM endpoints`,
  ];
  const postgresTriggers = [
    // TG_ARGV[0]: the column naming the resource; TG_ARGV[1] = 'kinds': only the searched lineage kinds.
    // DO UPDATE, not DO NOTHING: it waits for an indexer holding the row (FOR UPDATE) and inserts
    // anew once that indexer has deleted it, so a write racing the indexer is never lost.
    `CREATE FUNCTION search_mark_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
     DECLARE r jsonb;
     BEGIN
       IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
       IF TG_NARGS < 2 OR (r ->> 'kind') IN ${SEARCHED_KINDS} THEN
         INSERT INTO search_dirty (arn) VALUES (r ->> TG_ARGV[0]) ON CONFLICT (arn) DO UPDATE SET arn = EXCLUDED.arn;
       END IF;
       RETURN NULL;
     END $$`,
  ];
  const triggers = searchSources('', SEARCH_SOURCES, false);
  const sorted = (list: string[], collate: string) => list.map((s) => s.replaceAll('SORTED_TEXT', collate));
  return {
    id: '0040_search',
    sqlite: sorted([...tables('INTEGER PRIMARY KEY'), ...triggers.sqlite!], 'TEXT'),
    postgres: sorted(
      [...tables('BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY'), ...postgresTriggers, ...triggers.postgres!],
      'TEXT COLLATE "C"',
    ),
  };
}

export const MIGRATIONS: readonly Migration[] = [
  ddl('0001_foundation', [
    // Server-wide secrets and settings (e.g. the NextToken signing key).
    `CREATE TABLE slipway_meta (key SORTED_TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    // Tags of every taggable resource, by ARN; seq keeps the order they were added in.
    `CREATE TABLE tags (
        resource_arn SORTED_TEXT NOT NULL,
        tag_key SORTED_TEXT NOT NULL,
        tag_value TEXT NOT NULL,
        seq BIGINT NOT NULL,
        PRIMARY KEY (resource_arn, tag_key)
      )`,
    `CREATE TABLE model_package_groups (
        account_id TEXT NOT NULL,
        region TEXT NOT NULL,
        name_key SORTED_TEXT NOT NULL,
        name TEXT NOT NULL,
        arn TEXT NOT NULL,
        description TEXT,
        status TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (account_id, region, name_key)
      )`,
    `CREATE INDEX model_package_groups_by_time ON model_package_groups (account_id, region, created_at, name_key)`,
  ]),
  // The embedded S3 store: metadata here, bytes in files under <data-dir>/s3 named by blob id.
  ddl('0002_s3', [
    `CREATE TABLE s3_buckets (
      name SORTED_TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    // object_key pages in UTF-8 byte order (S3's listing order). segments: JSON [[blobId, size], ...],
    // one per uploaded part, so completing a multipart upload moves no bytes.
    `CREATE TABLE s3_objects (
      bucket SORTED_TEXT NOT NULL,
      object_key SORTED_TEXT NOT NULL,
      size BIGINT NOT NULL,
      etag TEXT NOT NULL,
      last_modified BIGINT NOT NULL,
      headers TEXT NOT NULL,
      user_metadata TEXT NOT NULL,
      checksum_algorithm TEXT,
      checksum_value TEXT,
      checksum_type TEXT,
      parts_count INTEGER,
      segments TEXT NOT NULL,
      PRIMARY KEY (bucket, object_key)
    )`,
    `CREATE TABLE s3_uploads (
      upload_id SORTED_TEXT PRIMARY KEY,
      bucket SORTED_TEXT NOT NULL,
      object_key SORTED_TEXT NOT NULL,
      initiated BIGINT NOT NULL,
      headers TEXT NOT NULL,
      user_metadata TEXT NOT NULL,
      checksum_algorithm TEXT
    )`,
    `CREATE INDEX s3_uploads_by_key ON s3_uploads (bucket, object_key, upload_id)`,
    `CREATE TABLE s3_parts (
      upload_id SORTED_TEXT NOT NULL,
      part_number INTEGER NOT NULL,
      size BIGINT NOT NULL,
      etag TEXT NOT NULL,
      blob_id TEXT NOT NULL,
      checksum_value TEXT,
      last_modified BIGINT NOT NULL,
      PRIMARY KEY (upload_id, part_number)
    )`,
  ]),
  // Registry and hosting. Each resource keeps its validated API input as a JSON document (doc);
  // the columns are what is looked up, filtered and sorted.
  ddl('0003_registry', [
    ...['models', 'endpoint_configs', 'endpoints'].flatMap(resourceTable),
    `CREATE INDEX endpoints_by_status ON endpoints (status)`,
    // name_key: lower(group)/version (zero-padded) for versions, lower(name) for unversioned packages.
    `CREATE TABLE model_packages (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      name_key SORTED_TEXT NOT NULL,
      name TEXT NOT NULL,
      arn TEXT NOT NULL,
      status SORTED_TEXT,
      doc TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      last_modified_at BIGINT NOT NULL,
      group_key SORTED_TEXT,
      version INTEGER,
      approval SORTED_TEXT NOT NULL,
      package_type TEXT NOT NULL,
      client_token TEXT,
      PRIMARY KEY (account_id, region, name_key)
    )`,
    `CREATE INDEX model_packages_by_time ON model_packages (account_id, region, created_at, name_key)`,
    `CREATE INDEX model_packages_by_arn ON model_packages (account_id, region, arn)`,
    // The next version of a group is MAX(version) of its packages: one index probe.
    `CREATE INDEX model_packages_by_group ON model_packages (account_id, region, group_key, version)`,
    `CREATE UNIQUE INDEX model_packages_by_token ON model_packages (account_id, region, client_token) WHERE client_token IS NOT NULL`,
  ]),
  // ML lineage (issue 7): tracking entities, their associations and trial membership. ARN columns
  // are SORTED_TEXT: they are joined, paged and walked (QueryLineage) by value.
  ddl('0010_lineage', [
    `CREATE TABLE lineage_entities (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      arn SORTED_TEXT PRIMARY KEY,
      kind SORTED_TEXT NOT NULL,
      name_key SORTED_TEXT,
      name TEXT,
      entity_type TEXT,
      source_key TEXT,
      unique_source TEXT,
      parent_key SORTED_TEXT,
      doc TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      last_modified_at BIGINT NOT NULL
    )`,
    // Names are unique per kind regardless of case; an unnamed artifact (NULL) never collides.
    `CREATE UNIQUE INDEX lineage_entities_by_name ON lineage_entities (account_id, region, kind, name_key)`,
    `CREATE UNIQUE INDEX lineage_entities_by_unique_source ON lineage_entities (account_id, region, unique_source)`,
    `CREATE INDEX lineage_entities_by_time ON lineage_entities (account_id, region, kind, created_at, arn)`,
    // Covers getBySource's filter and order, so it never walks a partition by time instead.
    `CREATE INDEX lineage_entities_by_source ON lineage_entities (account_id, region, kind, source_key, entity_type, created_at, arn)`,
    `CREATE INDEX lineage_entities_by_parent ON lineage_entities (account_id, region, kind, parent_key)`,
    `CREATE INDEX lineage_entities_by_arn ON lineage_entities (account_id, region, kind, arn)`,
    `CREATE TABLE lineage_associations (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      source_arn SORTED_TEXT NOT NULL,
      destination_arn SORTED_TEXT NOT NULL,
      association_type TEXT,
      source_type SORTED_TEXT NOT NULL,
      destination_type SORTED_TEXT NOT NULL,
      source_lineage TEXT NOT NULL,
      destination_lineage TEXT NOT NULL,
      source_name TEXT,
      destination_name TEXT,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (source_arn, destination_arn)
    )`,
    // ListAssociations by SourceArn or DestinationArn in the default order (CreationTime), and
    // QueryLineage's batched walks in either direction, each served by one index range.
    `CREATE INDEX lineage_associations_by_source_time ON lineage_associations (source_arn, created_at, destination_arn)`,
    `CREATE INDEX lineage_associations_by_destination ON lineage_associations (destination_arn, source_arn)`,
    `CREATE INDEX lineage_associations_by_destination_time ON lineage_associations (destination_arn, created_at, source_arn)`,
    `CREATE INDEX lineage_associations_by_time ON lineage_associations (account_id, region, created_at, source_arn, destination_arn)`,
    `CREATE TABLE lineage_trial_members (
      trial_arn SORTED_TEXT NOT NULL,
      component_arn SORTED_TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (trial_arn, component_arn)
    )`,
    `CREATE INDEX lineage_trial_members_by_component ON lineage_trial_members (component_arn, trial_arn)`,
  ]),
  // The background job runner (src/jobs): durable work items with a lease per replica, and each
  // item's status transitions. state: queued | running | done.
  ddl('0020_jobs', [
    `CREATE TABLE job_items (
      kind SORTED_TEXT NOT NULL,
      item_id SORTED_TEXT NOT NULL,
      payload TEXT NOT NULL,
      state SORTED_TEXT NOT NULL,
      status TEXT,
      generation INTEGER NOT NULL,
      run_generation INTEGER NOT NULL,
      stop_requested INTEGER NOT NULL,
      attempts INTEGER NOT NULL,
      claimed_by TEXT,
      claim_token TEXT,
      lease_until BIGINT,
      deadline BIGINT,
      submitted_at BIGINT NOT NULL,
      started_at BIGINT,
      finished_at BIGINT,
      PRIMARY KEY (kind, item_id)
    )`,
    // The claim query: queued items in submission order, and running items whose lease ran out.
    `CREATE INDEX job_items_by_state ON job_items (state, kind, submitted_at, item_id)`,
    `CREATE TABLE job_transitions (
      kind SORTED_TEXT NOT NULL,
      item_id SORTED_TEXT NOT NULL,
      seq INTEGER NOT NULL,
      status TEXT NOT NULL,
      message TEXT,
      at BIGINT NOT NULL,
      PRIMARY KEY (kind, item_id, seq)
    )`,
  ]),
  // CloudWatch Logs as SageMaker jobs write them: groups, streams and their events (seq orders a
  // stream's events as they were written; event_time is the event's own timestamp).
  ddl('0021_logs', [
    `CREATE TABLE log_groups (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      name SORTED_TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, region, name)
    )`,
    `CREATE TABLE log_streams (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      log_group SORTED_TEXT NOT NULL,
      name SORTED_TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      first_event BIGINT,
      last_event BIGINT,
      last_ingestion BIGINT,
      stored_bytes BIGINT NOT NULL,
      next_seq BIGINT NOT NULL,
      PRIMARY KEY (account_id, region, log_group, name)
    )`,
    `CREATE INDEX log_streams_by_last_event ON log_streams (account_id, region, log_group, last_event, name)`,
    `CREATE TABLE log_events (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      log_group SORTED_TEXT NOT NULL,
      log_stream SORTED_TEXT NOT NULL,
      seq BIGINT NOT NULL,
      event_time BIGINT NOT NULL,
      ingestion_time BIGINT NOT NULL,
      message TEXT NOT NULL,
      PRIMARY KEY (account_id, region, log_group, log_stream, seq)
    )`,
    // FilterLogEvents reads a group's events in time order across its streams.
    `CREATE INDEX log_events_by_time ON log_events (account_id, region, log_group, event_time, log_stream, seq)`,
  ]),
  // Training jobs (a ResourceTable: the validated CreateTrainingJob input and what the job recorded
  // as it ran, in doc; status is TrainingJobStatus for ListTrainingJobs' StatusEquals and sort).
  ddl('0022_training_jobs', [
    ...resourceTable('training_jobs'),
    `CREATE INDEX training_jobs_by_status ON training_jobs (account_id, region, status, name_key)`,
  ]),
  searchIndex(),
  // Search finds training jobs: their table's writes mark them dirty, and the jobs already there are indexed.
  searchSources('0041_search_training_jobs', [['training_jobs', 'arn']]),
  // Transform and processing jobs, the same way (status is TransformJobStatus / ProcessingJobStatus).
  ddl('0042_transform_jobs', [
    ...resourceTable('transform_jobs'),
    `CREATE INDEX transform_jobs_by_status ON transform_jobs (account_id, region, status, name_key)`,
  ]),
  ddl('0043_processing_jobs', [
    ...resourceTable('processing_jobs'),
    `CREATE INDEX processing_jobs_by_status ON processing_jobs (account_id, region, status, name_key)`,
  ]),
  ...metricsMigrations(),
  // Hyperparameter tuning jobs (issue 31): a ResourceTable (status is HyperParameterTuningJobStatus;
  // doc the validated request with the counters and best job the run keeps up to date), and the
  // training jobs each launched, in launch order (seq), with their tuned hyperparameters (JSON) and
  // the final objective value they reported (NULL until they do) for ListTrainingJobsForHyperParameterTuningJob's sort by it.
  ddl('0080_tuning_jobs', [
    ...resourceTable('tuning_jobs'),
    `CREATE INDEX tuning_jobs_by_status ON tuning_jobs (account_id, region, status, name_key)`,
    `CREATE TABLE tuning_job_children (
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      tuning_key SORTED_TEXT NOT NULL,
      seq INTEGER NOT NULL,
      child_key SORTED_TEXT NOT NULL,
      definition_name TEXT,
      tuned TEXT NOT NULL,
      objective DOUBLE PRECISION,
      objective_status TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (account_id, region, tuning_key, seq)
    )`,
    `CREATE UNIQUE INDEX tuning_job_children_by_child ON tuning_job_children (account_id, region, child_key)`,
    `CREATE INDEX tuning_job_children_by_objective ON tuning_job_children (account_id, region, tuning_key, objective, seq)`,
  ]),
  // Search finds tuning jobs (Resource HyperParameterTuningJob).
  searchSources('0081_search_tuning_jobs', [['tuning_jobs', 'arn']]),
  // SageMaker Pipelines (issue 32): pipelines and their executions are ResourceTables (the
  // definition and the request in doc; an execution's name_key is its id); each step of an
  // execution is one durable row the executor (src/pipelines) advances: its status and attempt, the
  // job it started, the Describe snapshot its properties resolve from, its cache key.
  ddl('0090_pipelines', [
    ...resourceTable('pipelines'),
    ...resourceTable('pipeline_executions'),
    `ALTER TABLE pipeline_executions ADD COLUMN pipeline_key SORTED_TEXT`,
    `ALTER TABLE pipeline_executions ADD COLUMN client_token TEXT`,
    `CREATE INDEX pipeline_executions_by_pipeline ON pipeline_executions (account_id, region, pipeline_key, created_at, name_key)`,
    `CREATE INDEX pipeline_executions_by_arn ON pipeline_executions (account_id, region, arn)`,
    `CREATE UNIQUE INDEX pipeline_executions_by_token ON pipeline_executions (account_id, region, pipeline_key, client_token)`,
    `CREATE TABLE pipeline_steps (
      execution_arn SORTED_TEXT NOT NULL,
      step_name SORTED_TEXT NOT NULL,
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      pipeline_key SORTED_TEXT NOT NULL,
      step_type TEXT NOT NULL,
      status SORTED_TEXT NOT NULL,
      attempt INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      started_at BIGINT,
      ended_at BIGINT,
      not_before BIGINT,
      job_arn SORTED_TEXT,
      cache_key SORTED_TEXT,
      callback_token SORTED_TEXT,
      doc TEXT NOT NULL,
      PRIMARY KEY (execution_arn, step_name)
    )`,
    // A job's step (the runner's transitions wake the execution that waits on it).
    `CREATE INDEX pipeline_steps_by_job ON pipeline_steps (job_arn)`,
    // The most recent successful run of a step with the same cache key, per pipeline.
    `CREATE INDEX pipeline_steps_by_cache ON pipeline_steps (account_id, region, pipeline_key, step_name, cache_key, ended_at)`,
    `CREATE UNIQUE INDEX pipeline_steps_by_callback ON pipeline_steps (callback_token)`,
  ]),
  // Search finds pipelines and their executions.
  searchSources('0091_search_pipelines', [
    ['pipelines', 'arn'],
    ['pipeline_executions', 'arn'],
  ]),
  // Endpoint concurrency shared by replicas on PostgreSQL (src/inference/concurrency): each replica's
  // hold of a scope's slots (an endpoint's MaxConcurrency, the account's serverless concurrency, an
  // endpoint's ProvisionedConcurrency), alive while its lease runs and its session's advisory lock
  // (lock_a, lock_b) is held. Unused on SQLite, where one replica counts in memory.
  ddl('0100_slot_holds', [
    `CREATE TABLE slot_holds (
      scope SORTED_TEXT NOT NULL,
      holder SORTED_TEXT NOT NULL,
      slots INTEGER NOT NULL,
      lock_a BIGINT NOT NULL,
      lock_b BIGINT NOT NULL,
      lease_until BIGINT NOT NULL,
      PRIMARY KEY (scope, holder)
    )`,
    `CREATE INDEX slot_holds_by_holder ON slot_holds (holder, scope)`,
  ]),
];

/**
 * The metrics store (issue 29, src/metrics): CloudWatch metrics and SageMaker Metrics as one
 * time series store. A series is a namespace, a metric name and a dimension set (canonical JSON,
 * sorted by name); `last_seen` is when data last arrived (ListMetrics). Writes append to
 * metric_ingest (durable at once); the compactor folds those rows into metric_points, one row per
 * series, resolution (seconds), bucket start, unit and step (-1 when none: SageMaker Metrics give
 * steps), holding the statistic set and whether the values behind it are known (has_dist), with
 * them in dist unless every sample had one value (min = max: nothing more to store). Reads take both tables. STS sessions: temporary credentials AssumeRole and GetSessionToken
 * issue, by access key; no secret is stored (src/auth/sessions.ts derives it).
 */
function metricsMigrations(): Migration[] {
  const points = (table: string, id: string, blob: string) => `CREATE TABLE ${table} (
      ${id}
      series_id BIGINT NOT NULL,
      ts BIGINT NOT NULL,
      resolution INTEGER NOT NULL,
      unit TEXT NOT NULL,
      step BIGINT NOT NULL,
      sample_count DOUBLE PRECISION NOT NULL,
      sum DOUBLE PRECISION NOT NULL,
      min DOUBLE PRECISION NOT NULL,
      max DOUBLE PRECISION NOT NULL,
      has_dist INTEGER NOT NULL,
      dist ${blob}
    )`;
  const tables = (identity: string, blob: string, stats: string) => [
    `CREATE TABLE metric_series (
      id ${identity},
      account_id TEXT NOT NULL,
      region TEXT NOT NULL,
      namespace SORTED_TEXT NOT NULL,
      metric_name SORTED_TEXT NOT NULL,
      dimensions SORTED_TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      last_seen BIGINT NOT NULL,
      UNIQUE (account_id, region, namespace, metric_name, dimensions)
    )`,
    points('metric_ingest', `id ${identity},`, blob),
    `CREATE INDEX metric_ingest_by_series ON metric_ingest (series_id, ts)`,
    points('metric_points', '', blob),
    `CREATE UNIQUE INDEX metric_points_by_series ON metric_points (series_id, ts, resolution, unit, step)${stats === 'include' ? ' INCLUDE (sample_count, sum, min, max, has_dist)' : ''}`,
    // Statistics are read from the index alone, never from rows widened by their distributions
    // (PostgreSQL: the unique index INCLUDEs them; SQLite has no INCLUDE: a second index).
    ...(stats === 'index'
      ? [
          `CREATE INDEX metric_points_stats ON metric_points (series_id, ts, unit, resolution, step, sample_count, sum, min, max, has_dist)`,
        ]
      : []),
    // Roll-up and retention walk rows by age and resolution.
    `CREATE INDEX metric_points_by_age ON metric_points (resolution, ts)`,
    `CREATE TABLE sts_sessions (
      access_key_id SORTED_TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      arn TEXT NOT NULL,
      role_arn TEXT,
      source_arn TEXT NOT NULL,
      root_access_key_id TEXT,
      nonce TEXT NOT NULL,
      token_hash TEXT NOT NULL,
      session_policy TEXT,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    )`,
    `CREATE INDEX sts_sessions_by_expiry ON sts_sessions (expires_at)`,
  ];
  const sorted = (list: string[], collate: string) => list.map((s) => s.replaceAll('SORTED_TEXT', collate));
  return [
    {
      id: '0060_metrics',
      sqlite: sorted(tables('INTEGER PRIMARY KEY', 'BLOB', 'index'), 'TEXT'),
      postgres: sorted(
        tables('BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY', 'BYTEA', 'include'),
        'TEXT COLLATE "C"',
      ),
    },
  ];
}
