-- writer-fence SQL contract, version 1.
--
-- Two placeholders, in the dollar-brace syntax of Flyway placeholders and Liquibase changelog
-- parameters: ${writer_fence_schema} is the schema (default writer_fence) and
-- ${writer_fence_role} is the role granted EXECUTE on the functions and SELECT on the status view.
-- Flyway replaces placeholders inside comments too, so no other dollar-brace word may appear here.
--
-- Every statement is idempotent, so the file can be applied again over an existing install.
-- The database must be UTF8 (server_encoding): the input rules below count and match Unicode
-- characters as the Java checks do only there. FenceSchema.install refuses any other encoding;
-- Flyway and Liquibase users make sure of it themselves.
-- Every time is the database clock (clock_timestamp()), never the client's.

CREATE SCHEMA IF NOT EXISTS ${writer_fence_schema};

-- One row per fence name, never deleted by normal operation: release frees the row but keeps
-- fencing_token, so tokens stay strictly increasing for the name.
CREATE TABLE IF NOT EXISTS ${writer_fence_schema}.lease (
    fence_name    text        PRIMARY KEY,
    holder_token  uuid,                       -- NULL when free; the holder's secret, never shown
    holder_label  text,                       -- last holder's label, observability only
    fencing_token bigint      NOT NULL,
    acquired_at   timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);

-- Closed to everyone but the owner: clients go through the SECURITY DEFINER functions below.
REVOKE ALL ON TABLE ${writer_fence_schema}.lease FROM PUBLIC;
ALTER TABLE ${writer_fence_schema}.lease ENABLE ROW LEVEL SECURITY;

-- Input rules, shared by every function. SQLSTATE 22023 (invalid_parameter_value), with the
-- offending value in the message. They accept exactly what the Java checks (FenceArguments)
-- accept, character for character:
--   * lengths are char_length, which counts code points (the database is UTF8; FenceSchema
--     refuses to install in any other encoding);
--   * control characters: U+0001-U+001F, U+007F-U+009F (U+0000 cannot occur in text);
--   * format characters: one fixed list of ranges, Unicode 16 category Cf, so the rule depends
--     on neither the JVM's nor the server's Unicode version;
--   * white space, refused at the start and the end of a fence name (so a blank name is refused
--     too): what Java's Character.isWhitespace calls white space, the control ones aside (the
--     no-break spaces U+00A0, U+2007, U+202F are not in it);
--   * unpaired surrogates cannot occur in UTF8 text: Java refuses them before they reach here.
-- Label: NULL or up to 200 characters, no control or format characters. Fence name: what a label
-- may be, and not NULL, not empty, no leading or trailing white space.
--
-- The rules are written once, as the expressions of holder_label_ok and fence_name_ok. These and
-- args_ok are plain IMMUTABLE SQL functions without SET clauses on purpose: PostgreSQL inlines
-- such a function into the caller's statement and folds its patterns to constants when the
-- caller's plan is made (a SET clause forbids inlining), so checking valid input costs no call.
-- They are not SECURITY DEFINER, no role may execute them, and every caller below pins
-- search_path. check_args turns a refusal into its message; the lease functions call it only
-- when args_ok says no.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.holder_label_ok(p_label text)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT p_label IS NULL
        OR (char_length(p_label) <= 200
            AND p_label !~ ('[\u0001-\u001f\u007f-\u009f'
                            '\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e'
                            '\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff'
                            '\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f'
                            '\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001'
                            '\U000e0020-\U000e007f]'))
$fn$;

CREATE OR REPLACE FUNCTION ${writer_fence_schema}.fence_name_ok(p_fence_name text)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT p_fence_name IS NOT NULL
       AND char_length(p_fence_name) >= 1     -- not <> '': that would follow a caller's collation
       AND ${writer_fence_schema}.holder_label_ok(p_fence_name)
       AND p_fence_name !~ ('^[ \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]'
                            '|[ \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]$')
$fn$;

