// Package knowledge keeps what full analyses of a module learned, so that a
// later analysis can tell what a change can affect: per test its duration,
// outcome history, the shared state it read and wrote, the project classes
// whose code ran for it and what the analysis found about it; per module the
// commit, the time and a content hash of every compiled class. A store is one
// versioned JSON file per module, written atomically and safe to lose: a
// missing, corrupt or stale store loads as none, with a note, and the caller
// runs a full analysis.
package knowledge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/saferead"
	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/report"
)

// Format is the version of the store's JSON; a store of another format is
// stale and ignored.
const Format = 1

// File is the store's file name in its directory.
const File = "knowledge.json"

// Store is the knowledge of one module.
type Store struct {
	Format int    `json:"format"`
	Module string `json:"module"` // the module's path from the project root ("." for the root)
	// Commit is the commit (git rev-parse HEAD) of the last full run; ""
	// outside a git repository.
	Commit string    `json:"commit"`
	Time   time.Time `json:"time"` // when the last full run ended
	// Classes maps the binary name of every class compiled into the
	// module's class and test-class directories to the sha256 of its class
	// file (hex), as the last full run saw them.
	Classes map[string]string `json:"classes"`
	// Tests are the per-test records, by test id.
	Tests map[string]*Test `json:"tests"`
}

// Test is what full runs learned about one test.
type Test struct {
	// DurationMs is its last measured duration, MedianMs the median of
	// Durations, its last measured durations (oldest first, at most
	// MaxDurations).
	DurationMs int64   `json:"durationMs"`
	MedianMs   int64   `json:"medianMs"`
	Durations  []int64 `json:"durations,omitempty"`
	// Outcomes counts its passes and failures per kind of run (RunReference,
	// RunOriginal, RunOrders), over all full runs recorded.
	Outcomes map[string]Outcomes `json:"outcomes,omitempty"`
	// LastCommit is the commit of the last full run that ran it.
	LastCommit string `json:"lastCommit"`
	// Traced says the last full run's data-dependency reference runs
	// recorded it: Reads, Writes and Classes are then what it read, wrote and
	// ran there (each may be empty); else they are unknown (nil).
	Traced bool `json:"traced"`
	// Reads are the shared-state roots it read before it replaced them
	// itself (what an earlier test can have left for it), Writes those it
	// wrote.
	Reads  []Root `json:"reads,omitempty"`
	Writes []Root `json:"writes,omitempty"`
	// Classes are the project classes (binary names, sorted) whose methods
	// or constructors ran while it ran.
	Classes []string `json:"classes,omitempty"`
	// Methods are the project methods (Class#name, sorted; see
	// agent.Dataflow) that ran while it ran; nil when the agent did not
	// record them.
	Methods []string `json:"methods,omitempty"`
	// Findings are the last full run's findings about it.
	Findings []Finding `json:"findings,omitempty"`
	// Suspected says its outcome changed in the last full run but the
	// change could not be confirmed (no finding).
	Suspected bool `json:"suspected,omitempty"`
}

// Outcomes counts the runs of a test that passed and failed.
type Outcomes struct {
	Pass int `json:"pass"`
	Fail int `json:"fail"`
}

// Root is a shared-state root and its kind (static-field,
// system-property, jdk-default, file), as the agent names them.
type Root struct {
	Root string `json:"root"`
	Kind string `json:"kind"`
}

// Finding is a finding about a test: its kind and the tests involved.
type Finding struct {
	Kind      report.Kind `json:"kind"`
	Polluters [][]string  `json:"polluters,omitempty"`
	Setters   [][]string  `json:"setters,omitempty"`
	Cleaners  [][]string  `json:"cleaners,omitempty"`
}

// The kinds of run whose outcomes a Test counts.
const (
	RunReference = "reference" // the data-dependency reference runs
	RunOriginal  = "original"  // the caller's own runs of the suite (verify: the Surefire fork and its reruns)
	RunOrders    = "orders"    // the runs of a finding's orders (its runs and failures)
)

// MaxDurations is how many durations a Test keeps for its median.
const MaxDurations = 9

