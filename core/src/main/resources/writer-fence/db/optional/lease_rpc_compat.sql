-- writer-fence: the lease-RPC compatibility functions (optional; ADR 57).
--
-- Installs an existing deployment's lease-RPC pair, with its names, parameter names, defaults
-- and answers, over writer-fence's own contract in schema ${writer_fence_schema}, so writers that
-- call that pair (TypeScript through PostgREST, Python through asyncpg) repoint to writer-fence
-- with no code change and contend with Java writers on the lease backend for the same row:
--
--   public.corpus_writer_fence_lease_acquire(p_holder_token uuid, p_holder text,
--       p_ttl_seconds integer, p_fence_name text) -> boolean     (false: busy, never an error)
--   public.corpus_writer_fence_lease_release(p_holder_token uuid, p_holder text,
--       p_fence_name text) -> boolean                           (frees only for the same token)
--
-- Placeholders: ${writer_fence_schema} (writer-fence's schema, installed first),
-- ${writer_fence_role} (the role the legs connect as; it needs writer-fence's own grants too,
-- FenceSchema grantTo / --grant-to), ${lease_rpc_fence_name} (the fence name callers that pass
-- none get: the deployment's one row, e.g. id138_corpus_writer_fence).
--
-- The functions live in schema public, outside writer-fence's schema, so its install and verify
-- checks are not concerned with them. They are SECURITY INVOKER: the caller's own grants on
-- writer-fence's functions apply, nothing more. Re-running this file replaces them in place; it
-- refuses, changing nothing, when schema public has functions of these names (any signature) that
-- writer-fence did not install (their COMMENT says so): the deployment's own pair is not replaced.
-- Move its legs first, then drop or rename it (ADR 57).

DO $guard$
DECLARE
    found text;
BEGIN
    SELECT string_agg(format('public.%s(%s)', p.proname,
                             pg_catalog.pg_get_function_identity_arguments(p.oid)), ', '
                      ORDER BY p.proname, p.oid)
      INTO found
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public'
       AND p.proname IN ('corpus_writer_fence_lease_acquire', 'corpus_writer_fence_lease_release')
       AND coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), '')
           NOT LIKE 'installed by writer-fence%';
    IF found IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '55000', MESSAGE = 'writer-fence: refusing to install the'
            || ' lease-RPC pair: schema public has functions of these names that writer-fence did'
            || ' not install: ' || found || '; nothing was changed. Move every leg off them'
            || ' first, then drop or rename them, and install again (ADR 57)';
    END IF;
END
$guard$;

CREATE OR REPLACE FUNCTION public.corpus_writer_fence_lease_acquire(
    p_holder_token uuid,
    p_holder text DEFAULT NULL,
    p_ttl_seconds integer DEFAULT 3600,
    p_fence_name text DEFAULT '${lease_rpc_fence_name}')
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $fn$
    -- acquire_lease answers a row (the lease and its fencing token) or none (busy).
    SELECT EXISTS (
        SELECT 1 FROM ${writer_fence_schema}.acquire_lease(
            p_fence_name, p_holder_token, p_holder, p_ttl_seconds));
$fn$;

CREATE OR REPLACE FUNCTION public.corpus_writer_fence_lease_release(
    p_holder_token uuid,
    p_holder text DEFAULT NULL,
    p_fence_name text DEFAULT '${lease_rpc_fence_name}')
RETURNS boolean
LANGUAGE sql VOLATILE SECURITY INVOKER
SET search_path = pg_catalog, pg_temp
AS $fn$
    -- p_holder is accepted for the callers' sake; writer-fence frees by holder token alone.
    SELECT ${writer_fence_schema}.release(p_fence_name, p_holder_token);
$fn$;

REVOKE ALL ON FUNCTION public.corpus_writer_fence_lease_acquire(uuid, text, integer, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION public.corpus_writer_fence_lease_release(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.corpus_writer_fence_lease_acquire(uuid, text, integer, text)
    TO ${writer_fence_role};
GRANT EXECUTE ON FUNCTION public.corpus_writer_fence_lease_release(uuid, text, text)
    TO ${writer_fence_role};
COMMENT ON FUNCTION public.corpus_writer_fence_lease_acquire(uuid, text, integer, text) IS
    'installed by writer-fence (ADR 57); default fence name: ${lease_rpc_fence_name}';
COMMENT ON FUNCTION public.corpus_writer_fence_lease_release(uuid, text, text) IS
    'installed by writer-fence (ADR 57); default fence name: ${lease_rpc_fence_name}';
