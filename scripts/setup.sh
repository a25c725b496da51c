#!/usr/bin/env bash
# Installs what flaky's build and tests need on a fresh Debian machine:
# a JDK (17+), Maven, Go (>= the go.mod version) and unzip/curl. Idempotent; needs root for apt-get.
set -euo pipefail

need_go="1.24"
missing=()
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
command -v mvn   >/dev/null 2>&1 || missing+=(maven)
command -v curl  >/dev/null 2>&1 || missing+=(curl)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
command -v git   >/dev/null 2>&1 || missing+=(git)
command -v make  >/dev/null 2>&1 || missing+=(make)
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
  # The Go toolchain is published as a module on the Go module proxy (the same mechanism GOTOOLCHAIN uses).
  ver="go1.24.11"; dest="/usr/local/go-$ver"
  if [ ! -x "$dest/bin/go" ]; then
    echo "setup: installing $ver from the Go module proxy"
    tmp=$(mktemp -d)
    curl -fsSL "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-$ver.linux-amd64.zip" -o "$tmp/go.zip"
    unzip -q "$tmp/go.zip" -d "$tmp"
    mv "$tmp/golang.org/toolchain@v0.0.1-$ver.linux-amd64" "$dest"
    chmod +x "$dest"/bin/* "$dest"/pkg/tool/*/* 2>/dev/null || true
    rm -rf "$tmp"
  fi
  ln -sf "$dest/bin/go" /usr/local/bin/go
  ln -sf "$dest/bin/gofmt" /usr/local/bin/gofmt
fi

echo "setup: $(go version); $(java -version 2>&1 | head -n1); $(mvn -v 2>/dev/null | head -n1)"
