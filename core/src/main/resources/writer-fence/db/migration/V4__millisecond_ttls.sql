-- writer-fence SQL contract, version 4: TTLs in milliseconds (ADR 62).
--
-- Runs after V3__failover_tokens.sql, with the same two placeholders, ${writer_fence_schema} and
-- ${writer_fence_role}. Like V1 to V3 every statement is idempotent, and V1 to V4 may be applied
-- again over any install. Upgrading changes no table: every lease row and fencing token stays.
--
-- Versions 1 to 3 count a TTL in whole seconds (p_ttl_seconds integer, 1 to 86400). This version
-- adds the same calls with the TTL in milliseconds (p_ttl_ms bigint, 1 to 86400000: 1 ms to 24
-- hours), under names of their own ending in _ms:
--   acquire_lease_ms, acquire_ms, renew_lease_ms, renew_ms, acquire_turn_ms.
-- Every function of versions 1 to 3 keeps its signature, its answers and its messages: callers
-- in any language that pass whole seconds change nothing.
--
-- New names rather than overloads taking bigint: a caller that binds its TTL as a bigint (a Java
-- long) would silently reach a millisecond form with a number of seconds, and a driver that sends
-- its parameters untyped (as text) could no longer pick between two forms ("function is not
-- unique"). A unit in the name cannot be mistaken.
--
-- Still one compare-and-set and one poll: take_lease_ms is V3's take_lease word for word with the
-- TTL in milliseconds, and take_lease (whole seconds) now calls it; take_turn_ms is V2's
-- acquire_turn after its input checks, and acquire_turn and acquire_turn_ms each check their own
-- arguments and call it. A TTL of n seconds gives the same expiry as before, to the microsecond.

-- The TTL rule of the millisecond forms, in the style of args_ok (inlined, no SET clause, not
-- SECURITY DEFINER, executable by no role): 1 to 86400000 ms. The rest of an argument list is
-- checked by args_ok, with a TTL of 1 second standing in.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms bigint)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT coalesce(p_ttl_ms BETWEEN 1 AND 86400000, false)
$fn$;

-- Raises the message of the TTL rule (SQLSTATE 22023) when p_ttl_ms breaks it.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.check_ttl_ms(p_ttl_ms bigint)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF p_ttl_ms IS NULL OR p_ttl_ms NOT BETWEEN 1 AND 86400000 THEN
        RAISE EXCEPTION 'writer-fence: TTL % ms is not allowed: 1 to 86400000 ms (24 hours)',
            coalesce(p_ttl_ms::text, 'NULL') USING ERRCODE = '22023';
    END IF;
END
$fn$;

-- take_lease_ms: V3's take_lease (ADR 13, 18, 31, 47) with the TTL in milliseconds; the one
-- compare-and-set of the contract. Not granted: it trusts its caller to have checked the
-- arguments. p_waiter_token NULL is a writer without a ticket, otherwise the poll of a ticket that
-- the queue found at its turn.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_lease_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
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
           p_now + make_interval(secs => p_ttl_ms / 1000.0)
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

-- take_lease (V2's signature, whole seconds): the same compare-and-set, through take_lease_ms.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer,
    p_waiter_token uuid, p_now timestamp with time zone)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT * FROM ${writer_fence_schema}.take_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds * 1000::bigint,
        p_waiter_token, p_now);
$fn$;

-- acquire_lease_ms: acquire_lease with the TTL in milliseconds. One row (fencing token,
-- acquired_at, expires_at) when acquired, no row when busy; as acquire_lease in every other way.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_lease_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
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
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_lease_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms, NULL, clock_timestamp());
END
$fn$;

-- acquire_ms: the scalar form. New fencing token, or NULL when busy.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint)
RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT fencing_token FROM ${writer_fence_schema}.acquire_lease_ms(p_fence_name, p_holder_token, p_holder_label, p_ttl_ms);
$fn$;

-- renew_lease_ms: renew_lease with the TTL in milliseconds. The expiry of a live lease of this
-- holder token becomes now + p_ttl_ms (database clock), which shortens it when that is less than
-- the time left. New expiry, or NULL when the lease is expired, taken over or released.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.renew_lease_ms(
    p_fence_name text, p_holder_token uuid, p_ttl_ms bigint)
