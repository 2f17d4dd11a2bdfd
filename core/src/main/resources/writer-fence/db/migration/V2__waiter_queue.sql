-- writer-fence SQL contract, version 2: a fair queue of waiters (ADR 31).
--
-- Runs after V1__writer_fence.sql, with the same two placeholders, ${writer_fence_schema} and
-- ${writer_fence_role}. Like V1 every statement is idempotent, and V1 followed by this file may be
-- applied again over any install: FenceSchema.install runs both, in one transaction. Upgrading an
-- installed V1 keeps every lease row and fencing token: the lease table only gains two columns.
-- The ALTER TABLE takes the table's lock for the moment of the upgrade: acquires, renewals and
-- releases that arrive then wait at most their lock_timeout and fail as retryable (55P03), never
-- open.
--
-- The queue in brief. A writer that means to retry holds a ticket (one row of waiter). Its polls
-- (acquire_turn) refresh the ticket; a ticket not refreshed for its lapse time (1 to 60 seconds on
-- the database clock, chosen by the waiter) lapses and no longer counts. Tickets are served in
-- order of turn_at = waiting_since - priority seconds: one priority level is worth one second of
-- waiting (aging). Ties go to the earlier arrival, then to the lower waiter token. A lease that is
-- free or expired goes only to
--   * the waiter it is reserved for, while the reservation lasts; otherwise
--   * the head of the queue (the first live ticket), through acquire_turn; or
--   * anyone, through acquire_lease/acquire, when no live ticket is queued.
-- Release with live tickets reserves the free lease for the head until that ticket's lapse time
-- and sends NOTIFY writer_fence_release (payload: JSON with schema and fence_name).
--
-- Exclusion does not depend on the queue: every grant is still the one compare-and-set on the
-- lease row (free or expired, or the same holder token). The queue only decides who may try.

-- One row per waiting writer and fence name. Closed to everyone but the owner, like lease.
CREATE TABLE IF NOT EXISTS ${writer_fence_schema}.waiter (
    fence_name    text        NOT NULL,
    waiter_token  uuid        NOT NULL,       -- the waiter's secret, never shown
    holder_label  text,                       -- observability only
    priority      integer     NOT NULL,       -- -100 to 100, higher first
    waiting_since timestamptz NOT NULL,       -- when this ticket was taken
    turn_at       timestamptz NOT NULL,       -- waiting_since - priority seconds: the queue order
    refreshed_at  timestamptz NOT NULL,       -- the waiter's last poll
    lapses_at     timestamptz NOT NULL,       -- refreshed_at + the waiter's lapse time
    PRIMARY KEY (fence_name, waiter_token)
);
CREATE INDEX IF NOT EXISTS waiter_order
    ON ${writer_fence_schema}.waiter (fence_name, turn_at, waiting_since, waiter_token);
REVOKE ALL ON TABLE ${writer_fence_schema}.waiter FROM PUBLIC;
ALTER TABLE ${writer_fence_schema}.waiter ENABLE ROW LEVEL SECURITY;

-- The hand-over: set by a release that found live tickets, cleared by the next grant.
ALTER TABLE ${writer_fence_schema}.lease
    ADD COLUMN IF NOT EXISTS reserved_for   uuid,          -- a waiter token
    ADD COLUMN IF NOT EXISTS reserved_until timestamptz;

