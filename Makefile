# flaky build. `make build` leaves the binary at bin/flaky.
GO      ?= go
MVN     ?= env MAVEN_OPTS="$(MAVEN_OPTS) -Dstyle.color=never -Djansi.noreset=true" mvn
JARS    := internal/engine/agent/jars/flaky-agent.jar internal/engine/agent/jars/flaky-runner.jar internal/engine/agent/jars/flaky-surefire-provider.jar internal/engine/agent/jars/flaky-editor.jar internal/engine/agent/jars/flaky-maven-plugin.jar
JAVA_SRC := $(shell find java \( -name '*.java' -o -name pom.xml \) -not -path '*/target/*' 2>/dev/null)

.PHONY: all build dist dist-maven java java-test test unit fuzz e2e e2e-repeat test-busy e2e-busy bench demo lint clean

all: build

## java: build the Java runner, agent, Surefire provider, source editor and Maven plugin and copy the jars that the Go binary embeds.
java: $(JARS)

# copy-jars copies the packaged jars to where the Go binary embeds them from.
define copy-jars
	cp java/flaky-agent/target/flaky-agent.jar internal/engine/agent/jars/flaky-agent.jar
	cp java/flaky-runner/target/flaky-runner.jar internal/engine/agent/jars/flaky-runner.jar
	cp java/flaky-surefire-provider/target/flaky-surefire-provider.jar internal/engine/agent/jars/flaky-surefire-provider.jar
	cp java/flaky-editor/target/flaky-editor.jar internal/engine/agent/jars/flaky-editor.jar
	cp java/flaky-maven-plugin/target/flaky-maven-plugin.jar internal/engine/agent/jars/flaky-maven-plugin.jar
endef

$(JARS) &: $(JAVA_SRC)
	$(MVN) -B -q -f java/pom.xml -DskipTests package
	$(copy-jars)

## java-test: the Java unit tests of the runner, agent, Surefire provider and source editor. Packaged, since a
## module that uses the runner tests against the shaded jar it ships (Gson relocated); the tested jars are then
## the ones the binary embeds, so that `make test` packages the Java modules once.
java-test:
	$(MVN) -B -q -f java/pom.xml package
	$(copy-jars)

# LDFLAGS stamp the binary with what `flaky version` prints: `git describe` of the work tree (a tag, or the
# abbreviated commit; -dirty when it has changes), the commit and its time. Go's own stamp (vcs.revision) is
# missing in a git worktree and with -buildvcs=false; outside git these stay empty and flaky says dev.
# VERSION overrides the version (a release build's tag, or an e2e test's own).
BUILDINFO := github.com/flakyhq/flaky/internal/base/buildinfo
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
LDFLAGS ?= -X $(BUILDINFO).version=$(VERSION) \
	-X $(BUILDINFO).commit=$(shell git rev-parse HEAD 2>/dev/null) \
	-X $(BUILDINFO).date=$(shell git log -1 --format=%cI HEAD 2>/dev/null)

## build: the flaky binary in bin/flaky (embeds the jars; version and commit stamped, see LDFLAGS).
build: $(JARS)
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/flaky ./cmd/flaky

## dist: release archives in DIST (default dist/): flaky for each of PLATFORMS (default linux and macOS on amd64
## and arm64; CGO off, the jars embedded, stamped as build does), each with LICENSE and README.md in
## flaky-VERSION-OS-ARCH.tar.gz, and SHA256SUMS; then dist-maven. PLATFORMS=host builds this machine's alone.
DIST      ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
REPO      ?= $(DIST)/maven
override PLATFORMS := $(if $(filter host,$(PLATFORMS)),$(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH),$(PLATFORMS))
DIST_ENV = GO='$(GO)' LDFLAGS='$(LDFLAGS)' DIST='$(DIST)' PLATFORMS='$(PLATFORMS)' REPO='$(REPO)' \
	VERSION="$$($(GO) run -ldflags '$(LDFLAGS)' ./cmd/flaky version --maven)"
dist: $(JARS)
	$(DIST_ENV) scripts/dist.sh archives
	$(DIST_ENV) scripts/dist.sh maven

