-- writer-fence SQL contract, version 3: fencing tokens that survive a failover (ADR 47).
--
-- Runs after V2__waiter_queue.sql, with the same two placeholders, ${writer_fence_schema} and
-- ${writer_fence_role}. Like V1 and V2 every statement is idempotent, and V1, V2 and this file may
-- be applied again over any install. Upgrading keeps every lease row: the next grant of a name
-- jumps to the epoch's first token, which is larger than any token issued before.
--
-- The token scheme. A fencing token is epoch * 2^40 + counter, a bigint as before:
--   * the epoch is the server's current timeline ID, which PostgreSQL raises at every promotion of
--     a standby and at the end of every point-in-time recovery;
--   * the counter counts grants of the fence name on that timeline, from 1.
-- A grant gives the larger of the name's last token + 1 and the epoch's first token, so tokens
-- still rise by one per grant within a timeline, and the first grant after a promotion is larger
-- than every token an earlier timeline issued, including grants the promoted standby never
-- received. 40 bits of counter allow 10^12 grants of one name per timeline; timeline IDs up to
-- 2^23 - 1 fit (PostgreSQL starts at 1 and adds one per promotion).
--
-- What an epoch cannot see: a data directory copied and started without recovery to a new
-- timeline (a file-system snapshot, a base backup restored without recovery.signal) keeps the old
-- timeline and the old rows; a logical dump restored into a new cluster starts at timeline 1 with
-- the dumped rows. Tokens then still rise per name, but grants the old cluster made after the copy
-- may be issued again. token_epoch_status() lets schema verify warn of both: it names the cluster
-- (pg_control_system's system_identifier, recorded in issuing_cluster at install) and the highest
-- epoch in the lease table, which is ahead of the server's when the rows came from a later
-- timeline.

-- The clusters that have issued tokens from this schema: written by every install, read by
-- token_epoch_status(). A row per system identifier (initdb's random cluster identity, kept by
-- streaming replicas and by base backups, new for a logical restore into a new cluster).
CREATE TABLE IF NOT EXISTS ${writer_fence_schema}.issuing_cluster (
    system_identifier bigint      PRIMARY KEY,
    first_timeline    integer     NOT NULL,
    recorded_at       timestamptz NOT NULL
);
REVOKE ALL ON TABLE ${writer_fence_schema}.issuing_cluster FROM PUBLIC;
ALTER TABLE ${writer_fence_schema}.issuing_cluster ENABLE ROW LEVEL SECURITY;

-- token_epoch: the epoch of tokens granted now, the server's current timeline ID. A standby in
-- recovery has none and grants nothing: read-only, SQLSTATE 25006, as any write there would be.
-- The timeline is the first 8 hex digits of the current WAL insert position's file name, which
-- changes at the moment of promotion (the checkpoint's timeline_id only at the next checkpoint).
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.token_epoch()
RETURNS bigint
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_timeline bigint;
BEGIN
    IF pg_catalog.pg_is_in_recovery() THEN
        RAISE EXCEPTION 'writer-fence: this server is a standby in recovery; leases are granted by the primary only'
            USING ERRCODE = '25006';
    END IF;
    v_timeline := ('x' || substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 1, 8))::bit(32)::bigint;
    IF v_timeline >= 8388608 THEN
        RAISE EXCEPTION 'writer-fence: timeline % is beyond the fencing-token scheme (timelines 1 to 8388607)',
            v_timeline USING ERRCODE = '22003';
    END IF;
    RETURN v_timeline;
END
$fn$;

-- take_lease: V2's compare-and-set (ADR 31), with the token of a new grant taken from the epoch:
-- greatest(last token + 1, epoch * 2^40 + 1). A repeat of the live holder still gets its lease
-- back unchanged. Everything else is V2's, word for word.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer,
    p_waiter_token uuid, p_now timestamp with time zone)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_first bigint := ${writer_fence_schema}.token_epoch() * 1099511627776 + 1;
