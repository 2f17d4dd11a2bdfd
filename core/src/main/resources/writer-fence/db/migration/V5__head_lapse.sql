-- writer-fence SQL contract, version 5: a dead head is passed over fast, and lapsed tickets go
-- at once (ADR 68).
--
-- Runs after V4__millisecond_ttls.sql, with the same two placeholders, ${writer_fence_schema} and
-- ${writer_fence_role}. Like V1 to V4 every statement is idempotent, and V1 to V5 may be applied
-- again over any install. Upgrading keeps every lease row and fencing token; the waiter table
-- gains one column that may be NULL.
--
-- The head lapse. A queued writer may say, at each poll, how soon it will poll again at the
-- latest while it is the head of the queue: its head lapse (p_head_lapse_ms, 1 to 60000 ms, and
-- never more than its ticket's lapse). Once the lease is free, the head of the queue must take it
-- within its head lapse, counted from the latest of
--   * the moment the lease became free (the release, or the expiry of a holder that never
--     released),
--   * the end of a reservation kept for another waiter,
--   * the head's own last poll and its arrival.
-- A head that has not taken the free lease by then is passed over by the next poll of any waiter
-- behind it: its ticket is deleted (a head that was only paused queues again at the back at its
-- next poll) and the lease is kept for the next live ticket for that ticket's head lapse, with a
-- NOTIFY writer_fence_release as on release. A release with waiters keeps the lease for the head
-- for its head lapse (at most until its ticket lapses), not for its whole lapse: a head woken by
-- the notification that does not take its lease in time loses the reservation.
--
-- A ticket without a head lapse (taken or refreshed through the calls of versions 2 to 4, which
-- have no such argument) counts its whole lapse as its head lapse: those callers are served as
-- before.
--
-- Lapsed tickets never stay as rows: every grant, enqueue, poll and release of a fence deletes the
-- fence's lapsed tickets (never one another session is changing at that moment), and
-- clear_lapsed_tickets(), which a waiting process calls now and then, deletes those of every
-- fence.
--
-- Exclusion still does not depend on the queue: every grant is the one compare-and-set on the
-- lease row. The head lapse only decides who may try.

ALTER TABLE ${writer_fence_schema}.waiter
    ADD COLUMN IF NOT EXISTS head_lapse_ms integer;  -- NULL: the ticket's whole lapse

-- The head lapse rule, in the style of args_ok (inlined, no SET clause, not SECURITY DEFINER,
-- executable by no role): 1 to 60000 ms.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.head_lapse_ok(p_head_lapse_ms integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT coalesce(p_head_lapse_ms BETWEEN 1 AND 60000, false)
$fn$;

-- Raises the message of the head lapse rule (SQLSTATE 22023) when p_head_lapse_ms breaks it.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.check_head_lapse(p_head_lapse_ms integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF p_head_lapse_ms IS NULL OR p_head_lapse_ms NOT BETWEEN 1 AND 60000 THEN
        RAISE EXCEPTION 'writer-fence: head lapse % ms is not allowed: 1 to 60000 ms',
            coalesce(p_head_lapse_ms::text, 'NULL') USING ERRCODE = '22023';
    END IF;
END
$fn$;

-- clear_lapsed: deletes the fence's lapsed tickets, skipping any another session is changing
-- (its waiter is polling: it finds the ticket lapsed and queues anew). How many went. Not granted.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.clear_lapsed(
    p_fence_name text, p_now timestamp with time zone)
RETURNS integer
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (
        DELETE FROM ${writer_fence_schema}.waiter AS w
         WHERE w.ctid IN (SELECT d.ctid FROM ${writer_fence_schema}.waiter AS d
                           WHERE d.fence_name = p_fence_name AND d.lapses_at <= p_now
                             FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM gone
$fn$;

-- clear_lapsed_tickets: the housekeeping of a waiting process. Deletes up to 1000 lapsed tickets
-- of any fence (the rest at the next call), skipping any another session is changing; how many
-- went.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.clear_lapsed_tickets()
RETURNS integer
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
    WITH gone AS (
        DELETE FROM ${writer_fence_schema}.waiter AS w
         WHERE w.ctid IN (SELECT d.ctid FROM ${writer_fence_schema}.waiter AS d
                           WHERE d.lapses_at <= clock_timestamp()
                           LIMIT 1000
                             FOR UPDATE SKIP LOCKED)
        RETURNING 1)
    SELECT count(*)::integer FROM gone
$fn$;

-- queue_next: the fence's first live ticket and how long a free lease is kept for it: its head
-- lapse from p_now, at most until its ticket lapses (a ticket without a head lapse: until it
-- lapses, as in versions 2 to 4). No row when no ticket is live. Inlined like queue_head.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.queue_next(
    p_fence_name text, p_now timestamp with time zone)
RETURNS TABLE (waiter_token uuid, reserved_until timestamptz)
LANGUAGE sql STABLE
AS $fn$
    SELECT h.waiter_token,
           least(h.lapses_at, p_now + make_interval(secs => h.head_lapse_ms / 1000.0))
      FROM ${writer_fence_schema}.waiter AS h
     WHERE h.fence_name = p_fence_name AND h.lapses_at > p_now
     ORDER BY h.turn_at, h.waiting_since, h.waiter_token
     LIMIT 1
$fn$;

-- take_ticket with a head lapse (NULL: the whole lapse): takes or refreshes the caller's ticket as
-- V2's take_ticket does, deletes the fence's lapsed tickets, and answers the ticket's place and
-- the number of live tickets. Not granted; the caller checked the arguments.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_ticket(
    p_fence_name text, p_waiter_token uuid, p_holder_label text, p_priority integer,
    p_lapse_seconds integer, p_head_lapse_ms integer, p_now timestamp with time zone)
RETURNS TABLE (place integer, waiters integer)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_turn_at timestamptz;
    v_since timestamptz;
    v_head_lapse integer := least(p_head_lapse_ms, p_lapse_seconds * 1000);
BEGIN
    INSERT INTO ${writer_fence_schema}.waiter AS w
        (fence_name, waiter_token, holder_label, priority, waiting_since, turn_at, refreshed_at,
         lapses_at, head_lapse_ms)
    VALUES (p_fence_name, p_waiter_token, p_holder_label, p_priority, p_now,
            p_now - make_interval(secs => p_priority), p_now,
            p_now + make_interval(secs => p_lapse_seconds), v_head_lapse)
    ON CONFLICT (fence_name, waiter_token) DO UPDATE SET
        holder_label  = EXCLUDED.holder_label,
        priority      = CASE WHEN w.lapses_at > p_now THEN w.priority ELSE EXCLUDED.priority END,
        waiting_since = CASE WHEN w.lapses_at > p_now THEN w.waiting_since ELSE EXCLUDED.waiting_since END,
        turn_at       = CASE WHEN w.lapses_at > p_now THEN w.turn_at ELSE EXCLUDED.turn_at END,
        refreshed_at  = p_now,
        lapses_at     = EXCLUDED.lapses_at,
        head_lapse_ms = EXCLUDED.head_lapse_ms
    RETURNING w.turn_at, w.waiting_since INTO v_turn_at, v_since;
    PERFORM ${writer_fence_schema}.clear_lapsed(p_fence_name, p_now);
    RETURN QUERY
    SELECT (1 + count(*) FILTER (WHERE (o.turn_at, o.waiting_since, o.waiter_token)
                                     < (v_turn_at, v_since, p_waiter_token)))::integer,
           count(*)::integer
      FROM ${writer_fence_schema}.waiter AS o
     WHERE o.fence_name = p_fence_name AND o.lapses_at > p_now;
END
$fn$;

-- take_ticket (V2's signature): a ticket without a head lapse.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_ticket(
    p_fence_name text, p_waiter_token uuid, p_holder_label text, p_priority integer,
    p_lapse_seconds integer, p_now timestamp with time zone)
RETURNS TABLE (place integer, waiters integer)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT * FROM ${writer_fence_schema}.take_ticket(
        p_fence_name, p_waiter_token, p_holder_label, p_priority, p_lapse_seconds, NULL, p_now);
$fn$;

-- pass_over_head: called by the poll of a waiter behind the head. When the lease is free and the
-- head has let it go untaken for its head lapse (see the top of this file), deletes the head's
-- ticket and keeps the lease for the next live ticket for that ticket's head lapse, with a
-- NOTIFY. TRUE when a head was passed over. Reads first and locks only a head found overdue, so the
-- polls of a queue whose head is alive take no lock here; the lease row and the head's ticket are
-- each skipped when another session is changing them (a head taking the lease, a head polling).
-- A fence whose lease row does not exist yet has nothing to pass over. Not granted.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.pass_over_head(
    p_fence_name text, p_now timestamp with time zone)
RETURNS boolean
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_free_since timestamptz;
    v_kept_for uuid;
    v_kept_until timestamptz;
    v_head uuid;
    v_refreshed timestamptz;
    v_due timestamptz;
    v_next uuid;
BEGIN
    SELECT l.expires_at, l.reserved_for, l.reserved_until INTO v_free_since, v_kept_for, v_kept_until
      FROM ${writer_fence_schema}.lease AS l
     WHERE l.fence_name = p_fence_name AND (l.holder_token IS NULL OR l.expires_at <= p_now);
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    SELECT h.waiter_token, h.refreshed_at,
           greatest(v_free_since, h.refreshed_at, h.waiting_since,
                    CASE WHEN v_kept_for IS DISTINCT FROM h.waiter_token THEN v_kept_until END)
           + coalesce(make_interval(secs => h.head_lapse_ms / 1000.0), h.lapses_at - h.refreshed_at)
      INTO v_head, v_refreshed, v_due
      FROM ${writer_fence_schema}.waiter AS h
     WHERE h.fence_name = p_fence_name AND h.lapses_at > p_now
     ORDER BY h.turn_at, h.waiting_since, h.waiter_token
     LIMIT 1;
    IF NOT FOUND OR v_due > p_now THEN
        RETURN false;
    END IF;
    PERFORM 1 FROM ${writer_fence_schema}.lease AS l
      WHERE l.fence_name = p_fence_name AND (l.holder_token IS NULL OR l.expires_at <= p_now)
        AND l.reserved_for IS NOT DISTINCT FROM v_kept_for
        FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    DELETE FROM ${writer_fence_schema}.waiter AS w
     WHERE w.ctid = (SELECT d.ctid FROM ${writer_fence_schema}.waiter AS d
                      WHERE d.fence_name = p_fence_name AND d.waiter_token = v_head
                        AND d.refreshed_at = v_refreshed
                        FOR UPDATE SKIP LOCKED);
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    WITH head AS (SELECT * FROM ${writer_fence_schema}.queue_next(p_fence_name, p_now))
    UPDATE ${writer_fence_schema}.lease AS l
       SET reserved_for = (SELECT waiter_token FROM head),
           reserved_until = (SELECT reserved_until FROM head)
     WHERE l.fence_name = p_fence_name
    RETURNING l.reserved_for INTO v_next;
    IF v_next IS NOT NULL THEN
        PERFORM pg_catalog.pg_notify('writer_fence_release',
            pg_catalog.json_build_object('schema', '${writer_fence_schema}', 'fence_name', p_fence_name)::text);
    END IF;
    RETURN true;
END
$fn$;

-- take_lease_ms: V4's compare-and-set, word for word, and a grant deletes the fence's lapsed
-- tickets.
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
    IF FOUND THEN
        PERFORM ${writer_fence_schema}.clear_lapsed(p_fence_name, p_now);
    END IF;
END
$fn$;

-- take_turn_ms with a head lapse (NULL: the whole lapse): one poll of a queued writer. Refreshes
-- the ticket (take_ticket); a waiter behind the head passes over a head that let the free lease go
-- untaken for its head lapse (pass_over_head); the head, or the waiter the free lease is kept for,
-- tries the compare-and-set. Answers as V2's acquire_turn. Not granted: its callers check the
-- arguments first.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_turn_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer, p_head_lapse_ms integer)
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
          p_fence_name, p_waiter_token, p_holder_label, p_priority, p_lapse_seconds,
          p_head_lapse_ms, v_now) AS t;
    IF v_place > 1 AND ${writer_fence_schema}.pass_over_head(p_fence_name, v_now) THEN
        -- The head was ahead of every other ticket.
        v_place := v_place - 1;
        v_waiters := v_waiters - 1;
    END IF;
    IF v_place = 1
       OR EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS r
                   WHERE r.fence_name = p_fence_name AND r.reserved_for = p_waiter_token
                     AND r.reserved_until > v_now) THEN
        RETURN QUERY
        SELECT g.fencing_token, g.acquired_at, g.expires_at, 0, v_waiters - 1
          FROM ${writer_fence_schema}.take_lease_ms(
              p_fence_name, p_holder_token, p_holder_label, p_ttl_ms, p_waiter_token, v_now) AS g;
        IF FOUND THEN
            -- The ticket is served (the grant deleted the lapsed ones).
            DELETE FROM ${writer_fence_schema}.waiter AS w
             WHERE w.fence_name = p_fence_name AND w.waiter_token = p_waiter_token;
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT NULL::bigint, NULL::timestamptz, NULL::timestamptz, v_place, v_waiters;
END
$fn$;

-- take_turn_ms (V4's signature): a poll without a head lapse.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_turn_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE sql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT * FROM ${writer_fence_schema}.take_turn_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms,
        p_waiter_token, p_priority, p_lapse_seconds, NULL);
$fn$;

-- acquire_turn_ms with a head lapse: one poll of a queued writer that says how soon it polls
-- again, at the latest, while it is the head of the queue (p_head_lapse_ms, 1 to 60000 ms; more
-- than the ticket's lapse counts as the lapse). Answers as acquire_turn.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_turn_ms(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_ms bigint,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer, p_head_lapse_ms integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, 1)
            AND ${writer_fence_schema}.ttl_ms_ok(p_ttl_ms)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)
            AND ${writer_fence_schema}.head_lapse_ok(p_head_lapse_ms)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_ttl_ms(p_ttl_ms);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        PERFORM ${writer_fence_schema}.check_head_lapse(p_head_lapse_ms);
        RAISE EXCEPTION 'writer-fence: head_lapse_ok and check_head_lapse disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_turn_ms(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_ms,
        p_waiter_token, p_priority, p_lapse_seconds, p_head_lapse_ms);
END
$fn$;

-- enqueue with a head lapse: enqueue's ticket with the head lapse of acquire_turn_ms.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.enqueue(
    p_fence_name text, p_waiter_token uuid, p_holder_label text, p_priority integer,
    p_lapse_seconds integer, p_head_lapse_ms integer)