-- TRUE when every argument of an acquire is allowed; never NULL.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.args_ok(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $fn$
    SELECT ${writer_fence_schema}.fence_name_ok(p_fence_name)
       AND p_holder_token IS NOT NULL
       AND ${writer_fence_schema}.holder_label_ok(p_holder_label)
       AND coalesce(p_ttl_seconds BETWEEN 1 AND 86400, false)
$fn$;

-- Raises the message of the first rule the arguments break; returns when they break none.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.check_args(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF NOT ${writer_fence_schema}.fence_name_ok(p_fence_name) THEN
        RAISE EXCEPTION 'writer-fence: fence name % is not allowed: 1 to 200 characters, no control or format characters, no leading or trailing white space',
            coalesce(quote_literal(p_fence_name), 'NULL') USING ERRCODE = '22023';
    END IF;
    IF p_holder_token IS NULL THEN
        RAISE EXCEPTION 'writer-fence: holder token is NULL: a UUID is required' USING ERRCODE = '22023';
    END IF;
    IF NOT ${writer_fence_schema}.holder_label_ok(p_holder_label) THEN
        RAISE EXCEPTION 'writer-fence: holder label % is not allowed: up to 200 characters, no control or format characters',
            quote_literal(p_holder_label) USING ERRCODE = '22023';
    END IF;
    IF p_ttl_seconds IS NULL OR p_ttl_seconds NOT BETWEEN 1 AND 86400 THEN
        RAISE EXCEPTION 'writer-fence: TTL % seconds is not allowed: 1 to 86400 seconds',
            coalesce(p_ttl_seconds::text, 'NULL') USING ERRCODE = '22023';
    END IF;
END
$fn$;

-- The one atomic compare-and-set: INSERT ... ON CONFLICT ... DO UPDATE ... WHERE free or expired
-- RETURNING. Returns one row (new fencing token, acquired_at, expires_at) when acquired and no
-- row when busy. The holder token that holds a live lease gets its current lease back unchanged:
-- token, label, acquired_at and expires_at all stay (a repeat never extends nor relabels it).
--
-- Busy without queueing (ADR 13): ON CONFLICT ... DO UPDATE locks the conflicting row even when
-- its WHERE is false, so busy callers would queue behind each other, behind the holder's release,
-- and behind a concurrent acquire's commit (which on a durable server waits for a WAL flush). So
-- the statement inserts its one source row only when
--   * the probe locked the row: it is free, expired or this holder token's, and no other session
--     is changing it (FOR UPDATE SKIP LOCKED); or
--   * no row of another holder token exists: the name is new (a concurrent first insert is
--     settled by ON CONFLICT), or the row is this holder token's while another session changes
--     it, so a repeat after a lost answer waits for that and gets its lease back.
-- Otherwise (a live lease of another holder, or a row another session is changing) no source
-- row: busy at once, with no lock taken. The probe decides nothing else: the upsert's WHERE stays
-- the one compare-and-set.
-- lock_timeout bounds the wait on a concurrent writer's row lock (SQLSTATE 55P03, retryable).
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire_lease(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS TABLE (fencing_token bigint, acquired_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_now timestamptz := clock_timestamp();
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    RETURN QUERY
    WITH probe AS MATERIALIZED (
        SELECT 1 FROM ${writer_fence_schema}.lease AS p
         WHERE p.fence_name = p_fence_name
           AND (p.holder_token IS NULL OR p.expires_at <= v_now OR p.holder_token = p_holder_token)
           FOR UPDATE SKIP LOCKED)
    INSERT INTO ${writer_fence_schema}.lease AS l
        (fence_name, holder_token, holder_label, fencing_token, acquired_at, expires_at)
    SELECT p_fence_name, p_holder_token, p_holder_label, 1, v_now,
           v_now + make_interval(secs => p_ttl_seconds)
     WHERE EXISTS (SELECT 1 FROM probe)
        OR NOT EXISTS (SELECT 1 FROM ${writer_fence_schema}.lease AS o
                        WHERE o.fence_name = p_fence_name
                          AND o.holder_token IS DISTINCT FROM p_holder_token)
    ON CONFLICT (fence_name) DO UPDATE SET
        holder_token  = EXCLUDED.holder_token,
        holder_label  = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > v_now
                             THEN l.holder_label ELSE EXCLUDED.holder_label END,
        fencing_token = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > v_now
                             THEN l.fencing_token ELSE l.fencing_token + 1 END,
        acquired_at   = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > v_now
                             THEN l.acquired_at ELSE v_now END,
        expires_at    = CASE WHEN l.holder_token = EXCLUDED.holder_token AND l.expires_at > v_now
                             THEN l.expires_at ELSE EXCLUDED.expires_at END
    WHERE l.holder_token IS NULL                    -- free
       OR l.expires_at <= v_now                     -- expired: take over
       OR l.holder_token = EXCLUDED.holder_token    -- same holder, live: its current lease
    RETURNING l.fencing_token, l.acquired_at, l.expires_at;
END
$fn$;

-- acquire: the contract's scalar form. New fencing token, or NULL when busy.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.acquire(
    p_fence_name text, p_holder_token uuid, p_holder_label text, p_ttl_seconds integer)
RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT fencing_token FROM ${writer_fence_schema}.acquire_lease(p_fence_name, p_holder_token, p_holder_label, p_ttl_seconds);
$fn$;

-- renew_lease: sets the expiry of a live lease of this holder token to now + p_ttl_seconds
-- (database clock). That is not added to the old expiry: a TTL shorter than the time left
-- shortens the lease. New expiry, or NULL when the
-- lease is expired, taken over or released.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.renew_lease(
    p_fence_name text, p_holder_token uuid, p_ttl_seconds integer)
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
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, NULL, p_ttl_seconds) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, NULL, p_ttl_seconds);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    UPDATE ${writer_fence_schema}.lease AS l
       SET expires_at = v_now + make_interval(secs => p_ttl_seconds)
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token AND l.expires_at > v_now
    RETURNING l.expires_at INTO v_expires;
    RETURN v_expires;
END
$fn$;

-- renew: the contract's scalar form. TRUE when the lease now expires at now + p_ttl_seconds.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.renew(
    p_fence_name text, p_holder_token uuid, p_ttl_seconds integer)
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT ${writer_fence_schema}.renew_lease(p_fence_name, p_holder_token, p_ttl_seconds) IS NOT NULL;
$fn$;

