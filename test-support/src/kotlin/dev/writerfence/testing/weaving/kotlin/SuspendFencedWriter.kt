package dev.writerfence.testing.weaving.kotlin

import dev.writerfence.annotation.WriterFenced
import dev.writerfence.testing.weaving.SuspendingWriter
import java.util.concurrent.Callable
import java.util.concurrent.CompletableFuture
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.future.future
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield

/**
 * Fenced Kotlin suspend functions (case C32), for SuspendChecks. Compiled by kotlinc in the test
 * build of each weaving mode's module (kotlin-maven-plugin, source directory src/kotlin of
 * test-support), which fences them; open, so that Spring AOP may proxy them.
 */
open class SuspendFencedWriter {
  @WriterFenced(value = "{0}", retryMaxWaitMillis = 30_000)
  open suspend fun write(fenceName: String, work: Callable<Long>): Long {
    yield()
    return withContext(Dispatchers.IO) { work.call() }
  }

  @WriterFenced(value = "{0}", retryMaxWaitMillis = 30_000)
  open suspend fun fail(fenceName: String): Long {
    yield()
    withContext(Dispatchers.IO) { yield() }
    throw IllegalStateException("failed inside")
  }

  @WriterFenced(value = "{0}", retryMaxWaitMillis = 30_000)
  open suspend fun hang(fenceName: String, started: Runnable): Long {
    withContext(Dispatchers.IO) { started.run() }
    awaitCancellation()
  }

  @WriterFenced(value = "{0}", retryMaxWaitMillis = 30_000)
  open suspend fun nested(fenceName: String, inner: SuspendFencedWriter, work: Callable<Long>): Long {
    yield()
    return withContext(Dispatchers.IO) { inner.write(fenceName, work) }
  }
}

/** Calls the writer (as the weaving mode has it) from coroutines on Dispatchers.Default. */
class SuspendDriver(private val writer: SuspendFencedWriter) : SuspendingWriter {
  constructor() : this(SuspendFencedWriter())

  private val scope = CoroutineScope(SupervisorJob() + Dispatchers.Default)

  override fun write(fenceName: String, work: Callable<Long>): CompletableFuture<Long> =
    scope.future { writer.write(fenceName, work) }

  override fun fail(fenceName: String): CompletableFuture<Long> =
    scope.future { writer.fail(fenceName) }

  override fun hang(fenceName: String, started: Runnable): CompletableFuture<Long> =
    scope.future { writer.hang(fenceName, started) }

  override fun nested(fenceName: String, work: Callable<Long>): CompletableFuture<Long> =
    scope.future { writer.nested(fenceName, writer, work) }
}
