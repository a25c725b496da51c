// Package buildinfo reports the version of the running flaky binary.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// version is set at build time with
// -ldflags "-X github.com/flakyhq/flaky/internal/buildinfo.version=...".
var version = ""

// devMavenVersion is the Maven version of a development build.
const devMavenVersion = "0.0.0-dev"

// Version is the build-time version, else the module version Go recorded,
// else "dev".
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// MavenVersion is Version as the version of flaky's Maven artifacts
// (dev.flaky:flaky-agent and dev.flaky:flaky-surefire-provider) and of the
// flaky.version property `flaky init` writes: Go's leading "v" dropped and
// "+" (build metadata, as in "+dirty") turned into "-", so a Go pseudo-version
// such as v0.0.0-20250101120000-abcdef123456+dirty becomes
// 0.0.0-20250101120000-abcdef123456-dirty; a development build ("dev") is
// 0.0.0-dev. It never ends in -SNAPSHOT, so Maven treats the artifacts as
// releases and never looks for newer ones remotely.
func MavenVersion() string {
	return mavenVersion(Version())
}

func mavenVersion(v string) string {
	if v == "dev" || v == "" {
		return devMavenVersion
	}
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		v = v[1:]
	}
	return strings.ReplaceAll(v, "+", "-")
}
