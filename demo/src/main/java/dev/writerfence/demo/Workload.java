package dev.writerfence.demo;

/**
 * What every writer process of a run does, as the demo's options set it.
 *
 * @param fenceName the fence every writer contends for
 * @param threads writer threads per process
 * @param seconds how long each process writes
 * @param batch objects written per critical section
 * @param keys distinct object keys the writers choose from
 * @param breakFence whether the writers skip the lease (every acquire is granted at once), to show
 *     that the checks catch it
 */
record Workload(
    String fenceName, int threads, int seconds, int batch, int keys, boolean breakFence) {}
