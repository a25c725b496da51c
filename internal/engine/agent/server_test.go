package agent

import (
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/testkit/testdeadline"
)

// fakeJVM is a Go stand-in for the Java agent's side of a connection.
type fakeJVM struct {
	t    *testing.T
	conn net.Conn
}

func dial(t *testing.T, s *Server) *fakeJVM {
	t.Helper()
	conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &fakeJVM{t: t, conn: conn}
}

func (f *fakeJVM) send(m Message) {
	f.t.Helper()
	if err := WriteMessage(f.conn, m); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeJVM) sendRaw(b []byte) {
	f.t.Helper()
	if _, err := f.conn.Write(b); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeJVM) reply() Message {
	f.t.Helper()
	f.conn.SetReadDeadline(awaitBy(f.t))
	m, err := ReadMessage(f.conn)
	if err != nil {
		f.t.Fatalf("read reply: %v", err)
	}
	return m
}

// closedByServer reports whether the server closed the connection.
func (f *fakeJVM) closedByServer() bool {
	f.conn.SetReadDeadline(awaitBy(f.t))
	_, err := ReadFrame(f.conn)
	return errors.Is(err, io.EOF)
}

func newServer(t *testing.T) *Server {
	t.Helper()
	return newServerWith(t, limits{hello: helloTimeout, process: processWait})
}

// newServerWith starts a server with other limits than NewServer's.
func newServerWith(t *testing.T, lim limits) *Server {
	t.Helper()
	s, err := listen(lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// awaitBy is when a test stops waiting for something that must happen
// (testdeadline.AwaitBy).
func awaitBy(t *testing.T) time.Time { return testdeadline.AwaitBy(t) }

func register(t *testing.T, s *Server) *Run {
	t.Helper()
	r, err := s.Register()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// next returns the run's next event; it fails when none comes by awaitBy.
func next(t *testing.T, r *Run) Event {
	t.Helper()
	select {
	case ev := <-r.Events():
		return ev
	case <-time.After(time.Until(awaitBy(t))):
		t.Fatal("no event")
		return Event{}
	}
}

func hello(token string) *Hello {
	return &Hello{Protocol: ProtocolVersion, Token: token, PID: 7, JavaVersion: "17"}
}

func TestHandshake(t *testing.T) {
	tests := []struct {
		name       string
		first      func(token string) []byte
		wantReject string // empty: welcome expected
	}{
		{
			name:  "valid token",
			first: func(tok string) []byte { return mustFrame(hello(tok)) },
		},
		{
			name:       "wrong token",
			first:      func(string) []byte { return mustFrame(hello("0123456789abcdef")) },
			wantReject: "unknown token",
		},
		{
			name:       "empty token",
			first:      func(string) []byte { return mustFrame(hello("")) },
			wantReject: "unknown token",
		},
		{
			name: "unsupported protocol",
			first: func(tok string) []byte {
				h := hello(tok)
				h.Protocol = 2
				return mustFrame(h)
			},
			wantReject: "unsupported protocol version 2 (driver speaks 1)",
		},
		{
			name:       "event before hello",
			first:      func(string) []byte { return mustFrame(&RunStart{Count: 1}) },
			wantReject: "expected a hello message first",
		},
		{
			name:       "unknown type before hello",
			first:      func(string) []byte { return frame(`{"type":"bogus"}`) },
			wantReject: "expected a hello message first",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			run := register(t, s)
			jvm := dial(t, s)
			jvm.sendRaw(tt.first(run.Token))
			got := jvm.reply()
			if tt.wantReject == "" {
				if !reflect.DeepEqual(got, &Welcome{Protocol: 1}) {
					t.Fatalf("reply = %#v, want welcome", got)
				}
				ev := next(t, run)
				if !reflect.DeepEqual(ev.Message, hello(run.Token)) || ev.Conn != 1 {
					t.Errorf("first event = %#v, want the hello on conn 1", ev)
				}
				return
			}
			if !reflect.DeepEqual(got, &Reject{Reason: tt.wantReject}) {
				t.Fatalf("reply = %#v, want reject %q", got, tt.wantReject)
			}
			if !jvm.closedByServer() {
				t.Error("connection not closed after reject")
			}
			select {
			case ev := <-run.Events():
				t.Errorf("rejected connection delivered %#v", ev)
			default:
			}
		})
	}
}

func TestHandshakeGarbageClosed(t *testing.T) {
	s := newServer(t)
	register(t, s)
	jvm := dial(t, s)
	jvm.sendRaw(header(MaxFrameSize + 1))
	if !jvm.closedByServer() {
		t.Error("connection with oversized first frame not closed")
	}
}

func TestEventsDelivered(t *testing.T) {
	tests := []struct {
		name    string
		after   [][]byte // frames sent after the hello
		close   bool     // client closes its side at the end
		want    []Message
		wantErr error // error of the final Closed event
	}{
		{
			name: "events then clean close",
			after: [][]byte{
				mustFrame(&RunStart{Count: 1}),
				mustFrame(&TestStart{Test: "p.C#m"}),
				mustFrame(&TestEnd{Test: "p.C#m", Outcome: "pass", TimeMs: 3}),
				mustFrame(&RunEnd{Count: 1}),
			},
			close: true,
			want: []Message{
				&RunStart{Count: 1},
				&TestStart{Test: "p.C#m"},
				&TestEnd{Test: "p.C#m", Outcome: "pass", TimeMs: 3},
				&RunEnd{Count: 1},
			},
		},
		{
			name: "unknown types ignored",
			after: [][]byte{
				frame(`{"type":"future-thing","x":1}`),
				mustFrame(&Log{Level: "info", Message: "m"}),
				frame(`{"type":"another","nested":{"type":"log"}}`),
			},
			close: true,
			want:  []Message{&Log{Level: "info", Message: "m"}},
		},
		{
			name: "oversized frame refused",
			after: [][]byte{
				mustFrame(&RunStart{Count: 1}),
				header(MaxFrameSize + 1),
			},
			want:    []Message{&RunStart{Count: 1}},
			wantErr: ErrFrameTooLarge,
		},
		{
			name:    "empty frame refused",
			after:   [][]byte{header(0)},
			want:    nil,
			wantErr: ErrEmptyFrame,
		},
		{
			name:    "truncated frame",
			after:   [][]byte{append(header(100), `{"type":`...)},
			close:   true,
			wantErr: io.ErrUnexpectedEOF,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			run := register(t, s)
			jvm := dial(t, s)
			jvm.send(hello(run.Token))
			if _, ok := jvm.reply().(*Welcome); !ok {
				t.Fatal("not welcomed")
			}
			if ev := next(t, run); ev.Message == nil {
				t.Fatalf("first event %#v is not the hello", ev)
			}
			for _, f := range tt.after {
				jvm.sendRaw(f)
			}
			if tt.close {
				jvm.conn.(*net.TCPConn).CloseWrite()
			}
			var got []Message
			for {
				ev := next(t, run)
				if ev.Closed {
					if !errors.Is(ev.Err, tt.wantErr) || (tt.wantErr == nil && ev.Err != nil) {
						t.Errorf("close err = %v, want %v", ev.Err, tt.wantErr)
					}
					break
				}
				got = append(got, ev.Message)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events = %#v, want %#v", got, tt.want)
			}
			if !jvm.closedByServer() {
				t.Error("server kept the connection open")
			}
		})
	}
}

func TestRunsAreIsolated(t *testing.T) {
	s := newServer(t)
	const n = 8
	runs := make([]*Run, n)
	for i := range runs {
		runs[i] = register(t, s)
	}
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port()))
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			WriteMessage(conn, hello(r.Token))
			ReadMessage(conn)
			for j := 0; j < 50; j++ {
				WriteMessage(conn, &TestEnd{Test: fmt.Sprintf("C%d#m%d", i, j), Index: j, Outcome: "pass"})
			}
		}()
	}
	wg.Wait()
	for i, r := range runs {
		if _, ok := next(t, r).Message.(*Hello); !ok {
			t.Fatalf("run %d: first event not hello", i)
		}
		for j := 0; j < 50; j++ {
			ev := next(t, r)
			te, ok := ev.Message.(*TestEnd)
			if !ok || te.Test != fmt.Sprintf("C%d#m%d", i, j) {
				t.Fatalf("run %d event %d = %#v", i, j, ev)
			}
		}
		if ev := next(t, r); !ev.Closed {
			t.Fatalf("run %d: expected close, got %#v", i, ev)
		}
	}
}

