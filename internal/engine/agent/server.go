package agent

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"
)

// TokenEnv is the environment variable that gives a launched JVM's agent its
// token; the environment, unlike the command line, only the owner can read.
const TokenEnv = "FLAKY_AGENT_TOKEN"

const (
	// helloTimeout bounds the wait for a new connection's hello frame; the
	// agent has its hello ready before it connects (the classes that take,
	// slow to load when another agent instruments them, are loaded by
	// then), so the bound starts when flaky's code in the JVM is ready and
	// covers only sending it.
	helloTimeout = 3 * time.Second
	// processWait bounds how long a launched JVM's hello waits for the
	// driver to record the JVM's pid (SetProcess). It is not the hello
	// deadline: on a loaded machine the driver may be descheduled for
	// seconds between starting the JVM and recording it, and only a holder
	// of the run's secret token ever waits here. It stays below the 60 s
	// the agent waits for its answer.
	processWait = 30 * time.Second
	// maxPending caps the connections that have not presented a known token
	// (a few KiB each). A connection beyond it evicts the oldest of them:
	// strangers' idle connections cannot keep a launched JVM, which sends
	// its hello right after connecting, out; one evicted under a flood
	// before its hello was read connects again.
	maxPending = 256
	// acceptPause is how long the accept loop waits after a failed accept
	// (out of file descriptors) before it tries again.
	acceptPause = 10 * time.Millisecond
)

// limits are a server's bounds on waits: helloTimeout and processWait,
// other ones only in tests.
type limits struct {
	hello   time.Duration // for a new connection's hello frame
	process time.Duration // for SetProcess, by a launched JVM's hello
}

// Server accepts JVM connections on a loopback port, authenticates them by
// token and delivers each connection's messages to the Run that owns the token.
type Server struct {
	ln net.Listener
	wg sync.WaitGroup

	mu    sync.Mutex
	runs  map[string]*Run
	conns map[net.Conn]struct{}
	// pending holds the connections that have not presented a known token,
	// oldest first; evicted those closed to make room whose handlers have
	// not returned yet.
	pending []net.Conn
	evicted map[net.Conn]struct{}
	closed  bool

	limits limits
}

// Event is one message from a JVM connection of a Run, or the end of that connection.
type Event struct {
	// Conn numbers the run's connections from 1 in the order they authenticated.
	Conn int
	// Message is the decoded message; the first one of a connection is its *Hello.
	// It is nil when Closed is set.
	Message Message
	// Closed reports that the connection ended; Err says why unless it ended cleanly.
	Closed bool
	Err    error
	// Refused, when set, says why a connection that presented the run's
	// token was refused (Conn and Message are then unset).
	Refused string
}

// Run is one registration on a Server: JVMs that present its Token are
// welcomed and their messages arrive on Events.
type Run struct {
	Token string

	server *Server
	events chan Event
	done   chan struct{}
	once   sync.Once

	// single runs accept one connection, from the process SetProcess names.
	single   bool
	pidKnown chan struct{}
	pidOnce  sync.Once
	pid      int

	mu      sync.Mutex
	next    int
	claimed bool
	conns   map[net.Conn]struct{}
	ids     map[int]net.Conn // the attached connections by number
	writing sync.Mutex       // one command written at a time
}

// NewServer listens on 127.0.0.1 on a free port and starts accepting connections.
func NewServer() (*Server, error) {
	return listen(limits{hello: helloTimeout, process: processWait})
}

// listen is NewServer with the given limits.
func listen(lim limits) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &Server{ln: ln, runs: map[string]*Run{}, conns: map[net.Conn]struct{}{}, evicted: map[net.Conn]struct{}{}, limits: lim}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Port returns the TCP port the server listens on.
func (s *Server) Port() int {
	return s.ln.Addr().(*net.TCPAddr).Port
}

// Register creates a Run with a fresh random token that any number of
// connections may present (the Surefire forks of one Maven build).
func (s *Server) Register() (*Run, error) {
	return s.register(false)
}

// RegisterProcess creates a Run for one launched JVM: it accepts a single
// connection, and only once SetProcess has named the process, from that
// process or a member of its process group where the platform can tell
// (Linux). Further hellos with its token are refused and reported on Events.
func (s *Server) RegisterProcess() (*Run, error) {
	return s.register(true)
}