-- Input rules of the queue's arguments, in the style of args_ok (inlined, no SET clause, not
-- SECURITY DEFINER, executable by no role). The rest of an argument list is checked by args_ok.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.queue_args_ok(
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT p_waiter_token IS NOT NULL
       AND coalesce(p_priority BETWEEN -100 AND 100, false)
       AND coalesce(p_lapse_seconds BETWEEN 1 AND 60, false)
$fn$;

-- Raises the message of the first queue rule the arguments break (SQLSTATE 22023).
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.check_queue_args(
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF p_waiter_token IS NULL THEN
        RAISE EXCEPTION 'writer-fence: waiter token is NULL: a UUID is required' USING ERRCODE = '22023';
    END IF;
    IF p_priority IS NULL OR p_priority NOT BETWEEN -100 AND 100 THEN
        RAISE EXCEPTION 'writer-fence: priority % is not allowed: -100 to 100',
            coalesce(p_priority::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    IF p_lapse_seconds IS NULL OR p_lapse_seconds NOT BETWEEN 1 AND 60 THEN
        RAISE EXCEPTION 'writer-fence: ticket lapse % seconds is not allowed: 1 to 60 seconds',
            coalesce(p_lapse_seconds::text, 'NULL') USING ERRCODE = '22023';
    END IF;
END
$fn$;

-- queue_head: the fence's first live ticket (its waiter token and lapse time), or no row, for
-- release and leave_queue. The queue's order (turn_at, waiting_since, waiter_token; the index
-- waiter_order) is spelled here, in take_ticket's count and in queue_status. Like the input rules,
-- a plain SQL function that PostgreSQL inlines into its callers (no SET clause, not SECURITY
-- DEFINER, executable by no role).
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.queue_head(
    p_fence_name text, p_now timestamp with time zone)
RETURNS TABLE (waiter_token uuid, lapses_at timestamptz)
LANGUAGE sql STABLE
AS $fn$
    SELECT h.waiter_token, h.lapses_at FROM ${writer_fence_schema}.waiter AS h
     WHERE h.fence_name = p_fence_name AND h.lapses_at > p_now
     ORDER BY h.turn_at, h.waiting_since, h.waiter_token
     LIMIT 1
$fn$;

-- take_lease: the one compare-and-set of the contract, shared by acquire_lease and acquire_turn
-- (the V1 statement of ADR 13 and 18, with the queue's two conditions added). Not granted: it
-- trusts its caller to have checked the arguments, and p_waiter_token says which caller it is:
--   * NULL (acquire_lease, a writer without a ticket): no source row while a live ticket is
--     queued, unless this holder token holds the row (a repeat after a lost answer);
--   * a waiter token (acquire_turn, which found its ticket at the head or the lease reserved
--     for it): the queue was asked already.
-- Either way a live reservation for another waiter token refuses the grant, in the upsert's WHERE.
-- As in V1: busy at once, with no lock taken, when another session is changing the row.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer,
    p_waiter_token uuid, p_now timestamp with time zone)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH probe AS MATERIALIZED (
        SELECT 1 FROM ${writer_fence_schema}.lease AS p
         WHERE p.fence_name = p_fence_name
           AND (p.holder_token IS NULL OR p.expires_at <= p_now OR p.holder_token = p_holder_token)
           FOR UPDATE SKIP LOCKED)
    INSERT INTO ${writer_fence_schema}.lease AS l
        (fence_name, holder_token, holder_label, fencing_token, acquired_at, expires_at)
    SELECT p_fence_name, p_holder_token, p_holder_label, 1, p_now,
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
                              THEN l.fencing_token ELSE l.fencing_token + 1 END,
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

-- acquire_lease (V1's signature, so V1 clients keep working): the lease for a writer without a
-- ticket. It answers as in V1, but busy while a live ticket is queued or the free lease is kept
-- for a waiter: a writer that never queues gets its turn when nobody waits.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_lease(
        p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds, NULL, clock_timestamp());
END
$fn$;

-- take_ticket: takes or refreshes the caller's ticket; its queue place afterwards (1 is the head,
-- counting live tickets only) and how many live tickets the fence has, its own included. Not
-- granted; the caller checked the arguments. A live ticket keeps its priority and arrival (only the
-- label and the lapse time follow the call); a lapsed one is taken anew, at the back.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.take_ticket(
    p_fence_name text, p_waiter_token uuid, p_holder_label text, p_priority integer,
    p_lapse_seconds integer, p_now timestamp with time zone)
RETURNS TABLE (place integer, waiters integer)
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_turn_at timestamptz;
    v_since timestamptz;
BEGIN
    INSERT INTO ${writer_fence_schema}.waiter AS w
        (fence_name, waiter_token, holder_label, priority, waiting_since, turn_at, refreshed_at, lapses_at)
    VALUES (p_fence_name, p_waiter_token, p_holder_label, p_priority, p_now,
            p_now - make_interval(secs => p_priority), p_now,
            p_now + make_interval(secs => p_lapse_seconds))
    ON CONFLICT (fence_name, waiter_token) DO UPDATE SET
        holder_label  = EXCLUDED.holder_label,
        priority      = CASE WHEN w.lapses_at > p_now THEN w.priority ELSE EXCLUDED.priority END,
        waiting_since = CASE WHEN w.lapses_at > p_now THEN w.waiting_since ELSE EXCLUDED.waiting_since END,
        turn_at       = CASE WHEN w.lapses_at > p_now THEN w.turn_at ELSE EXCLUDED.turn_at END,
        refreshed_at  = p_now,
        lapses_at     = EXCLUDED.lapses_at
    RETURNING w.turn_at, w.waiting_since INTO v_turn_at, v_since;
    RETURN QUERY
    SELECT (1 + count(*) FILTER (WHERE (o.turn_at, o.waiting_since, o.waiter_token)
                                     < (v_turn_at, v_since, p_waiter_token)))::integer,
           count(*)::integer
      FROM ${writer_fence_schema}.waiter AS o
     WHERE o.fence_name = p_fence_name AND o.lapses_at > p_now;
END
$fn$;

-- enqueue: takes or refreshes a ticket without trying for the lease (a writer that will wait, or a
-- holder whose process has more writers waiting). Its place (1 is the head) and the number of
-- live tickets, its own included. Arguments as for acquire_turn.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.enqueue(
    p_fence_name text, p_waiter_token uuid, p_holder_label text, p_priority integer,
    p_lapse_seconds integer)
RETURNS TABLE (place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_waiter_token, p_holder_label, 1)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, gen_random_uuid(), p_holder_label, 1);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        RAISE EXCEPTION 'writer-fence: queue_args_ok and check_queue_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY SELECT * FROM ${writer_fence_schema}.take_ticket(
        p_fence_name, p_waiter_token, p_holder_label, p_priority, p_lapse_seconds, clock_timestamp());
