package mvn

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
)

// ArtifactGroupID is the groupId of flaky's Maven artifacts.
const ArtifactGroupID = "dev.flaky"

// Artifact is a jar to install as dev.flaky:ArtifactID:version.
type Artifact struct {
	ArtifactID string
	Jar        []byte
	// Packaging is the pom's packaging; "" means jar.
	Packaging string
}

// PluginArtifactID is the artifactId of flaky's Maven plugin, which the
// flaky profile runs.
const PluginArtifactID = "flaky-maven-plugin"

// InstallArtifacts writes each artifact into the local Maven repository
// repo as repo/dev/flaky/<a>/<version>/<a>-<version>.jar plus a minimal pom
// (no dependencies) beside it, each file only when it is missing or its
// sha256 differs. Files are written to a temporary name and renamed into
// place, so Maven never reads a partial file and concurrent installs (one
// per module of a parallel build) are safe. It returns the coordinates of
// the artifacts it wrote, nil when all were up to date.
func InstallArtifacts(repo, version string, artifacts []Artifact) ([]string, error) {
	if repo == "" {
		return nil, errors.New("no local repository directory")
	}
	if version == "" || strings.ContainsAny(version, `/\:"<>&|?*`) || strings.TrimSpace(version) != version {
		return nil, fmt.Errorf("%q is not a usable artifact version", version)
	}
	var wrote []string
	for _, a := range artifacts {
		dir := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(ArtifactGroupID, ".", "/")), a.ArtifactID, version)
		base := filepath.Join(dir, a.ArtifactID+"-"+version)
		changed := false
		for _, f := range []struct {
			path string
			data []byte
		}{{base + ".jar", a.Jar}, {base + ".pom", artifactPom(a.ArtifactID, version, a.Packaging)}} {
			if upToDate(f.path, f.data) {
				continue
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return wrote, fmt.Errorf("install %s: %w", a.ArtifactID, err)
			}
			if err := safewrite.Atomic(f.path, f.data, 0o644); err != nil {
				return wrote, fmt.Errorf("install %s: %w", f.path, err)
			}
			changed = true
		}
		if changed {
			wrote = append(wrote, ArtifactGroupID+":"+a.ArtifactID+":"+version)
		}
	}
	return wrote, nil
}

// upToDate says whether path holds data (same sha256).
func upToDate(path string, data []byte) bool {
	have, err := saferead.ReadFile(path, int64(len(data)), "an artifact")
	return err == nil && sha256.Sum256(have) == sha256.Sum256(data)
}

// artifactPom is the pom installed with a jar: coordinates and packaging only.
func artifactPom(artifactID, version, packaging string) []byte {
	if packaging == "" {
		packaging = "jar"
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>` + ArtifactGroupID + `</groupId>
  <artifactId>` + artifactID + `</artifactId>
  <version>` + version + `</version>
  <packaging>` + packaging + `</packaging>
</project>
`)
}
