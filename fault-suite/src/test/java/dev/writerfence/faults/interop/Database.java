package dev.writerfence.faults.interop;

import javax.sql.DataSource;

/**
 * A database of the embedded server as a writer of every language reaches it: the application
 * role's name and password, on 127.0.0.1.
 *
 * @param name the database
 * @param port the server's port
 * @param user the application role
 * @param password its password
 * @param dataSource connections of that role, for the Java writers
 */
record Database(String name, int port, String user, String password, DataSource dataSource) {}
