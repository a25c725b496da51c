// Package flakydir is the one place that knows the layout of a module's
// flaky directory, target/flaky: where each file flaky writes for a module
// lives. Everything else asks it for a path.
package flakydir

import "path/filepath"

// Dir is a module's flaky directory: the directory "flaky" in the module's
// build directory (Maven's ${project.build.directory}, target by default).
type Dir string

// name is the flaky directory's name inside the build directory.
const name = "flaky"

// InBuild returns the flaky directory of the build directory buildDir.
func InBuild(buildDir string) Dir {
	return Dir(filepath.Join(buildDir, name))
}

// OfModule returns the flaky directory of the module in moduleDir when it
// keeps Maven's default build directory, target: for commands that read a
// module's reports without resolving its build.
func OfModule(moduleDir string) Dir {
	return InBuild(filepath.Join(moduleDir, "target"))
}

// ForTestClasses returns the flaky directory of the build whose test
// classes are in testClassesDir (its parent is the build directory).
func ForTestClasses(testClassesDir string) Dir {
	return InBuild(filepath.Dir(testClassesDir))
}

// Path is the directory itself.
func (d Dir) Path() string { return string(d) }

// Report is report.json, the findings and statistics every analysis adds to.
func (d Dir) Report() string { return d.join("report.json") }

// Orders holds the order files that reproduce commands name.
func (d Dir) Orders() string { return d.join("orders") }

// Repair holds repair's patches and reasons.
func (d Dir) Repair() string { return d.join("repair") }

// RepairWork is where repair copies the module to validate its patches
// (under Repair, which keeps the patches themselves).
func (d Dir) RepairWork() string { return filepath.Join(d.Repair(), "work") }

// Cache holds what flaky keeps between its runs in the module (the
// resolved class path, compile stamps).
func (d Dir) Cache() string { return d.join("cache") }

// GateFile is the file verify writes when the module fails the gate; the
// flaky profile fails the build on it.
func (d Dir) GateFile() string { return d.join(GateName) }

// GateName is GateFile's name in the flaky directory.
const GateName = "gate-failed"

func (d Dir) join(elem string) string { return filepath.Join(string(d), elem) }
