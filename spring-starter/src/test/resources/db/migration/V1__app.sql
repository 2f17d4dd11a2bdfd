-- The application's own first migration, in Flyway's default location: the contract's migration
-- (also a V1) must run beside it, never instead of it.
CREATE TABLE app_item (
    id            bigserial PRIMARY KEY,
    name          text      NOT NULL,
    fencing_token bigint    NOT NULL
);