RETURNS TABLE (place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_waiter_token, p_holder_label, 1)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)
            AND ${writer_fence_schema}.head_lapse_ok(p_head_lapse_ms)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, gen_random_uuid(), p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        PERFORM ${writer_fence_schema}.check_head_lapse(p_head_lapse_ms);
        RAISE EXCEPTION 'writer-fence: head_lapse_ok and check_head_lapse disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_ticket(
        p_fence_name, p_waiter_token, p_holder_label, p_priority, p_lapse_seconds,
        p_head_lapse_ms, clock_timestamp());
END
$fn$;

-- leave_queue (V2's signature): as in V2, and a reservation passed on is kept for the next ticket
-- for its head lapse.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.leave_queue(p_fence_name text, p_waiter_token uuid)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_next uuid;
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_waiter_token, NULL, 1)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, 0, 1)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, gen_random_uuid(), NULL, 1);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, 0, 1);
        RAISE EXCEPTION 'writer-fence: queue_args_ok and check_queue_args disagree' USING ERRCODE = 'XX000';
    END IF;
    DELETE FROM ${writer_fence_schema}.waiter AS w
     WHERE w.fence_name = p_fence_name AND w.waiter_token = p_waiter_token;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    WITH head AS (SELECT * FROM ${writer_fence_schema}.queue_next(p_fence_name, v_now))
    UPDATE ${writer_fence_schema}.lease AS l
       SET reserved_for = (SELECT waiter_token FROM head),
           reserved_until = (SELECT reserved_until FROM head)
     WHERE l.ctid = (SELECT r.ctid FROM ${writer_fence_schema}.lease AS r
                      WHERE r.fence_name = p_fence_name AND r.reserved_for = p_waiter_token
                        FOR UPDATE SKIP LOCKED)
    RETURNING l.reserved_for INTO v_next;
    IF v_next IS NOT NULL THEN
        PERFORM pg_catalog.pg_notify('writer_fence_release',
            pg_catalog.json_build_object('schema', '${writer_fence_schema}', 'fence_name', p_fence_name)::text);
    END IF;
    RETURN true;
