# Thin wrapper over CMake + Ninja. Build trees: build/ (release, the binary is build/hop),
# build-debug/ (ASan + UBSan), build-fuzz/ (clang + libFuzzer).
JOBS ?= $(shell nproc)
CMAKE ?= cmake
FUZZ_SECONDS ?= 60

.PHONY: all hop test demo debug bench fuzz fuzz-sql fuzz-yaml fuzz-bind fuzz-template fuzz-pgwire fuzz-http bench-pgwire bench-kube bench-scale format clean

all: build/build.ninja
	$(CMAKE) --build build -j $(JOBS)

hop: build/build.ninja
	$(CMAKE) --build build -j $(JOBS) --target hop

build/build.ninja:
	$(CMAKE) -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release

test: all
	ctest --test-dir build --output-on-failure -j $(JOBS)

# The demo grows with every capability: hop loads the demo environment into a fresh state
# directory and runs the quickstart script against it.
DEMO_STATE ?= build/demo-state
demo: hop
	rm -rf $(DEMO_STATE)
	./build/hop --state $(DEMO_STATE) apply -f examples/demo-environment.yaml
	./build/hop --state $(DEMO_STATE) get databases
	./build/hop --state $(DEMO_STATE) -f examples/quickstart.sql
	./build/hop --state $(DEMO_STATE) get views
	./build/hop --state $(DEMO_STATE) get pipelines
	./build/hop --state $(DEMO_STATE) get flinksessionjobs
	./build/hop --state $(DEMO_STATE) get tabletriggers
	./build/hop --state $(DEMO_STATE) logs tabletrigger/audiencereport
	./build/hop --state $(DEMO_STATE) -e 'DROP TRIGGER audience_report;' \
	  -e 'DROP MATERIALIZED VIEW ads.audience;' -e 'DROP VIEW ads.visitors;'

build-debug/build.ninja:
	$(CMAKE) -S . -B build-debug -G Ninja -DCMAKE_BUILD_TYPE=Debug -DHOP_SANITIZE=ON -DHOP_BENCH=OFF

debug: build-debug/build.ninja
	$(CMAKE) --build build-debug -j $(JOBS)
	ctest --test-dir build-debug --output-on-failure -j $(JOBS)

bench: build/build.ninja
	$(CMAKE) --build build -j $(JOBS) --target sql_bench store_bench planner_bench ddl_bench \
	  engine_bench postgres_bench
	./build/bench/sql_bench
	./build/bench/store_bench
	./build/bench/planner_bench
	./build/bench/ddl_bench
	./build/bench/engine_bench
	./build/bench/postgres_bench

# The wire server against PostgreSQL with pgbench (SELECT 1, simple and prepared), then 200
# connections of queries and DDL for 60 s (bench/pgwire_bench.sh).
bench-pgwire: build/build.ninja
	$(CMAKE) --build build -j $(JOBS) --target hop
	./bench/pgwire_bench.sh build

# The Kubernetes API of a real `hop serve --http-port 0` over HTTP: list by label among 100,000
# ConfigMaps, sequential creates, 100 watches under 1,000 updates/s, each beside a raw SQLite
# baseline (bench/kube_bench.cc; knobs OBJECTS, HITS, CREATES, WATCHERS, RATE, SECONDS, ...).
bench-kube: build/build.ninja
	$(CMAKE) --build build -j $(JOBS) --target hop kube_bench
	./build/bench/kube_bench

# What users see at scale (bench/scale_bench.cc): whole `hop` processes with durable commits, each
# beside a raw SQLite or posix_spawn baseline in the same run; prints a table of
# measure | hop | baseline | ratio. About a minute at the default sizes (0, 1k and 10k views); about
# three with 100k added: SCALE_FLAGS='--sizes 0,1000,10000,100000'.
SCALE_FLAGS ?=
bench-scale: build/build.ninja
	$(CMAKE) --build build -j $(JOBS) --target hop scale_bench
	./build/bench/scale_bench $(SCALE_FLAGS)

build-fuzz/build.ninja:
	CC=clang CXX=clang++ $(CMAKE) -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHOP_FUZZ=ON

# Each fuzzer runs for FUZZ_SECONDS (default 60), one after the other: the SQL fuzzer from the
# seed corpus built out of the golden files; new inputs are kept in build-fuzz/corpus.
fuzz: fuzz-sql fuzz-yaml fuzz-bind fuzz-template fuzz-pgwire fuzz-http

fuzz-sql: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target sql_fuzz
	mkdir -p build-fuzz/corpus build-fuzz/seeds
	./scripts/fuzz-seeds src/sql/testdata build-fuzz/seeds
	./build-fuzz/fuzz/sql_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -dict=fuzz/sql.dict build-fuzz/corpus build-fuzz/seeds fuzz/regressions/sql

# YAML seeds: the examples and the CRD golden file.
fuzz-yaml: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target yaml_fuzz
	mkdir -p build-fuzz/yaml-corpus
	./build-fuzz/fuzz/yaml_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/yaml-corpus examples src/resource/testdata fuzz/regressions/yaml

# Runs the binder fuzzer: queries over the demo catalog must bind or fail cleanly, and what binds
# must write back as SQL that binds to the same row type.
fuzz-bind: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target bind_fuzz
	mkdir -p build-fuzz/bind-corpus build-fuzz/seeds build-fuzz/bind-seeds
	./scripts/fuzz-seeds src/sql/testdata build-fuzz/seeds
	./scripts/fuzz-seeds src/binder/testdata build-fuzz/bind-seeds
	./build-fuzz/fuzz/bind_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 -dict=fuzz/sql.dict build-fuzz/bind-corpus \
	  build-fuzz/bind-seeds build-fuzz/seeds fuzz/regressions/sql fuzz/regressions/bind

# Runs the template fuzzer: any text renders against a small environment within the rendered
# size bound; seeded with the template golden inputs and the examples.
fuzz-template: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target template_fuzz
	mkdir -p build-fuzz/template-corpus build-fuzz/template-seeds fuzz/regressions/template
	./scripts/fuzz-seeds src/template/testdata build-fuzz/template-seeds
	./build-fuzz/fuzz/template_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/template-corpus \
	  build-fuzz/template-seeds examples fuzz/regressions/template

# Runs the PostgreSQL protocol fuzzer: a startup packet and typed messages, each decoded by the
# server's decoders, seeded with a session of each kind (fuzz/regressions/pgwire).
fuzz-pgwire: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target pgwire_fuzz
	mkdir -p build-fuzz/pgwire-corpus
	./build-fuzz/fuzz/pgwire_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/pgwire-corpus fuzz/regressions/pgwire

# Runs the HTTP/1.1 fuzzer: request heads and their bodies as a connection carries them, seeded
# with the requests in fuzz/regressions/http.
fuzz-http: build-fuzz/build.ninja
	$(CMAKE) --build build-fuzz -j $(JOBS) --target http_fuzz
	mkdir -p build-fuzz/http-corpus
	./build-fuzz/fuzz/http_fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	  -rss_limit_mb=2048 -print_final_stats=1 build-fuzz/http-corpus fuzz/regressions/http

format:
	find src test bench fuzz -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf build build-debug build-fuzz
