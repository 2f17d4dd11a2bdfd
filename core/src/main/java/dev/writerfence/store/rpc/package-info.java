/**
 * The lease-RPC backend ({@code backend=lease-rpc}, ADR 57): leases taken through an existing
 * deployment's acquire/release function pair, so a Java writer contends for the very row its other
 * writers (TypeScript, Python) use.
 */
package dev.writerfence.store.rpc;
