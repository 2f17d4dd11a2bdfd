/** The SQL contract and its installer. */
package dev.writerfence.schema;
