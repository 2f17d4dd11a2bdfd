-- writer-fence SQL contract, version 6: the same calls at a lower cost per statement (ADR 69).
--
-- Runs after the earlier versions, with the same two placeholders, ${writer_fence_schema} and
-- ${writer_fence_role}. Like them every statement is idempotent and every version may be applied
-- again over any install. Upgrading changes no table: every lease row and fencing token stays, and
-- every function keeps its signature, its answers and its messages.
--
-- Where an acquire's time went in version 4 (ADR 69 has the measured table): the compare-and-set
-- itself was about a fifth of it; the rest was the calls around it. acquire_lease called
-- take_lease, a SQL function with a SET clause, which PostgreSQL cannot inline and so parses and
-- plans again at every call; take_lease called take_lease_ms, and take_lease_ms called
-- token_epoch, each a PL/pgSQL function with SET clauses, whose every entry and exit sets
-- search_path (which also rebuilds the session's namespace search path) and lock_timeout; and
-- each RETURN QUERY through a set-returning function copied its row through a tuplestore. The
-- scalar forms acquire and acquire_ms were SQL functions with SET clauses too, planned anew at
-- every call.
--
-- This version keeps one SET of search_path and lock_timeout per call, on the granted function
-- the client calls, and one statement per grant:
--   * grant_lease_ms holds the compare-and-set of a writer without a ticket: take_lease_ms's
--     statement (ADR 13, 18, 31, 47) with p_waiter_token NULL, word for word otherwise, and
--     like take_lease_ms since version 5 it deletes the fence's lapsed tickets after a grant. It has
--     no SET clause and answers one composite value, so its granted callers reach it as a plain
--     PL/pgSQL expression: no tuplestore, no second setting of search_path or lock_timeout;
--     their SET clauses are in force while it runs. Like the input rules it is not SECURITY
--     DEFINER and no role may execute it.
--   * it reads the epoch with token_epoch's expression directly and calls token_epoch (which
--     stays as in version 3, the one home of its two refusals) only when the server is a standby
--     or the timeline is beyond the scheme, so that the refusal is raised with its message.
--   * acquire_lease, acquire_lease_ms, acquire and acquire_ms check their arguments as before
--     (args_ok, ttl_ms_ok; check_args and check_ttl_ms for the message) and call grant_lease_ms.
-- Unchanged on purpose: the input rules (inlined into each caller's cached plan, they cost about
-- 2 to 3 microseconds a call), release (its own statement already, with no flush of its own),
-- the queue's functions, SECURITY DEFINER with a pinned search_path and lock_timeout on every
-- granted function, the database clock, the failover epoch, and tokens that only grow.

-- grant_lease_ms: the compare-and-set of a writer without a ticket, for acquire_lease,
-- acquire_lease_ms, acquire and acquire_ms, which check the arguments first and pin search_path
-- and lock_timeout. The granted lease (fencing token, acquired_at, expires_at), or all three NULL
-- when busy. Busy at once, with no lock taken, while another session changes the row, while a
-- live ticket is queued (unless this holder token holds the row: a repeat after a lost answer),
-- and while the free lease is kept for a waiter.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.grant_lease_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_now timestamp with time zone,
    OUT fencing_token bigint, OUT acquired_at timestamptz, OUT expires_at timestamptz)
LANGUAGE plpgsql VOLATILE
AS $fn$
#variable_conflict use_column
DECLARE
    v_epoch bigint;
