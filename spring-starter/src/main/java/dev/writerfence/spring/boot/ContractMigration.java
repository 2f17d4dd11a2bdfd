package dev.writerfence.spring.boot;

import javax.sql.DataSource;

/**
 * A migration tool's run of the SQL contract, which the starter runs before it creates the fence.
 * The one the starter provides is {@link WriterFenceFlywayMigration}; a bean of this type of yours
 * replaces it.
 */
public interface ContractMigration {
  /**
   * Brings the contract on {@code dataSource} up to date.
   *
   * @param dataSource the fence's connections
   * @return the number of migrations applied (0 when up to date)
   * @throws RuntimeException if the migration fails: the start-up stops with it
   */
  int migrate(DataSource dataSource);
}