func TestClosedRunRejectsAndDisconnects(t *testing.T) {
	s := newServer(t)
	run := register(t, s)
	jvm := dial(t, s)
	jvm.send(hello(run.Token))
	jvm.reply()
	next(t, run)
	run.Close()
	if !jvm.closedByServer() {
		t.Error("connection of a closed run kept open")
	}
	late := dial(t, s)
	late.send(hello(run.Token))
	if got := late.reply(); !reflect.DeepEqual(got, &Reject{Reason: "unknown token"}) {
		t.Errorf("late connection reply = %#v, want reject", got)
	}
}

func TestSecondConnectionNumbered(t *testing.T) {
	s := newServer(t)
	run := register(t, s)
	for want := 1; want <= 2; want++ {
		jvm := dial(t, s)
		jvm.send(hello(run.Token))
		jvm.reply()
		if ev := next(t, run); ev.Conn != want {
			t.Errorf("conn = %d, want %d", ev.Conn, want)
		}
	}
}

func TestTokensUnique(t *testing.T) {
	s := newServer(t)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		r := register(t, s)
		if len(r.Token) != 32 || seen[r.Token] {
			t.Fatalf("bad or repeated token %q", r.Token)
		}
		seen[r.Token] = true
	}
}

func TestServerCloseEndsConnections(t *testing.T) {
	s, err := NewServer()
	if err != nil {
		t.Fatal(err)
	}
	run, _ := s.Register()
	jvm := dial(t, s)
	jvm.send(hello(run.Token))
	jvm.reply()
	done := make(chan error)
	go func() { done <- s.Close() }()
	// The pending hello event must not block Close.
	select {
	case <-done:
	case <-time.After(time.Until(awaitBy(t))):
		t.Fatal("Close blocked")
	}
	if !jvm.closedByServer() {
		t.Error("connection survived Server.Close")
	}
	if _, err := s.Register(); err == nil {
		t.Error("Register after Close succeeded")
	}
}

func mustFrame(m Message) []byte {
	p, err := Encode(m)
	if err != nil {
		panic(err)
	}
	return frame(string(p))
}
