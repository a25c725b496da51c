package agent

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func registerProcess(t *testing.T, s *Server, pid int) *Run {
	t.Helper()
	r, err := s.RegisterProcess()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.SetProcess(pid)
	return r
}

// A process run welcomes one connection; a second client that presents the
// same token is refused, and the refusal is reported to the run.
func TestProcessRunRefusesSecondConnection(t *testing.T) {
	s := newServer(t)
	r := registerProcess(t, s, os.Getpid())
	first := dial(t, s)
	first.send(&Hello{Protocol: ProtocolVersion, Token: r.Token, PID: int64(os.Getpid())})
	if _, ok := first.reply().(*Welcome); !ok {
		t.Fatal("the launched process was not welcomed")
	}
	if ev := next(t, r); ev.Conn != 1 {
		t.Fatalf("first event %+v, want the hello of connection 1", ev)
	}
	second := dial(t, s)
	second.send(&Hello{Protocol: ProtocolVersion, Token: r.Token, PID: int64(os.Getpid())})
	if rej, ok := second.reply().(*Reject); !ok || !strings.Contains(rej.Reason, "already") {
		t.Fatalf("second hello answered %#v, want a reject", rej)
	}
	if !second.closedByServer() {
		t.Fatal("the second connection stayed open")
	}
	if ev := next(t, r); !strings.Contains(ev.Refused, "already presented this token") {
		t.Fatalf("event %+v, want the refusal", ev)
	}
	// The second client's result never reaches the run.
	second.send(&TestEnd{Test: "evil.Injected#test", Outcome: "pass"})
	first.send(&RunEnd{})
	if ev := next(t, r); ev.Message == nil || ev.Message.MessageType() != "run-end" {
		t.Fatalf("event %+v, want the first connection's run-end", ev)
	}
}

// A client that is not the launched process is refused even with the token
// (it stole it): on Linux the server maps the connection to its process.
func TestProcessRunRefusesOtherProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peer process checks need /proc")
	}
	other := exec.Command("sleep", "3600") // killed when the test ends
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	s := newServer(t)
	r := registerProcess(t, s, other.Process.Pid)
	c := dial(t, s)
	c.send(&Hello{Protocol: ProtocolVersion, Token: r.Token, PID: int64(other.Process.Pid)})
	if rej, ok := c.reply().(*Reject); !ok || !strings.Contains(rej.Reason, "not the JVM") {
		t.Fatalf("answer %#v, want a reject naming the process", rej)
	}
	if ev := next(t, r); !strings.Contains(ev.Refused, "not the JVM") {
		t.Fatalf("event %+v, want the refusal", ev)
	}
}

// A process run waits for SetProcess before it welcomes anyone, also when
// the driver records the process only after the hello deadline (a loaded
// machine, the driver descheduled between starting the JVM and recording it).
// The delay is at least what it says, which is all this needs; the wait
// for SetProcess (processWait) is not what it checks, and lasts as long as
// the test may, so that a delay stretched by a busy machine cannot outlast it.
func TestProcessRunWaitsForProcess(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{
		{"soon", 200 * time.Millisecond},
		{"after the hello deadline", helloTimeout + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServerWith(t, limits{hello: helloTimeout, process: time.Until(awaitBy(t))})
			r, err := s.RegisterProcess()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			c := dial(t, s)
			c.send(&Hello{Protocol: ProtocolVersion, Token: r.Token, PID: int64(os.Getpid())})
			time.Sleep(tc.delay)
			r.SetProcess(os.Getpid())
			if m := c.reply(); m == nil || m.MessageType() != "welcome" {
				t.Fatalf("answered %#v after SetProcess, want a welcome", m)
			}
		})
	}
}

func frameHeader(n uint32) []byte {
	return binary.BigEndian.AppendUint32(nil, n)
}

// Connections that announce huge first frames and never send them cost the
// driver nothing: no allocation by declared length, a small cap on the
// hello, and a short deadline.
func TestHandshakeFloodBounded(t *testing.T) {
	s := newServer(t)
	// The control: what a handshake costs here now.
	began := time.Now()
	f := dial(t, s)
	f.send(hello(register(t, s).Token))
	f.reply()
	handshake := time.Since(began)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 16 // under maxPending, so every connection reaches the handshake
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", s.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Half announce 16 MiB first frames, half a 4 KiB hello, each with
		// one byte of it: the server must not allocate by the declared length.
		size := uint32(MaxFrameSize)
		if i%2 == 1 {
			size = MaxHelloSize
		}
		c.Write(append(frameHeader(size), '{'))
		conns[i] = c
	}
	start := time.Now()
	// Each is closed by the hello deadline: soon after it, since the
	// server's part in that is less work than the handshake above, and the
	// bound allows many times that (however slow the machine is now) or 2
	// s, whichever is more.
	for _, c := range conns {
		c.SetReadDeadline(awaitBy(t))
		if _, err := io.ReadAll(c); errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("connection not closed by the server: %v", err)
		}
	}
	if d, bound := time.Since(start), helloTimeout+max(2*time.Second, 20*handshake); d > bound {
		t.Errorf("idle handshakes were closed after %s, want the hello deadline of %s and at most %s more", d, helloTimeout, bound-helloTimeout)
	}
	// What the server allocated for them while it held them, garbage
	// included: every handler has ended by now, so no allocation can come
	// after the measure, however late the server got to them.
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 8<<20 {
		t.Errorf("%d bytes allocated for %d idle handshakes", grown, n)
	}
}

