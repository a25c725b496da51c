#!/usr/bin/env bash
# Release builds of flaky (the Makefile's dist and dist-maven call this).
#
#   scripts/dist.sh archives   cross-compiles flaky for each of PLATFORMS into DIST, packs each binary with
#                              LICENSE and README.md into DIST/flaky-VERSION-OS-ARCH.tar.gz and writes
#                              DIST/SHA256SUMS over the archives
#   scripts/dist.sh maven      deploys the binaries of DIST into the Maven repository at REPO (a directory) as
#                              dev.flaky:flaky:VERSION:exe:CLASSIFIER, with Maven's deploy-file (which writes the
#                              pom, the metadata and the checksums), and beside them the Maven plugin the profile
#                              runs (dev.flaky:flaky-maven-plugin) with the Surefire provider and agent
#
# Environment: GO, MVN (the commands; one word each), LDFLAGS (the version stamp), VERSION (the Maven version the stamp gives: what
# `flaky version --maven` prints), DIST, PLATFORMS ("linux/amd64 darwin/arm64 ..."), REPO.
# The classifiers are os-maven-plugin's names (linux-x86_64, linux-aarch_64, osx-x86_64, osx-aarch_64), which the
# profile `flaky init` writes picks from the JVM's os.name and os.arch.
set -euo pipefail

: "${GO:=go}" "${MVN:=mvn}" "${DIST:=dist}" "${PLATFORMS:=linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}"
: "${VERSION:?VERSION must name the Maven version (flaky version --maven)}"
: "${LDFLAGS=}"

# The deploy plugin is pinned: deploy-file's parameters changed across major versions.
DEPLOY_PLUGIN=org.apache.maven.plugins:maven-deploy-plugin:3.1.4

classifier() {
  case $1 in
    linux/amd64) echo linux-x86_64 ;;
    linux/arm64) echo linux-aarch_64 ;;
    darwin/amd64) echo osx-x86_64 ;;
    darwin/arm64) echo osx-aarch_64 ;;
    *) echo "dist: no Maven classifier for platform $1" >&2; return 1 ;;
  esac
}

# stage is the folder a platform's archive unpacks to.
stage() { echo "flaky-$VERSION-${1%/*}-${1#*/}"; }

archives() {
  mkdir -p "$DIST"
  DIST=$(cd "$DIST" && pwd)
  local root date archives=()
  root=$(cd "$(dirname "$0")/.." && pwd)
  # The archives' times are the commit's, so that the same commit packs the same bytes.
  date=$(git -C "$root" log -1 --format=%ct HEAD 2>/dev/null || echo 0)
  for p in $PLATFORMS; do
    classifier "$p" >/dev/null
    local name dir
    name=$(stage "$p")
    dir="$DIST/$name"
    rm -rf "$dir" && mkdir -p "$dir"
    echo "dist: $p"
    (cd "$root" && CGO_ENABLED=0 GOOS=${p%/*} GOARCH=${p#*/} "$GO" build -trimpath -ldflags "$LDFLAGS" \
      -o "$dir/flaky" ./cmd/flaky)
    cp "$root/LICENSE" "$root/README.md" "$dir/"
    tar -C "$DIST" --sort=name --mtime="@$date" --owner=0 --group=0 --numeric-owner -cf - "$name" \
      | gzip -n -9 >"$DIST/$name.tar.gz"
    archives+=("$name.tar.gz")
  done
  (cd "$DIST" && sha256sum "${archives[@]}" >SHA256SUMS)
  echo "dist: $(cd "$DIST" && pwd)/SHA256SUMS"
}

maven() {
  : "${REPO:?REPO must name the directory of the Maven repository to deploy into}"
  mkdir -p "$REPO"
  local repo files=() classifiers=() types=() main main_classifier
  repo=$(cd "$REPO" && pwd)
  for p in $PLATFORMS; do
    local bin
    bin="$(cd "$DIST" && pwd)/$(stage "$p")/flaky"
    [ -f "$bin" ] || { echo "dist: no $bin: run make dist first" >&2; return 1; }
    if [ -z "${main:-}" ]; then
      main=$bin main_classifier=$(classifier "$p")
    else
      files+=("$bin") classifiers+=("$(classifier "$p")") types+=(exe)
    fi
  done
  local extra=()
  if [ ${#files[@]} -gt 0 ]; then
    extra=("-Dfiles=$(IFS=,; echo "${files[*]}")" "-Dclassifiers=$(IFS=,; echo "${classifiers[*]}")"
      "-Dtypes=$(IFS=,; echo "${types[*]}")")
  fi
  MAVEN_OPTS="${MAVEN_OPTS:-} -Dstyle.color=never -Djansi.noreset=true" "$MVN" -B -q "$DEPLOY_PLUGIN:deploy-file" -DgroupId=dev.flaky -DartifactId=flaky -Dversion="$VERSION" \
    -Dpackaging=exe -DgeneratePom=true -DgeneratePom.description="flaky, a finder of flaky tests in Maven projects" \
    -Dfile="$main" -Dclassifier="$main_classifier" "${extra[@]}" \
    -DrepositoryId=flaky-dist -Durl="file://$repo"
  echo "dist: dev.flaky:flaky:$VERSION in $repo"
  # The profile's plugin, and the provider and agent it installs, from the same repository: Maven resolves the
  # plugin before any step of a build runs. install-artifacts writes them (the plugin's descriptor naming VERSION)
  # into a scratch repository, from where deploy-file deploys each with its pom.
  local scratch root a
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' RETURN
  root=$(cd "$(dirname "$0")/.." && pwd)
  (cd "$root" && "$GO" run -ldflags "$LDFLAGS" ./cmd/flaky install-artifacts --repo "$scratch")
  for a in flaky-maven-plugin flaky-surefire-provider flaky-agent; do
    local base="$scratch/dev/flaky/$a/$VERSION/$a-$VERSION"
    MAVEN_OPTS="${MAVEN_OPTS:-} -Dstyle.color=never -Djansi.noreset=true" "$MVN" -B -q "$DEPLOY_PLUGIN:deploy-file" \
      -Dfile="$base.jar" -DpomFile="$base.pom" -DrepositoryId=flaky-dist -Durl="file://$repo"
  done
  echo "dist: dev.flaky:flaky-maven-plugin, flaky-surefire-provider and flaky-agent $VERSION in $repo"
}

case ${1:-} in
  archives) archives ;;
  maven) maven ;;
  *) echo "usage: $0 archives|maven" >&2; exit 2 ;;
esac
