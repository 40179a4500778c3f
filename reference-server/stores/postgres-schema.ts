/**
 * The Postgres schema (docs/reference-server.md, "Postgres"), created on start. The advisory
 * lock keeps two instances starting together from racing on `CREATE TABLE IF NOT EXISTS`.
 */
export const SCHEMA_SQL = `
SELECT pg_advisory_xact_lock(hashtext('flagplane_schema'));
CREATE TABLE IF NOT EXISTS flagplane_identify_queue (
  id bigserial PRIMARY KEY,
  environment_id text NOT NULL,
  user_id text NOT NULL,
  traits jsonb NOT NULL,
  received_at timestamptz NOT NULL,
  claimed_at timestamptz,
  lease_until timestamptz
);
CREATE INDEX IF NOT EXISTS flagplane_identify_queue_environment ON flagplane_identify_queue (environment_id, id);
CREATE TABLE IF NOT EXISTS flagplane_analytics_events (
  id bigserial PRIMARY KEY,
  environment_id text NOT NULL,
  type text NOT NULL,
  received_at timestamptz NOT NULL,
  event jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS flagplane_identify_queue_received ON flagplane_identify_queue (received_at);
CREATE INDEX IF NOT EXISTS flagplane_analytics_events_received ON flagplane_analytics_events (received_at);
CREATE INDEX IF NOT EXISTS flagplane_analytics_events_kind ON flagplane_analytics_events (environment_id, type, id);
`;

export const INSERT_IDENTIFY_SQL = `
INSERT INTO flagplane_identify_queue (environment_id, user_id, traits, received_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $4::timestamptz[])`;

/** The newest $2 rows of environment $1 (all with a null limit), oldest first. */
export const LIST_IDENTIFY_SQL = `
SELECT * FROM (
  SELECT id, environment_id, user_id, traits, received_at FROM flagplane_identify_queue
  WHERE environment_id = $1 ORDER BY id DESC LIMIT $2
) newest ORDER BY id`;

/** What a queue consumer runs: claim, for $3 ms, up to $2 of the oldest rows of $1 that no live claim holds. */
export const CLAIM_IDENTIFY_SQL = `
UPDATE flagplane_identify_queue q SET claimed_at = now(), lease_until = now() + make_interval(secs => $3::float8 / 1000)
FROM (
  SELECT id FROM flagplane_identify_queue
  WHERE environment_id = $1 AND (lease_until IS NULL OR lease_until <= now())
  ORDER BY id LIMIT $2
  FOR UPDATE SKIP LOCKED
) claimable
WHERE q.id = claimable.id
RETURNING q.id, q.environment_id, q.user_id, q.traits, q.received_at, q.claimed_at`;

/** What a queue consumer runs once the rows are handled. */
export const ACK_IDENTIFY_SQL = `DELETE FROM flagplane_identify_queue WHERE environment_id = $1 AND id = ANY($2::bigint[])`;

export const INSERT_ANALYTICS_SQL = `
INSERT INTO flagplane_analytics_events (environment_id, type, received_at, event)
SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::jsonb[])`;

/** A page: the newest $2 + 1 rows of environment $1 older than id $3 (any with a null $3), newest first. */
export const PAGE_IDENTIFY_SQL = `
SELECT id, environment_id, user_id, traits, received_at FROM flagplane_identify_queue
WHERE environment_id = $1 AND ($3::bigint IS NULL OR id < $3::bigint) ORDER BY id DESC LIMIT $2::int + 1`;

/** A page: the newest $1 + 1 events older than id $2 (any with a null $2), newest first. */
export const PAGE_ANALYTICS_SQL = `
SELECT id, event FROM flagplane_analytics_events WHERE ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $1::int + 1`;

export const LIST_ANALYTICS_SQL = `
SELECT event FROM (SELECT id, event FROM flagplane_analytics_events ORDER BY id DESC LIMIT $1) newest ORDER BY id`;