END
$fn$;

-- release (V1's signature): as in V2, but the free lease is kept for the head for its head lapse
-- (at most until its ticket lapses), and the fence's lapsed tickets are deleted.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.release(p_fence_name text, p_holder_token uuid)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_ignored text;
    v_reserved boolean;
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, NULL, 1) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, NULL, 1);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    -- No WAL flush of its own (ADR 9), as in V1.
    v_ignored := pg_catalog.set_config('synchronous_commit', 'off', true);
    WITH head AS (SELECT * FROM ${writer_fence_schema}.queue_next(p_fence_name, v_now))
    UPDATE ${writer_fence_schema}.lease AS l
       SET holder_token = NULL, expires_at = least(l.expires_at, v_now),
           reserved_for = (SELECT waiter_token FROM head),
           reserved_until = (SELECT reserved_until FROM head)
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token
    RETURNING l.reserved_for IS NOT NULL INTO v_reserved;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    PERFORM ${writer_fence_schema}.clear_lapsed(p_fence_name, v_now);
    IF v_reserved THEN
        PERFORM pg_catalog.pg_notify('writer_fence_release',
            pg_catalog.json_build_object('schema', '${writer_fence_schema}', 'fence_name', p_fence_name)::text);
    END IF;
    RETURN true;
END
$fn$;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 5 $fn$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    ${writer_fence_schema}.acquire_turn_ms(text, uuid, text, bigint, uuid, integer, integer, integer),
    ${writer_fence_schema}.enqueue(text, uuid, text, integer, integer, integer),
    ${writer_fence_schema}.clear_lapsed_tickets()
    TO ${writer_fence_role};