## dist-maven: the binaries of DIST as the Maven artifacts dev.flaky:flaky:VERSION:exe:CLASSIFIER (classifiers
## linux-x86_64, linux-aarch_64, osx-x86_64, osx-aarch_64), deployed with Maven into the file repository REPO
## (default DIST/maven), from where a build resolves them as from any repository (see docs/install.md).
dist-maven: $(JARS)
	$(DIST_ENV) scripts/dist.sh maven

## lint: gofmt and go vet.
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt needed'; exit 1; }
	$(GO) vet ./...

## unit: fast Go unit tests (no JVM, no Maven).
unit: build
	$(GO) test -short ./...

## fuzz: each fuzz target for FUZZTIME (corpora in */testdata/fuzz/). Before Go 1.27 a run can fail at its end with
## "context deadline exceeded" and no failing input (Go issue 75804): that alone is not a failure; a new input in
## the target's corpus folder (a failing input Go saved) always is.
FUZZTIME ?= 10s
FUZZ_TARGETS := internal/engine/agent:FuzzReadMessage internal/maven/surefire:FuzzReadOrder internal/maven/mvn:FuzzInitProfile
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; corpus=$$pkg/testdata/fuzz/$$name; \
		before=$$(ls $$corpus 2>/dev/null | wc -l); \
		echo "fuzz $$t ($(FUZZTIME))"; \
		out=$$($(GO) test ./$$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) 2>&1); status=$$?; \
		echo "$$out"; \
		if [ $$status -ne 0 ]; then \
			if echo "$$out" | grep -q '^    context deadline exceeded$$' && [ "$$(ls $$corpus 2>/dev/null | wc -l)" = "$$before" ]; then \
				echo "fuzz $$t: Go's fuzzing coordinator missed its own deadline (Go issue 75804); no failing input, not a failure"; \
			else \
				exit 1; \
			fi; \
		fi; \
	done

## test: everything: lint, Go and Java unit tests, fuzzing for a bounded time and the end-to-end tests on testdata/ with real Maven and JVMs.
test: java-test build lint fuzz
	$(GO) test -count=1 -timeout 10m $$($(GO) list ./... | grep -v '/e2e$$')
	$(MAKE) --no-print-directory e2e

# GOTESTSUM runs the end-to-end tests: output as `go test -v` prints it, then
# each failed test's output again at the end, where a CI log's tail shows it.
GOTESTSUM = $(GO) run gotest.tools/gotestsum@v1.13.0 --format standard-verbose --

## e2e: the end-to-end tests on testdata/ with real Maven and JVMs (verbose, so that the log shows what each one costs; each failure's output again at the end).
e2e: build
	$(GOTESTSUM) -count=1 -timeout 60m ./e2e

## e2e-repeat: the end-to-end tests COUNT times in a row, stopping at the first failing round (checks that the suite is not flaky).
COUNT ?= 3
e2e-repeat: build
	@for i in $$(seq 1 $(COUNT)); do \
		echo "e2e round $$i of $(COUNT)"; \
		$(GOTESTSUM) -count=1 -timeout 60m ./e2e || { echo "e2e round $$i of $(COUNT) failed"; exit 1; }; \
	done; echo "e2e: $(COUNT) rounds in a row passed"

## test-busy: the fast suite (Go -short and the Java unit tests) BUSY_ROUNDS times in a row (default 3) while
## BUSY_SPINNERS processes spin (default 8 per core), failing at the first failing round (scripts/busy.sh).
test-busy: build
	scripts/busy.sh -- sh -c '$(GO) test -short -count=1 ./... && $(MAKE) --no-print-directory java-test'

## e2e-busy: the end-to-end suite the same way, beside 2 spinners per core (BUSY_SPINNERS to change).
e2e-busy: build
	BUSY_SPINNERS=$${BUSY_SPINNERS:-$$((2 * $$(nproc)))} scripts/busy.sh -- $(GOTESTSUM) -count=1 -timeout 90m ./e2e

## bench: benchmarks that need real JVMs (see docs/performance.md); BENCHFLAGS=-readme rewrites its tables in docs/.
bench: build
	$(GO) run ./tools/bench $(BENCHFLAGS)

## demo: flaky on a bundled fixture.
demo: build
	bin/flaky list-tests --module testdata/junit4

clean:
	rm -rf bin dist java/*/target
