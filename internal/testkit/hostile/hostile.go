// Package hostile builds projects whose pom.xml is hostile (a link to
// /dev/zero, a FIFO, a huge file, deep nesting) and measures what a flaky
// command costs on them: wall and CPU time and the child's peak resident
// memory. The regression tests and the benchmark share it.
package hostile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Pom is one hostile project: Dir holds its pom.xml.
type Pom struct {
	Name string
	Dir  string
	// Valid says the pom is within flaky's bounds, just: init accepts it.
	Valid bool
}

const head = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>a</artifactId><version>1</version>"

// Poms creates the hostile projects under dir.
func Poms(dir string) ([]Pom, error) {
	makers := []struct {
		name  string
		make  func(pom string) error
		valid bool
	}{
		{"pom.xml linked to /dev/zero", func(pom string) error { return os.Symlink("/dev/zero", pom) }, false},
		{"pom.xml a FIFO", func(pom string) error { return syscall.Mkfifo(pom, 0o644) }, false},
		{"151 MB pom", func(pom string) error {
			// Sparse: its size is what a reader sees first.
			if err := os.WriteFile(pom, []byte(head+"<description>"), 0o644); err != nil {
				return err
			}
			return os.Truncate(pom, 151<<20)
		}, false},
		{"2,000,000 levels deep", func(pom string) error { return os.WriteFile(pom, nested(2_000_000), 0o644) }, false},
		{"100,000 levels deep (under the size cap)", func(pom string) error { return os.WriteFile(pom, nested(100_000), 0o644) }, false},
		{"99,990 elements (valid)", func(pom string) error {
			return os.WriteFile(pom, wrap(strings.Repeat("<a/>", 99_990)), 0o644)
		}, true},
		{"4 MiB of text (valid)", func(pom string) error {
			return os.WriteFile(pom, wrap(strings.Repeat("x", 4<<20-len(wrap(""))-1)), 0o644)
		}, true},
	}
	var out []Pom
	for i, m := range makers {
		d := filepath.Join(dir, fmt.Sprintf("pom%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := m.make(filepath.Join(d, "pom.xml")); err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		out = append(out, Pom{Name: m.name, Dir: d, Valid: m.valid})
	}
	return out, nil
}

// nested is a pom whose description nests depth elements.
func nested(depth int) []byte {
	return wrap(strings.Repeat("<a>", depth) + strings.Repeat("</a>", depth))
}

// wrap is a pom whose description is s.
func wrap(s string) []byte {
	return []byte(head + "<description>" + s + "</description></project>\n")
}

// Cost is what one command cost.
type Cost struct {
	Wall     time.Duration
	CPU      time.Duration // user and system time: unlike Wall, not stretched by other processes
	PeakRSS  int64         // bytes, the command's maximum resident set
	ExitCode int           // -1 when the timeout killed it
	Stderr   string
}

// measureEnv makes an executable that calls Main measure the command of its
// arguments; its value is the timeout.
const measureEnv = "FLAKY_HOSTILE_MEASURE"

// Main, called first thing in main (or TestMain), turns this executable into
// the measuring parent of Measure when the environment asks for it: it runs
// its arguments as a command, ends it after the timeout (or above 1 GiB of
// resident memory), writes the
// command's cost to stdout and exits. Otherwise it returns.
func Main() {
	timeout, err := time.ParseDuration(os.Getenv(measureEnv))
	if err != nil || len(os.Args) < 2 {
		return
	}
	os.Unsetenv(measureEnv)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	done := make(chan struct{})
	go guard(cmd.Process, done)
	cmd.Wait()
	close(done)
	timer.Stop()
	var peak int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		peak = maxRSSBytes(ru)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("%d %d %d %d\n", time.Since(start), cpu, peak, cmd.ProcessState.ExitCode())
	os.Exit(0)
}

// killAbove is the resident memory at which Main kills the command it
// measures, so that a regression costs the machine little.
const killAbove = 1 << 30

// guard kills p when its resident memory (Linux's /proc) exceeds killAbove,
// until done is closed.
func guard(p *os.Process, done <-chan struct{}) {
	status := fmt.Sprintf("/proc/%d/status", p.Pid)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		data, err := os.ReadFile(status)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			var kb int64
			if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &kb); err == nil && kb<<10 > killAbove {
				p.Kill()
			}
		}
	}
}

// Measure runs argv with env, ended after timeout, and returns its cost.
// The command is started by a fresh copy of this executable (see Main),
// not by this process: Linux carries the peak memory of the process that
// starts a command over into the command's own figure, and this one may
// be large. The figure is thus at least that small copy's, a few MB.
func Measure(ctx context.Context, argv, env []string, timeout time.Duration) (Cost, error) {
	self, err := os.Executable()
	if err != nil {
		return Cost{}, err
	}
	cmd := exec.CommandContext(ctx, self, argv...)
	cmd.Env = append(env, measureEnv+"="+timeout.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Cost{}, fmt.Errorf("measure %s: %w\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	var c Cost
	var wall, cpu int64
	if _, err := fmt.Sscanf(stdout.String(), "%d %d %d %d", &wall, &cpu, &c.PeakRSS, &c.ExitCode); err != nil {
		return Cost{}, fmt.Errorf("measure %s: %q: %w (does main call hostile.Main?)", strings.Join(argv, " "), stdout.String(), err)
	}
	c.Wall, c.CPU, c.Stderr = time.Duration(wall), time.Duration(cpu), stderr.String()
	return c, nil
}

// Init measures `init` of the project in p.Dir by the flaky command exe
// (the executable and any leading arguments).
func Init(ctx context.Context, exe, env []string, p Pom, timeout time.Duration) (Cost, error) {
	argv := append(append(exe[:len(exe):len(exe)], "init"), p.Dir)
	return Measure(ctx, argv, env, timeout)
}

// maxRSSBytes is a rusage's peak resident set in bytes: getrusage counts
// it in KiB on Linux, in bytes on macOS.
func maxRSSBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) << 10
}