BEGIN
    -- token_epoch's expression, without its call; token_epoch raises the two refusals.
    IF pg_catalog.pg_is_in_recovery() THEN
        PERFORM ${writer_fence_schema}.token_epoch();
    END IF;
    v_epoch := ('x' || pg_catalog.substr(pg_catalog.pg_walfile_name(pg_catalog.pg_current_wal_lsn()), 1, 8))::bit(32)::bigint;
    IF v_epoch >= 8388608 THEN
        PERFORM ${writer_fence_schema}.token_epoch();
    END IF;
    WITH probe AS MATERIALIZED (
        SELECT 1 FROM ${writer_fence_schema}.lease AS p
         WHERE p.fence_name = p_fence_name
           AND (p.holder_token IS NULL OR p.expires_at <= p_now OR p.holder_token = p_holder_token)
           FOR UPDATE SKIP LOCKED)
    INSERT INTO ${writer_fence_schema}.lease AS l
        (fence_name, holder_token, holder_label, fencing_token, acquired_at, expires_at)
    SELECT p_fence_name, p_holder_token, p_holder_label, v_epoch * 1099511627776 + 1, p_now,
           p_now + make_interval(secs => p_ttl_ms / 1000.0)
     WHERE (EXISTS (SELECT 1 FROM probe)
            OR NOT EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS o
                            WHERE o.fence_name = p_fence_name
                              AND o.holder_token IS DISTINCT FROM p_holder_token))
       AND (NOT EXISTS (SELECT 1 FROM ${writer_fence_schema}.waiter AS w
                         WHERE w.fence_name = p_fence_name AND w.lapses_at > p_now)
            OR EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS m
                        WHERE m.fence_name = p_fence_name AND m.holder_token = p_holder_token))
    ON CONFLICT (fence_name) DO UPDATE SET
        holder_token   = EXCLUDED.holder_token,
        holder_label   = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.holder_label ELSE EXCLUDED.holder_label END,
        fencing_token  = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.fencing_token
                              ELSE greatest(l.fencing_token + 1, v_epoch * 1099511627776 + 1) END,
        acquired_at    = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.acquired_at ELSE p_now END,
        expires_at     = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > p_now
                              THEN l.expires_at ELSE EXCLUDED.expires_at END,
        reserved_for   = NULL,
        reserved_until = NULL
    WHERE l.holder_token = EXCLUDED.holder_token               -- same holder: its current lease
       OR ((l.holder_token IS NULL OR l.expires_at <= p_now)  -- free or expired
           AND (l.reserved_until IS NULL                       -- and not kept for a waiter
                OR l.reserved_until <= p_now))
    RETURNING l.fencing_token, l.acquired_at, l.expires_at
         INTO fencing_token, acquired_at, expires_at;
    -- As take_lease_ms does since version 5: a grant deletes the fence's lapsed tickets.
    IF fencing_token IS NOT NULL THEN
        PERFORM ${writer_fence_schema}.clear_lapsed(p_fence_name, p_now);
    END IF;
END
$fn$;

-- acquire_lease (V1's signature): one row (fencing token, acquired_at, expires_at) when acquired,
-- no row when busy; answers and messages as in version 4.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
DECLARE
    v record;
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    v := ${writer_fence_schema}.grant_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds * 1000::bigint, clock_timestamp());
    IF v.fencing_token IS NOT NULL THEN
        fencing_token := v.fencing_token;
        acquired_at := v.acquired_at;
        expires_at := v.expires_at;
        RETURN NEXT;
    END IF;
END
$fn$;

-- acquire_lease_ms (version 4's signature): acquire_lease with the TTL in milliseconds.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_lease_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
DECLARE
    v record;
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, 1)
            AND ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_ttl_ms(p_ttl_ms);
        RAISE EXCEPTION 'writer-fence: ttl_ms_ok and check_ttl_ms disagree' USING ERRCODE = 'XX000';
    END IF;
    v := ${writer_fence_schema}.grant_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms, clock_timestamp());
    IF v.fencing_token IS NOT NULL THEN
        fencing_token := v.fencing_token;
        acquired_at := v.acquired_at;
        expires_at := v.expires_at;
        RETURN NEXT;
    END IF;
END
$fn$;

-- acquire (V1's scalar form): the new fencing token, or NULL when busy. PL/pgSQL now, so that its
-- plan is kept for the session instead of being made again at every call.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN (${writer_fence_schema}.grant_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds * 1000::bigint,
        clock_timestamp())).fencing_token;
END
$fn$;

-- acquire_ms (version 4's scalar form): acquire with the TTL in milliseconds.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint)
RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, 1)
            AND ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_ttl_ms(p_ttl_ms);
        RAISE EXCEPTION 'writer-fence: ttl_ms_ok and check_ttl_ms disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN (${writer_fence_schema}.grant_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms, clock_timestamp())).fencing_token;
END
$fn$;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 6 $fn$;

-- grant_lease_ms is granted to nobody: only the functions above call it.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