// NoteKind says why Load returned no store.
type NoteKind string

// The kinds of Note.
const (
	Missing    NoteKind = "missing"
	Corrupt    NoteKind = "corrupt"
	Stale      NoteKind = "stale"
	Unreadable NoteKind = "unreadable"
)

// Note says why Load returned no store, for the console; the zero Note
// means the store loaded.
type Note struct {
	Kind NoteKind
	Text string
}

// String returns the note's text.
func (n Note) String() string { return n.Text }

// Dir returns the directory of the store of the module in moduleDir, named
// name (its path from the project root): under folder when one is given
// (the module's path in it, folder itself for the root module), else
// under flaky's cache directory, keyed by a hash of the module's absolute
// directory and name. A folder of that path below the knowledge folder
// (folder, or the cache directory's knowledge) that is a symbolic link is
// an error; the knowledge folder itself may be one.
func Dir(folder, moduleDir, name string) (string, error) {
	if folder != "" {
		clean := filepath.Clean(filepath.FromSlash(name))
		if name == "" || clean == "." {
			return folder, nil
		}
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return inside(folder, key(moduleDir, name))
		}
		return inside(folder, clean)
	}
	cache, err := agent.CacheDir()
	if err != nil {
		return "", fmt.Errorf("knowledge folder: %w", err)
	}
	return inside(filepath.Join(cache, "knowledge"), key(moduleDir, name))
}

// inside joins base and rel, a relative path below it, refusing one whose
// folders (those that exist) include a symbolic link: the store is written
// only inside base, never where a link in it leads.
func inside(base, rel string) (string, error) {
	dir := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if err != nil {
			break // missing: Save creates the rest as folders
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("knowledge folder: %s is a symbolic link; flaky keeps knowledge only inside %s", dir, base)
		}
	}
	return filepath.Join(base, rel), nil
}

// key names a module by its absolute directory and its name.
func key(moduleDir, name string) string {
	abs, err := filepath.Abs(moduleDir)
	if err != nil {
		abs = moduleDir
	}
	sum := sha256.Sum256([]byte(abs + "\x00" + name))
	return hex.EncodeToString(sum[:8])
}

// MaxSize bounds the knowledge.json Load reads, so that a store linked to a
// huge file costs little memory: far above what a suite of 10,000 tests
// stores.
const MaxSize = 32 << 20

// Load reads the store in dir. A missing, corrupt or stale store gives a
// nil store and a note saying so and that the analysis is a full one; an
// unreadable one also gives the error, which the caller may report but
// need not stop on.
func Load(dir string) (*Store, Note, error) {
	data, err := saferead.ReadFile(filepath.Join(dir, File), MaxSize, "a knowledge store")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, Note{Missing, fmt.Sprintf("no knowledge at %s: full analysis", dir)}, nil
	case err != nil:
		return nil, Note{Unreadable, fmt.Sprintf("knowledge at %s is unreadable: full analysis", dir)}, fmt.Errorf("read knowledge: %w", err)
	}
	var head struct {
		Format *int `json:"format"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format == nil {
		why := "no format"
		if err != nil {
			why = err.Error()
		}
		return nil, Note{Corrupt, fmt.Sprintf("knowledge at %s is corrupt (%s): full analysis", dir, why)}, nil
	}
	if *head.Format != Format {
		return nil, Note{Stale, fmt.Sprintf("knowledge at %s is stale (format %d, this flaky reads %d): full analysis", dir, *head.Format, Format)}, nil
	}
	var s Store
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, Note{Corrupt, fmt.Sprintf("knowledge at %s is corrupt (%v): full analysis", dir, err)}, nil
	}
	if s.Tests == nil {
		s.Tests = map[string]*Test{}
	}
	return &s, Note{}, nil
}

// Save writes the store to dir (created when missing), atomically.
func (s *Store) Save(dir string) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode knowledge: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("knowledge folder: %w", err)
	}
	if err := safewrite.Atomic(filepath.Join(dir, File), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write knowledge: %w", err)
	}
	return nil
}