RETURNS timestamptz
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_expires timestamptz;
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, NULL, 1)
            AND ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, NULL, 1);
        PERFORM ${writer_fence_schema}.check_ttl_ms(p_ttl_ms);
        RAISE EXCEPTION 'writer-fence: ttl_ms_ok and check_ttl_ms disagree' USING ERRCODE = 'XX000';
    END IF;
    UPDATE ${writer_fence_schema}.lease AS l
       SET expires_at = v_now + make_interval(secs => p_ttl_ms / 1000.0)
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token AND l.expires_at > v_now
    RETURNING l.expires_at INTO v_expires;
    RETURN v_expires;
END
$fn$;

-- renew_ms: the scalar form. TRUE when the lease now expires at now + p_ttl_ms.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.renew_ms(
    p_fence_name text, p_holder_token uuid, p_ttl_ms bigint)
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT ${writer_fence_schema}.renew_lease_ms(p_fence_name, p_holder_token, p_ttl_ms) IS NOT NULL;
$fn$;

-- take_turn_ms: one poll of a queued writer, V2's acquire_turn after its input checks, with the
-- TTL in milliseconds. Not granted: acquire_turn and acquire_turn_ms check the arguments first.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_turn_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_place integer;
    v_waiters integer;
BEGIN
    RETURN QUERY
    SELECT l.fencing_token, l.acquired_at, l.expires_at, 0, 0
      FROM ${writer_fence_schema}.lease AS l
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token AND l.expires_at > v_now;
    IF FOUND THEN
        RETURN;
    END IF;
    SELECT t.place, t.waiters INTO v_place, v_waiters
      FROM ${writer_fence_schema}.take_ticket(
          p_fence_name, p_waiter_token, p_holder_label, p_priority, p_lapse_seconds, v_now) AS t;
    IF v_place = 1
       OR EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS r
                   WHERE r.fence_name = p_fence_name AND r.reserved_for = p_waiter_token
                     AND r.reserved_until > v_now) THEN
        RETURN QUERY
        SELECT g.fencing_token, g.acquired_at, g.expires_at, 0, v_waiters - 1
          FROM ${writer_fence_schema}.take_lease_ms(
              p_fence_name, p_holder_token, p_holder_label, p_ttl_ms, p_waiter_token, v_now) AS g;
        IF FOUND THEN
            -- The ticket is served; tickets lapsed for over a minute go too (never one another
            -- session is changing: a waiter coming back finds its ticket gone and queues anew).
            DELETE FROM ${writer_fence_schema}.waiter AS w
             WHERE w.ctid IN (SELECT d.ctid FROM ${writer_fence_schema}.waiter AS d
                               WHERE d.fence_name = p_fence_name
                                 AND (d.waiter_token = p_waiter_token
                                      OR d.lapses_at < v_now - interval '1 minute')
                                 FOR UPDATE SKIP LOCKED);
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT NULL::bigint, NULL::timestamptz, NULL::timestamptz, v_place, v_waiters;
END
$fn$;

-- acquire_turn (V2's signature, whole seconds): checks its arguments as in V2, then polls through
-- take_turn_ms. Answers as in V2.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_turn(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        RAISE EXCEPTION 'writer-fence: queue_args_ok and check_queue_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_turn_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds * 1000::bigint,
        p_waiter_token, p_priority, p_lapse_seconds);
END
$fn$;

-- acquire_turn_ms: acquire_turn with the TTL in milliseconds; the queue's arguments as there.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_turn_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, 1)
            AND ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_ttl_ms(p_ttl_ms);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        RAISE EXCEPTION 'writer-fence: queue_args_ok and check_queue_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_turn_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms,
        p_waiter_token, p_priority, p_lapse_seconds);
END
$fn$;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 4 $fn$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    ${writer_fence_schema}.acquire_lease_ms(text, uuid, text, bigint),
    ${writer_fence_schema}.acquire_ms(text, uuid, text, bigint),
    ${writer_fence_schema}.renew_lease_ms(text, uuid, bigint),
    ${writer_fence_schema}.renew_ms(text, uuid, bigint),
    ${writer_fence_schema}.acquire_turn_ms(text, uuid, text, bigint, uuid, integer, integer)
    TO ${writer_fence_role};
