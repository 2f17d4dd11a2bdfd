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
-- writer-fence's functions apply, nothing more. Re-running this file replaces them in place.

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