BEGIN
    RETURN QUERY
    WITH probe AS MATERIALIZED (
        SELECT 1 FROM ${writer_fence_schema}.lease AS p
         WHERE p.fence_name = p_fence_name
           AND (p.holder_token IS NULL OR p.expires_at <= p_now OR p.holder_token = p_holder_token)
           FOR UPDATE SKIP LOCKED)
    INSERT INTO ${writer_fence_schema}.lease AS l
        (fence_name, holder_token, holder_label, fencing_token, acquired_at, expires_at)
    SELECT p_fence_name, p_holder_token, p_holder_label, v_first, p_now,
           p_now + make_interval(secs => p_ttl_seconds)
     WHERE (EXISTS (SELECT 1 FROM probe)
            OR NOT EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS o
                            WHERE o.fence_name = p_fence_name
                              AND o.holder_token IS DISTINCT FROM p_holder_token))
       AND (p_waiter_token IS NOT NULL
            OR NOT EXISTS (SELECT 1 FROM ${writer_fence_schema}.waiter AS w
                            WHERE w.fence_name = p_fence_name AND w.lapses_at > p_now)
            OR EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS m
                        WHERE m.fence_name = p_fence_name AND m.holder_token = p_holder_token))
    ON CONFLICT (fence_name) DO UPDATE SET
        holder_token   = EXCLUDED.holder_token,
        holder_label   = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.holder_label ELSE EXCLUDED.holder_label END,
        fencing_token  = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.fencing_token ELSE greatest(l.fencing_token + 1, v_first) END,
        acquired_at    = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.acquired_at ELSE p_now END,
        expires_at     = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.expires_at ELSE EXCLUDED.expires_at END,
        reserved_for   = NULL,
        reserved_until = NULL
    WHERE l.holder_token = EXCLUDED.holder_token               -- same holder: its current lease
       OR ((l.holder_token IS NULL OR l.expires_at <= p_now)  -- free or expired
           AND (l.reserved_until IS NULL                       -- and not kept for another waiter
                OR l.reserved_until <= p_now
                OR l.reserved_for = p_waiter_token))
    RETURNING l.fencing_token, l.acquired_at, l.expires_at;
END
$fn$;

-- next_advisory_fencing_token: the advisory-lock backend's tokens (ADR 7) follow the same scheme.
-- A sequence is not transactional and a promoted standby's may be behind; when nextval is below
-- the epoch's first token, one caller at a time (a transaction-scoped advisory lock in the
-- two-integer key space, apart from any application's bigint keys) moves the sequence up to it.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.next_advisory_fencing_token()
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    v_first bigint := ${writer_fence_schema}.token_epoch() * 1099511627776 + 1;
    v_token bigint := nextval('${writer_fence_schema}.advisory_fencing_token'::regclass);
BEGIN
    IF v_token < v_first THEN
        PERFORM pg_catalog.pg_advisory_xact_lock(
            '${writer_fence_schema}.advisory_fencing_token'::regclass::oid::integer, 1702260599);
        v_token := nextval('${writer_fence_schema}.advisory_fencing_token'::regclass);
        IF v_token < v_first THEN
            PERFORM pg_catalog.setval('${writer_fence_schema}.advisory_fencing_token'::regclass, v_first, false);
            v_token := nextval('${writer_fence_schema}.advisory_fencing_token'::regclass);
        END IF;
    END IF;
    RETURN v_token;
END
$fn$;

-- token_epoch_status: what schema verify and status need to tell whether this server's tokens
-- exceed every token the table holds. One row:
--   timeline           the epoch this server grants in now (NULL on a standby)
--   system_identifier  this cluster's identity
--   cluster_recorded   whether an install recorded this cluster in issuing_cluster
--   recorded_clusters  how many clusters are recorded
--   highest_epoch      the largest epoch among the lease table's tokens (NULL when empty); above
--                      timeline, the rows came from a later timeline than the server's
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.token_epoch_status()
RETURNS TABLE (timeline bigint, system_identifier bigint, cluster_recorded boolean,
               recorded_clusters integer, highest_epoch bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN pg_catalog.pg_is_in_recovery() THEN NULL
                ELSE ('x' || substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 1, 8))::bit(32)::bigint
           END,
           s.system_identifier,
           EXISTS (SELECT 1 FROM ${writer_fence_schema}.issuing_cluster AS c
                    WHERE c.system_identifier = s.system_identifier),
           (SELECT count(*)::integer FROM ${writer_fence_schema}.issuing_cluster),
           (SELECT max(l.fencing_token / 1099511627776) FROM ${writer_fence_schema}.lease AS l)
      FROM pg_catalog.pg_control_system() AS s
$fn$;

-- This install's cluster. On a standby (where nothing can be installed anyway) this is not reached.
INSERT INTO ${writer_fence_schema}.issuing_cluster (system_identifier, first_timeline, recorded_at)
SELECT s.system_identifier, ${writer_fence_schema}.token_epoch(), clock_timestamp()
  FROM pg_catalog.pg_control_system() AS s
ON CONFLICT (system_identifier) DO NOTHING;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 3 $fn$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    ${writer_fence_schema}.token_epoch_status()
    TO ${writer_fence_role};
