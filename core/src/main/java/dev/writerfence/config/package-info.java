/** Settings shared by every weaving mode, under the names of the design (§7). */
package dev.writerfence.config;
