// Package buildinfo reports the version of the running flaky binary.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// version, commit and date are set at build time (the Makefile's build
// does) with
// -ldflags "-X github.com/flakyhq/flaky/internal/buildinfo.version=...
// -X github.com/flakyhq/flaky/internal/buildinfo.commit=...
// -X github.com/flakyhq/flaky/internal/buildinfo.date=...".
var (
	version = ""
	commit  = ""
	date    = ""
)

// devMavenVersion is the Maven version of a development build.
const devMavenVersion = "0.0.0-dev"

// Info is what a binary knows about its build.
type Info struct {
	Version  string // see Version
	Commit   string // the source's commit; "" when unknown
	Date     string // the commit's time (RFC 3339); "" when unknown
	Modified bool   // the source had changes not committed (Go's vcs.modified)
}

// Read returns the build's Info: the values the build set with -ldflags,
// else those Go recorded (the module version of `go install module@v`, the
// vcs.revision, vcs.time and vcs.modified of a build in a git checkout).
func Read() Info {
	info, _ := debug.ReadBuildInfo()
	return read(info, version, commit, date)
}

// read is Read with the build's recorded info (nil when there is none) and
// the -ldflags values.
func read(bi *debug.BuildInfo, version, commit, date string) Info {
	i := Info{Version: version, Commit: commit, Date: date}
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	if i.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		i.Version = bi.Main.Version
	}
	if i.Version == "" {
		i.Version = "dev"
	}
	if i.Commit != "" {
		return i
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Commit = s.Value
		case "vcs.time":
			if i.Date == "" {
				i.Date = s.Value
			}
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// String is the Info in one line, as `flaky --version` prints it after
// "flaky ": "v0.1.0 (commit 0123456789ab, 2026-01-02T03:04:05Z)"; a
// modified checkout's commit is followed by "+changes".
func (i Info) String() string {
	var parts []string
	if c := i.Commit; c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		if i.Modified {
			c += "+changes"
		}
		parts = append(parts, "commit "+c)
	}
	if i.Date != "" {
		parts = append(parts, i.Date)
	}
	if len(parts) == 0 {
		return i.Version
	}
	return i.Version + " (" + strings.Join(parts, ", ") + ")"
}

// Version is the build-time version, else the module version Go recorded,
// else "dev".
func Version() string {
	return Read().Version
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
