package launcher

import (
	"runtime"
	"testing"
	"time"
)

// TestIdleMeter checks that the meter measures only from a mark at least
// MinIdleInterval old, between none and all of the cores, and marks again.
func TestIdleMeter(t *testing.T) {
	var m IdleMeter
	if _, ok := m.IdleCores(); ok {
		t.Fatal("measured without a mark")
	}
	m.Mark()
	if _, ok := m.IdleCores(); ok {
		t.Fatal("measured right after the mark")
	}
	time.Sleep(MinIdleInterval + 50*time.Millisecond)
	idle, ok := m.IdleCores()
	if !ok {
		t.Skip("the machine does not say its CPU times")
	}
	if idle < 0 || idle > float64(runtime.NumCPU())+0.01 {
		t.Errorf("idle cores = %.2f, want between 0 and %d", idle, runtime.NumCPU())
	}
	if _, ok := m.IdleCores(); ok {
		t.Error("measured again right after a measurement (it marks)")
	}
}
