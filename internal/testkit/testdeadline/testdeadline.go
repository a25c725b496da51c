// Package testdeadline says how long a test may wait for something that
// must happen, for tests whose waits must not depend on the machine's speed.
package testdeadline

import (
	"testing"
	"time"
)

// AwaitBy is when a test stops waiting for something that must happen (a
// reply, an event of a run, a process's exit, a call that must return):
// shortly before go test's -timeout would end the test binary. A slow or
// busy machine only makes the wait longer; only a broken behaviour makes it
// run out.
func AwaitBy(t testing.TB) time.Time {
	t.Helper()
	type deadliner interface{ Deadline() (time.Time, bool) }
	if dt, ok := t.(deadliner); ok {
		if d, ok := dt.Deadline(); ok {
			return d.Add(-time.Until(d) / 10)
		}
	}
	return time.Now().Add(10 * time.Minute) // go test's default -timeout
}