END
$fn$;

-- acquire_turn: one poll of a queued writer. Takes or refreshes its ticket (as enqueue does) and,
-- when the ticket is the head or the free lease is reserved for it, tries the compare-and-set.
-- Acquired: one row with the new fencing token, acquired_at, expires_at, place 0 and the number
-- of tickets still live; the ticket is gone. Busy: one row with NULL lease columns, the ticket's
-- place (1 is the head) and the number of live tickets, its own included. The holder token that
-- holds a live lease gets it back unchanged (a repeat after a lost answer), as from acquire_lease.
--   p_holder_token: minted per acquire, as for acquire_lease
--   p_waiter_token: minted per wait and kept for all its polls
--   p_priority:     -100 to 100, higher first; one level is worth one second of waiting
--   p_lapse_seconds: 1 to 60; the ticket lapses when not refreshed for that long
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_turn(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer,
    p_waiter_token uuid, p_priority integer, p_lapse_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz,
               place integer, waiters integer)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
    v_place integer;
    v_waiters integer;
BEGIN
    IF NOT (${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds)
            AND ${writer_fence_schema}.queue_args_ok(p_waiter_token, p_priority, p_lapse_seconds)) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        PERFORM ${writer_fence_schema}.check_queue_args(p_waiter_token, p_priority, p_lapse_seconds);
        RAISE EXCEPTION 'writer-fence: queue_args_ok and check_queue_args disagree' USING ERRCODE = 'XX000';
    END IF;
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
          FROM ${writer_fence_schema}.take_lease(
              p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds, p_waiter_token, v_now) AS g;
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

-- leave_queue: drops the caller's ticket (a writer that gives up waiting). A reservation held for
-- it passes to the next live ticket, if any, with a NOTIFY as on release; if another session is
-- changing the lease row right then, the reservation simply runs out. TRUE when a ticket was
-- dropped.
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
    WITH head AS (SELECT * FROM ${writer_fence_schema}.queue_head(p_fence_name, v_now))
    UPDATE ${writer_fence_schema}.lease AS l
       SET reserved_for = (SELECT waiter_token FROM head),
           reserved_until = (SELECT lapses_at FROM head)
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

-- release (V1's signature): frees the row only for the matching holder token, as in V1. When live
-- tickets are queued, the free lease is reserved for the head until its ticket's lapse time (so a
-- writer without a ticket, or one further back, cannot barge in before the head's next poll), and
-- NOTIFY writer_fence_release tells listeners on direct connections at commit. Without waiters it
-- costs what V1's release cost: no NOTIFY.
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
    WITH head AS (SELECT * FROM ${writer_fence_schema}.queue_head(p_fence_name, v_now))
    UPDATE ${writer_fence_schema}.lease AS l
       SET holder_token = NULL, expires_at = least(l.expires_at, v_now),
           reserved_for = (SELECT waiter_token FROM head),
           reserved_until = (SELECT lapses_at FROM head)
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token
    RETURNING l.reserved_for IS NOT NULL INTO v_reserved;
    IF NOT FOUND THEN
        RETURN false;
    END IF;
    IF v_reserved THEN
        PERFORM pg_catalog.pg_notify('writer_fence_release',
            pg_catalog.json_build_object('schema', '${writer_fence_schema}', 'fence_name', p_fence_name)::text);
    END IF;
    RETURN true;
END
$fn$;

-- The operators' view of the queue. Shows no waiter token: it is the waiter's capability. place
-- is the ticket's turn among the fence's live tickets (1 is the head), NULL for a lapsed ticket;
-- reserved is TRUE for the waiter a released lease is kept for.
CREATE OR REPLACE VIEW ${writer_fence_schema}.queue_status AS
SELECT w.fence_name,
       w.holder_label,
       w.priority,
       w.waiting_since,
       w.refreshed_at,
       w.lapses_at,
       CASE WHEN w.lapses_at > c.now
            THEN row_number() OVER (PARTITION BY w.fence_name, w.lapses_at > c.now
                                    ORDER BY w.turn_at, w.waiting_since, w.waiter_token)
       END::integer AS place,
       EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS l
                WHERE l.fence_name = w.fence_name AND l.reserved_for = w.waiter_token
                  AND l.reserved_until > c.now) AS reserved,
       CASE WHEN w.lapses_at > c.now THEN 'waiting' ELSE 'lapsed' END AS state
  FROM ${writer_fence_schema}.waiter AS w, (SELECT clock_timestamp() AS now) AS c;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 2 $fn$;

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
REVOKE ALL ON TABLE ${writer_fence_schema}.queue_status FROM PUBLIC;
GRANT EXECUTE ON FUNCTION
    ${writer_fence_schema}.enqueue(text, uuid, text, integer, integer),
    ${writer_fence_schema}.acquire_turn(text, uuid, text, integer, uuid, integer, integer),
    ${writer_fence_schema}.leave_queue(text, uuid)
    TO ${writer_fence_role};
GRANT SELECT ON ${writer_fence_schema}.queue_status TO ${writer_fence_role};
