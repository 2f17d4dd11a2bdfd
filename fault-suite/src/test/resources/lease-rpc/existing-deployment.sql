-- An existing deployment's lease-RPC pair, as the team that adopts writer-fence runs it today
-- (issue 16): one row per fence name in public.corpus_writer_fence_lease, closed to the
-- application roles (REVOKE ALL, row-level security on with no policies), changed only through two
-- SECURITY DEFINER functions. Acquire is one INSERT ... ON CONFLICT (fence_name) DO UPDATE ...
-- WHERE <free or expired> RETURNING; busy is false, never an exception; release frees only for the
-- same holder token. Every parameter after p_holder_token has a default; the fence name is a
-- test-isolation seam that production callers never pass. A test fixture: writer-fence ships none
-- of this. ${app_role} is the role the writers connect as.

CREATE TABLE public.corpus_writer_fence_lease (
    fence_name   text PRIMARY KEY,
    holder_token uuid,
    holder       text,
    acquired_at  timestamptz,
    expires_at   timestamptz
);
REVOKE ALL ON public.corpus_writer_fence_lease FROM PUBLIC;
REVOKE ALL ON public.corpus_writer_fence_lease FROM ${app_role};
ALTER TABLE public.corpus_writer_fence_lease ENABLE ROW LEVEL SECURITY;

CREATE FUNCTION public.corpus_writer_fence_lease_acquire(
    p_holder_token uuid,
    p_holder text DEFAULT 'unknown',
    p_ttl_seconds integer DEFAULT 3600,
    p_fence_name text DEFAULT 'id138_corpus_writer_fence')
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $fn$
DECLARE
    v_taken text;
BEGIN
    INSERT INTO public.corpus_writer_fence_lease AS l
        (fence_name, holder_token, holder, acquired_at, expires_at)
    VALUES (p_fence_name, p_holder_token, p_holder, now(),
            now() + make_interval(secs => p_ttl_seconds))
    ON CONFLICT (fence_name) DO UPDATE
        SET holder_token = EXCLUDED.holder_token,
            holder = EXCLUDED.holder,
            acquired_at = EXCLUDED.acquired_at,
            expires_at = EXCLUDED.expires_at
        WHERE l.holder_token IS NULL OR l.expires_at <= now()
    RETURNING l.fence_name INTO v_taken;
    RETURN v_taken IS NOT NULL;
END;
$fn$;

CREATE FUNCTION public.corpus_writer_fence_lease_release(
    p_holder_token uuid,
    p_holder text DEFAULT 'unknown',
    p_fence_name text DEFAULT 'id138_corpus_writer_fence')
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $fn$
BEGIN
    UPDATE public.corpus_writer_fence_lease
       SET holder_token = NULL, expires_at = now()
     WHERE fence_name = p_fence_name AND holder_token = p_holder_token;
    RETURN FOUND;
END;
$fn$;

REVOKE ALL ON FUNCTION public.corpus_writer_fence_lease_acquire(uuid, text, integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION public.corpus_writer_fence_lease_release(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.corpus_writer_fence_lease_acquire(uuid, text, integer, text) TO ${app_role};
GRANT EXECUTE ON FUNCTION public.corpus_writer_fence_lease_release(uuid, text, text) TO ${app_role};
