#!/usr/bin/env bash
# Runs the benchmarks against an embedded PostgreSQL (fsync and synchronous_commit on) and, when
# installed, Debian's redis-server, both on 127.0.0.1; then writes tables and charts.
#
#   benchmarks/run.sh --quick   under 5 minutes on 2 cores  -> docs/benchmarks/quick, docs/benchmarks.md
#   benchmarks/run.sh --full    longer; speed-first server beside -> docs/benchmarks/full, docs/benchmarks.md
#   benchmarks/run.sh --smoke   seconds per benchmark, no fork (CI) -> benchmarks/target/smoke
#
# BENCH_BUILD=module builds only this module against the writer-fence jars already installed in
# ~/.m2 (for work in a checkout where others build too); BENCH_BUILD=none uses what the last
# `mvn verify` of the whole project built (CI); the default builds it with its upstream modules
# from this checkout. BENCH_ONLY=audit runs only the audit-advice benchmark (no database) into
# the plan's existing directory and reports the run again with its rows added.
set -euo pipefail
cd "$(dirname "$0")/.."

plan="${1:-}"
case "$plan" in
  --smoke) out=benchmarks/target/smoke; doc="" ;;
  --quick) out=docs/benchmarks/quick; doc=docs/benchmarks.md ;;
  --full) out=docs/benchmarks/full; doc=docs/benchmarks.md ;;
  *) echo "usage: benchmarks/run.sh --smoke|--quick|--full" >&2; exit 2 ;;
esac

mvn_args=(-q -B -ntp package -DskipTests -Dspotless.check.skip=true)
case "${BENCH_BUILD:-reactor}" in
  none) ;;
  module) mvn "${mvn_args[@]}" -pl benchmarks ;;
  *) mvn "${mvn_args[@]}" -pl benchmarks -am ;;
esac

# The project's own jars are copied first: a build in the same checkout that installs them anew
# while the run is under way must not pull them from under its JVMs.
snapshot=benchmarks/target/run-lib
rm -rf "$snapshot" && mkdir -p "$snapshot"
cp="benchmarks/target/classes"
IFS=: read -ra entries < benchmarks/target/classpath.txt || true  # no newline at its end
for entry in "${entries[@]}"; do
  case "$entry" in
    *writer-fence*) cp -r "$entry" "$snapshot/" && entry="$snapshot/$(basename "$entry")" ;;
  esac
  cp="$cp:$entry"
done
agent_args=()
if [ -f agent/target/writer-fence-agent.jar ] && [ -d agent/target/test-classes ]; then
  cp agent/target/writer-fence-agent.jar "$snapshot/" && cp -r agent/target/test-classes "$snapshot/agent-test-classes"
  agent_args=(-Dbench.agent.jar="$snapshot/writer-fence-agent.jar" -Dbench.agent.test-classes="$snapshot/agent-test-classes")
fi

exec java -cp "$cp" -Djava.awt.headless=true -Dbench.only="${BENCH_ONLY:-}" "${agent_args[@]}" dev.writerfence.benchmarks.BenchmarkMain "$plan" "$out" $doc