-- release: frees the row only for the matching holder token; fencing_token and the last
-- holder's label stay. TRUE when this token's lease was freed, FALSE otherwise.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.release(p_fence_name text, p_holder_token uuid)
RETURNS boolean
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $fn$
#variable_conflict use_column
DECLARE
    v_ignored text;
BEGIN
    IF NOT ${writer_fence_schema}.args_ok(p_fence_name, p_holder_token, NULL, 1) THEN
        PERFORM ${writer_fence_schema}.check_args(p_fence_name, p_holder_token, NULL, 1);
        RAISE EXCEPTION 'writer-fence: args_ok and check_args disagree' USING ERRCODE = 'XX000';
    END IF;
    -- No WAL flush of its own (ADR 9): a release lost in a crash leaves the lease held until its
    -- expiry, which keeps writers out longer but never lets two in, and the next acquire's
    -- synchronous commit flushes it anyway. One fsync per cycle instead of two.
    -- An assignment, not PERFORM: a plain expression, not a query of its own.
    v_ignored := pg_catalog.set_config('synchronous_commit', 'off', true);
    UPDATE ${writer_fence_schema}.lease AS l
       SET holder_token = NULL, expires_at = least(l.expires_at, clock_timestamp())
     WHERE l.fence_name = p_fence_name AND l.holder_token = p_holder_token;
    RETURN FOUND;
END
$fn$;

-- The operators' view. Shows no holder token: the token is the holder's capability.
CREATE OR REPLACE VIEW ${writer_fence_schema}.lease_status AS
SELECT fence_name,
       holder_label,
       fencing_token,
       acquired_at,
       expires_at,
       CASE WHEN holder_token IS NOT NULL AND expires_at > clock_timestamp()
            THEN round(extract(epoch FROM expires_at - clock_timestamp()), 3)
            ELSE 0 END::numeric AS seconds_left,
       CASE WHEN holder_token IS NULL THEN 'free'
            WHEN expires_at > clock_timestamp() THEN 'held'
            ELSE 'expired' END AS state
  FROM ${writer_fence_schema}.lease;

-- The installed contract version, for health checks.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.schema_version()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 1 $fn$;

-- The advisory-lock backend (ADR 7) takes its fencing tokens from one sequence, and only once
-- pg_try_advisory_lock has been won, so a busy attempt consumes none. One sequence serves every
-- fence name: tokens strictly increase per name (and across names). The lease table plays no part.
CREATE SEQUENCE IF NOT EXISTS ${writer_fence_schema}.advisory_fencing_token AS bigint;
REVOKE ALL ON SEQUENCE ${writer_fence_schema}.advisory_fencing_token FROM PUBLIC;

-- next_advisory_fencing_token: the next fencing token of the advisory-lock backend.
CREATE OR REPLACE FUNCTION ${writer_fence_schema}.next_advisory_fencing_token()
RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT nextval('${writer_fence_schema}.advisory_fencing_token'::regclass) $fn$;

-- Functions are executable by PUBLIC by default in PostgreSQL: close them, then open them to the
-- configured role only.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA ${writer_fence_schema} FROM PUBLIC;
REVOKE ALL ON TABLE ${writer_fence_schema}.lease_status FROM PUBLIC;
GRANT USAGE ON SCHEMA ${writer_fence_schema} TO ${writer_fence_role};
GRANT EXECUTE ON FUNCTION
    ${writer_fence_schema}.acquire_lease(text, uuid, text, integer),
    ${writer_fence_schema}.acquire(text, uuid, text, integer),
    ${writer_fence_schema}.renew_lease(text, uuid, integer),
    ${writer_fence_schema}.renew(text, uuid, integer),
    ${writer_fence_schema}.release(text, uuid),
    ${writer_fence_schema}.schema_version(),
    ${writer_fence_schema}.next_advisory_fencing_token()
    TO ${writer_fence_role};
GRANT SELECT ON ${writer_fence_schema}.lease_status TO ${writer_fence_role};