func (s *Server) register(single bool) (*Run, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("generate token: %w", err)
	}
	r := &Run{
		Token:    hex.EncodeToString(b[:]),
		server:   s,
		events:   make(chan Event, 256),
		done:     make(chan struct{}),
		conns:    map[net.Conn]struct{}{},
		ids:      map[int]net.Conn{},
		single:   single,
		pidKnown: make(chan struct{}),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("register run: server closed")
	}
	s.runs[r.Token] = r
	return r, nil
}

// Close stops accepting, closes every run and connection and waits for
// the connection handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	runs := make([]*Run, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.Close()
	}
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// SetProcess names the process whose connection a RegisterProcess run
// accepts: the launched JVM, which leads its own process group.
func (r *Run) SetProcess(pid int) {
	r.pidOnce.Do(func() {
		r.pid = pid
		close(r.pidKnown)
	})
}

// Events returns the channel the run's messages arrive on.
func (r *Run) Events() <-chan Event {
	return r.events
}

// Close unregisters the run's token and closes its connections; later
// connections with the token are rejected and pending messages are dropped.
func (r *Run) Close() {
	r.once.Do(func() {
		r.server.mu.Lock()
		delete(r.server.runs, r.Token)
		r.server.mu.Unlock()
		close(r.done)
		r.mu.Lock()
		for c := range r.conns {
			c.Close()
		}
		r.mu.Unlock()
	})
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		s.mu.Lock()
		if err != nil && !s.closed {
			// Out of file descriptors, say: the listener still works.
			s.mu.Unlock()
			time.Sleep(acceptPause)
			continue
		}
		if s.closed {
			if conn != nil {
				conn.Close()
			}
			s.mu.Unlock()
			return
		}
		if !s.admit(conn) {
			s.mu.Unlock()
			conn.Close()
			continue
		}
		s.start(conn)
		s.mu.Unlock()
	}
}

// start serves an admitted connection in its own handler. The caller holds
// s.mu.
func (s *Server) start(conn net.Conn) {
	s.conns[conn] = struct{}{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.forget(conn)
		s.serve(conn)
	}()
}

// ServeConn serves a connection that reached the driver other than through
// the server's loopback port, as if the port had accepted it: a confined
// JVM's, which its supervisor relays from the JVM's own network namespace
// (the launcher's confinement). Such a connection has no TCP peer to check;
// only the JVM's namespace can reach it. It is closed when the server is.
func (s *Server) ServeConn(conn net.Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.admit(conn) {
		conn.Close()
		return errors.New("serve a relayed connection: the server is closed or full")
	}
	s.start(conn)
	return nil
}

// admit makes room for conn among the pending connections, evicting the
// oldest when they are full, and reports whether conn may wait for its
// handshake. It refuses conn only while the handlers of maxPending evicted
// connections have not returned, so pending handshakes stay bounded. The
// caller holds s.mu.
func (s *Server) admit(conn net.Conn) bool {
	if len(s.pending) >= maxPending {
		if len(s.evicted) >= maxPending {
			return false
		}
		oldest := s.pending[0]
		s.pending = slices.Delete(s.pending, 0, 1)
		s.evicted[oldest] = struct{}{}
		oldest.Close()
	}
	s.pending = append(s.pending, conn)
	return true
}

// vouch takes conn off the pending list once it presented a known token; it
// reports false when conn was evicted meanwhile.
func (s *Server) vouch(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.Index(s.pending, conn)
	if i < 0 {
		return false
	}
	s.pending = slices.Delete(s.pending, i, i+1)
	return true
}

// forget closes conn, whose handler returns, and drops it from the
// server's books.
func (s *Server) forget(conn net.Conn) {
	conn.Close()
	s.mu.Lock()
	delete(s.conns, conn)
	delete(s.evicted, conn)
	if i := slices.Index(s.pending, conn); i >= 0 {
		s.pending = slices.Delete(s.pending, i, i+1)
	}
	s.mu.Unlock()
}

// serve runs the handshake on conn and then forwards its messages to the run.
func (s *Server) serve(conn net.Conn) {
	run, hello := s.handshake(conn)
	if run == nil {
		return
	}
	id, ok := run.attach(conn)
	if !ok {
		return
	}
	defer run.detach(conn)
	if !run.deliver(Event{Conn: id, Message: hello}) {
		return
	}
	for {
		m, err := ReadMessage(conn)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			run.deliver(Event{Conn: id, Closed: true, Err: err})
			return
		}
		if m == nil {
			continue // unknown type
		}
		if !run.deliver(Event{Conn: id, Message: m}) {
			return
		}
	}
}

