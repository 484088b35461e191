#!/usr/bin/env bash
# Fetches Apache Kafka 4.1.1 (broker, Connect worker, connectors, tools) from
# Maven Central into interop/lib (git-ignored; Maven caches them in ~/.m2),
# compiles the test connector into interop/plugins/koff-interop, and puts
# Debezium's PostgreSQL connector 3.6.1.Final in interop/plugins/debezium-postgres.
# Afterwards `go test ./interop/` runs koff against the real stack.
set -euo pipefail
cd "$(dirname "$0")"
command -v mvn >/dev/null || { echo "fetch.sh: mvn not found (install Maven)" >&2; exit 1; }
command -v javac >/dev/null || { echo "fetch.sh: javac not found (install a JDK 17)" >&2; exit 1; }

rm -rf lib.tmp
mvn -q -B -Dstyle.color=never -f pom.xml dependency:copy-dependencies -DoutputDirectory="$PWD/lib.tmp"
rm -rf lib && mv lib.tmp lib

rm -rf build && mkdir -p build/classes plugins/koff-interop
javac --release 17 -nowarn -cp 'lib/*' -d build/classes $(find java -name '*.java')
jar --create --file plugins/koff-interop/koff-interop-connector.jar -C build/classes .
rm -rf build

# Debezium's PostgreSQL connector as a plugin of its own: its runtime jars
# without the worker's (Kafka's clients with their compression codecs, and
# SLF4J), as Debezium's plugin archive has them.
rm -rf plugins/debezium-postgres.tmp
mvn -q -B -Dstyle.color=never -f debezium/pom.xml dependency:copy-dependencies -DincludeScope=runtime \
  -DexcludeGroupIds=org.apache.kafka,org.slf4j,org.lz4,org.xerial.snappy,com.github.luben -DoutputDirectory="$PWD/plugins/debezium-postgres.tmp"
rm -rf plugins/debezium-postgres && mv plugins/debezium-postgres.tmp plugins/debezium-postgres
echo "interop: $(ls lib | wc -l) jars in interop/lib; plugins in interop/plugins: $(ls plugins | tr '\n' ' ')"
