/**
 * The test kit in a Spring Boot test: {@link dev.writerfence.testing.spring.TestFenceConfiguration}
 * makes the kit's test fence the application's fence and its embedded PostgreSQL the application's
 * database. Needs spring-context and spring-test (Spring Framework 6.2 or 7), which the
 * application's tests bring.
 */
package dev.writerfence.testing.spring;