// A first frame larger than a hello is refused without reading it.
func TestHandshakeOversizedHello(t *testing.T) {
	s := newServer(t)
	f := dial(t, s)
	f.sendRaw(frameHeader(MaxFrameSize))
	if !f.closedByServer() {
		t.Fatal("a 16 MiB first frame was accepted")
	}
}

// A connection beyond maxPending pending ones evicts the oldest, and is
// served: idle strangers cannot keep a client out.
func TestHandshakePendingEvictsOldest(t *testing.T) {
	s := newServer(t)
	r := register(t, s)
	var conns []net.Conn
	for range maxPending {
		c, err := net.Dial("tcp", s.ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	// Let the server account for them.
	waitPending(t, s, maxPending)
	f := dial(t, s)
	f.send(hello(r.Token))
	if _, ok := f.reply().(*Welcome); !ok {
		t.Fatal("the client over the cap was not welcomed")
	}
	conns[0].SetReadDeadline(awaitBy(t)) // the server closes it at once
	if _, err := conns[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("oldest pending connection: read %v, want EOF", err)
	}
}

func waitPending(t *testing.T, s *Server, n int) {
	t.Helper()
	for deadline := awaitBy(t); ; time.Sleep(10 * time.Millisecond) {
		s.mu.Lock()
		p := len(s.pending)
		s.mu.Unlock()
		if p == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pending connections, want %d", p, n)
		}
	}
}

// flood keeps n idle connections to addr open, dialing again (after pause)
// each one the server closes, until the test ends; it returns how many
// connections it opened in all.
func flood(t *testing.T, addr string, n int, pause time.Duration) func() int64 {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var dialed atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := net.Dial("tcp", addr)
				if err == nil {
					dialed.Add(1)
					go func() { <-stop; c.Close() }()
					io.Copy(io.Discard, c) // until the server closes it
					c.Close()
				}
				select {
				case <-stop:
					return
				case <-time.After(pause):
				}
			}
		}()
	}
	t.Cleanup(func() { close(stop); wg.Wait() })
	return dialed.Load
}

// Under a flood of more idle connections than the server keeps pending,
// each dialing again whenever the server closes it, a launched process
// that connects again when its connection is closed (as the agent does)
// gets in within a few attempts, and the server's memory stays bounded.
// The server's hello deadline lasts as long as the test may: the flood's
// connections leave only when evicted, so a client gets in by eviction
// alone, never by waiting out the deadlines of idle strangers, however
// slow the machine.
func TestHandshakeThroughFlood(t *testing.T) {
	s := newServerWith(t, limits{hello: time.Until(awaitBy(t)), process: processWait})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	dialed := flood(t, s.ln.Addr().String(), maxPending+64, 20*time.Millisecond)
	waitPending(t, s, maxPending)
	most := 0
	for i := range 20 {
		r := registerProcess(t, s, os.Getpid())
		attempts := 0
		for welcomed := false; !welcomed; {
			attempts++
			if attempts > 10 {
				t.Fatalf("client %d was not welcomed in 10 attempts", i)
			}
			c, err := net.Dial("tcp", s.ln.Addr().String())
			if err != nil {
				continue
			}
			WriteMessage(c, &Hello{Protocol: ProtocolVersion, Token: r.Token, PID: int64(os.Getpid())})
			c.SetReadDeadline(awaitBy(t))
			m, err := ReadMessage(c)
			if _, welcomed = m.(*Welcome); !welcomed && err == nil {
				t.Fatalf("client %d: answer %#v", i, m)
			}
			defer c.Close()
		}
		most = max(most, attempts)
	}
	s.mu.Lock()
	pending, evicted := len(s.pending), len(s.evicted)
	s.mu.Unlock()
	if pending > maxPending || evicted > maxPending {
		t.Errorf("%d pending and %d evicted connections, want at most %d each", pending, evicted, maxPending)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 32<<20 {
		t.Errorf("heap grew by %d bytes under the flood", grown)
	}
	t.Logf("the flood dialed %d connections; the clients needed at most %d attempts", dialed(), most)
}

// ReadFrame allocates what arrives, not what the header declares.
func TestReadFrameAllocatesIncrementally(t *testing.T) {
	r := io.MultiReader(strings.NewReader(string(frameHeader(MaxFrameSize))), strings.NewReader("{}"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(r)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want unexpected EOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("allocated %d bytes for a 2-byte truncated frame", got)
	}
}