// handshake reads the hello and answers it; it returns the run on welcome.
// The hello must arrive within the hello limit (helloTimeout) and fit in
// MaxHelloSize.
func (s *Server) handshake(conn net.Conn) (*Run, *Hello) {
	deadline := time.Now().Add(s.limits.hello)
	if err := conn.SetReadDeadline(deadline); err != nil {
		return nil, nil
	}
	payload, err := readFrame(conn, MaxHelloSize)
	if err != nil {
		return nil, nil
	}
	m, err := Decode(payload)
	if err != nil {
		return nil, nil
	}
	hello, ok := m.(*Hello)
	if !ok {
		_ = WriteMessage(conn, &Reject{Reason: "expected a hello message first"})
		return nil, nil
	}
	s.mu.Lock()
	run := s.runs[hello.Token]
	s.mu.Unlock()
	switch {
	case run == nil:
		_ = WriteMessage(conn, &Reject{Reason: "unknown token"})
		return nil, nil
	case !s.vouch(conn):
		return nil, nil // evicted while its hello arrived
	case hello.Protocol != ProtocolVersion:
		_ = WriteMessage(conn, &Reject{Reason: fmt.Sprintf(
			"unsupported protocol version %d (driver speaks %d)", hello.Protocol, ProtocolVersion)})
		return nil, nil
	}
	if reason := run.claim(conn, hello); reason != "" {
		_ = WriteMessage(conn, &Reject{Reason: reason})
		run.notify(Event{Refused: fmt.Sprintf("refused a connection from %s (claimed pid %d): %s", conn.RemoteAddr(), hello.PID, reason)})
		return nil, nil
	}
	if err := WriteMessage(conn, &Welcome{Protocol: ProtocolVersion}); err != nil {
		return nil, nil
	}
	if err := conn.SetReadDeadline(time.Time{}); err != nil {
		return nil, nil
	}
	return run, hello
}

// claim decides whether conn may join a single-connection run: it must be
// the first, and come from the launched process. It returns the reason for
// a refusal, or "".
func (r *Run) claim(conn net.Conn, hello *Hello) string {
	if !r.single {
		return ""
	}
	wait := time.NewTimer(r.server.limits.process)
	defer wait.Stop()
	select {
	case <-r.pidKnown:
	case <-r.done:
		return "the run is over"
	case <-wait.C:
		return fmt.Sprintf("the driver did not record the launched process within %s", r.server.limits.process)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimed {
		return "another connection already presented this token"
	}
	if err := checkPeer(conn, r.pid, hello.PID); err != nil {
		return err.Error()
	}
	r.claimed = true
	return ""
}

// attach records conn as one of the run's connections and numbers it.
func (r *Run) attach(conn net.Conn) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.done:
		return 0, false
	default:
	}
	r.next++
	r.conns[conn] = struct{}{}
	r.ids[r.next] = conn
	return r.next, true
}

func (r *Run) detach(conn net.Conn) {
	r.mu.Lock()
	delete(r.conns, conn)
	for id, c := range r.ids {
		if c == conn {
			delete(r.ids, id)
		}
	}
	r.mu.Unlock()
}

// Send writes the command m to the run's connection numbered conn (see
// Event.Conn); it fails when that connection is gone.
func (r *Run) Send(conn int, m Message) error {
	r.mu.Lock()
	c := r.ids[conn]
	r.mu.Unlock()
	if c == nil {
		return fmt.Errorf("send %s: connection %d is closed", m.MessageType(), conn)
	}
	r.writing.Lock()
	defer r.writing.Unlock()
	if err := WriteMessage(c, m); err != nil {
		return fmt.Errorf("send %s: %w", m.MessageType(), err)
	}
	return nil
}

// deliver hands ev to the run's reader; it reports false once the run is closed.
func (r *Run) deliver(ev Event) bool {
	select {
	case <-r.done:
		return false
	default:
	}
	select {
	case r.events <- ev:
		return true
	case <-r.done:
		return false
	}
}

// notify hands ev to the run's reader unless its buffer is full.
func (r *Run) notify(ev Event) {
	select {
	case <-r.done:
	case r.events <- ev:
	default:
	}
}
