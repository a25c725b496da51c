package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ProtocolVersion is the protocol version this driver speaks (see PROTOCOL.md).
const ProtocolVersion = 1

// MaxFrameSize is the largest frame payload either side may send.
const MaxFrameSize = 16 << 20

// ErrFrameTooLarge is returned for a frame whose declared length exceeds MaxFrameSize.
var ErrFrameTooLarge = errors.New("frame too large")

// ErrEmptyFrame is returned for a frame whose declared length is zero.
var ErrEmptyFrame = errors.New("empty frame")

// MaxHelloSize is the largest first frame (the hello) the driver reads from a
// connection that has not authenticated yet.
const MaxHelloSize = 4 << 10

// ReadFrame reads one length-prefixed frame of at most MaxFrameSize bytes and
// returns its payload. It returns io.EOF when r ends cleanly before a frame starts.
func ReadFrame(r io.Reader) ([]byte, error) {
	return readFrame(r, MaxFrameSize)
}

// readFrame reads one frame of at most limit bytes. The payload buffer grows
// with the bytes that actually arrive, so a declared length costs nothing
// until the peer sends the data.
func readFrame(r io.Reader, limit uint32) ([]byte, error) {
	var header [4]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("read frame header: %w", err)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(header[:])
	switch {
	case n == 0:
		return nil, ErrEmptyFrame
	case n > limit:
		return nil, fmt.Errorf("%w: %d bytes (limit %d)", ErrFrameTooLarge, n, limit)
	}
	var payload bytes.Buffer
	if _, err := io.CopyN(&payload, r, int64(n)); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("read frame payload: %w", err)
	}
	return payload.Bytes(), nil
}

// WriteFrame writes payload as one length-prefixed frame.
func WriteFrame(w io.Writer, payload []byte) error {
	switch {
	case len(payload) == 0:
		return ErrEmptyFrame
	case len(payload) > MaxFrameSize:
		return fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, len(payload))
	}
	frame := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	copy(frame[4:], payload)
	if _, err := w.Write(frame); err != nil {
		return fmt.Errorf("write frame: %w", err)
	}
	return nil
}

// Message is one protocol message; MessageType gives its "type" member.
type Message interface {
	MessageType() string
}

// Hello is the JVM's first frame.
type Hello struct {
	Protocol     int    `json:"protocol"`
	Token        string `json:"token"`
	PID          int64  `json:"pid"`
	JavaVersion  string `json:"javaVersion"`
	AgentVersion string `json:"agentVersion"`
}

// Welcome accepts a JVM's hello.
type Welcome struct {
	Protocol int `json:"protocol"`
}

// Reject refuses a JVM's hello; the driver closes the connection after it.
type Reject struct {
	Reason string `json:"reason"`
}

// TestDescriptor is one test of a Tests listing. ClassFixtures tells
// whether the test's class has class-level fixtures (or a runner whose
// class-level behaviour is unknown).
type TestDescriptor struct {
	ID            string `json:"id"`
	Class         string `json:"class"`
	Method        string `json:"method"`
	Engine        string `json:"engine"`
	ClassFixtures bool   `json:"classFixtures"`
	// Dynamic marks a test template (@ParameterizedTest, @RepeatedTest) or
	// test factory: its invocations (ID[1], ID[2], ...) are known only
	// when it runs, and Surefire counts each as a test.
	Dynamic bool `json:"dynamic,omitempty"`
}

// Tests answers a list invocation of the runner.
type Tests struct {
	Tests []TestDescriptor `json:"tests"`
}

// RunStart says the runner starts executing an order of Count tests.
type RunStart struct {
	Count int `json:"count"`
}

// ClassStart says the class fixtures of a run of methods of Class are about
// to run: one class-fixture scope begins.
type ClassStart struct {
	Class string `json:"class"`
}

// ClassEnd says a run of methods of Class is over.
type ClassEnd struct {
	Class string `json:"class"`
}

// TestStart says a test starts; Index is its position in the order.
type TestStart struct {
	Test  string `json:"test"`
	Index int    `json:"index"`
}

// TestEnd says a test finished with Outcome.
type TestEnd struct {
	Test        string `json:"test"`
	Index       int    `json:"index"`
	Outcome     string `json:"outcome"`
	TimeMs      int64  `json:"timeMs"`
	FailureType string `json:"failureType,omitempty"`
	Message     string `json:"message,omitempty"`
	Stack       string `json:"stack,omitempty"`
}

// ClassError reports an @AfterClass/@AfterAll failure that belongs to no single test.
type ClassError struct {
	Class       string `json:"class"`
	FailureType string `json:"failureType,omitempty"`
	Message     string `json:"message,omitempty"`
	Stack       string `json:"stack,omitempty"`
}

// RunEnd says the order is done after Count test-end events.
type RunEnd struct {
	Count int `json:"count"`
}

// Handoff is the driver's command to a JVM running an order: another JVM
// will run the order's end, so stop before a class run at or after entry
// Index. The JVM answers with a HandoffAt.
type Handoff struct {
	Index int `json:"index"`
}

// HandoffAt answers a Handoff: the JVM runs no entry from At on and ends
// (run-end, exit status 0) before it; At is the first entry of a class run
// it had not begun, or -1 when it refused (no such class run was left).
type HandoffAt struct {
	At int `json:"at"`
}

// Exit is sent from a shutdown hook when the JVM exits before run-end.
type Exit struct {
	Status int    `json:"status"`
	Test   string `json:"test"`
	Class  string `json:"class"`
	Stack  string `json:"stack"`
}

// Log is a runner or agent diagnostic.
type Log struct {
	Level   string `json:"level"`
	Message string `json:"message"`
}

// Perturbation says a perturbed call site (API perturbation, flaky chaos) was
// hit for the first time during Test; Test is "pkg.Class" for call sites
// hit in a class's fixtures or static initialiser, empty outside any test.
type Perturbation struct {
	Test     string `json:"test"`
	Strategy string `json:"strategy"` // e.g. RANDOM_MAX
	Group    string `json:"group"`    // e.g. RANDOM
	API      string `json:"api"`      // e.g. java.util.Random#nextInt(int)
	Class    string `json:"class"`    // the project class that made the call
	Method   string `json:"method"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	// Original and Perturbed are set only with chaos.explain=true, which
	// sends one event per perturbed call: the value (or argument) the API
	// would have given and the one the program got.
	Original  string `json:"original,omitempty"`
	Perturbed string `json:"perturbed,omitempty"`
}

// State carries captured shared state (agent option state=true): the roots whose
// fingerprint changed since the JVM's previous state event, at a test
// boundary (Point "before" or "after" the test at Index) or right after a
// class's static initialiser (Point "init", Index -1, Test the running test).
// A large capture is split over several events; Last marks its final one.
type State struct {
	Point string      `json:"point"`
	Test  string      `json:"test"`
	Index int         `json:"index"`
	Roots []StateRoot `json:"roots"`
	Last  bool        `json:"last"`
}

// StateRoot is one captured root: a static field (pkg.Class.field), a
// system property, a JDK default or a file. Tree is its canonical JSON
// tree, FP the tree's fingerprint, Cut the first bound its walk reached
// (depth, nodes, bytes). Absent says a property or file is back at the
// value it had when the JVM started.
type StateRoot struct {
	Kind   string          `json:"kind"`
	Root   string          `json:"root"`
	FP     string          `json:"fp,omitempty"`
	Tree   json.RawMessage `json:"tree,omitempty"`
	Cut    string          `json:"cut,omitempty"`
	Absent bool            `json:"absent,omitempty"`
}

// Invariants carries the invariant tracer's sample of one test,
// sent right after its test-end: per program point of the project's
// methods, the variables as Daikon would declare them and a bounded sample
// of their values. Dropped counts the executions of points beyond the
// points bound.
type Invariants struct {
	Test    string       `json:"test"`
	Index   int          `json:"index"`
	Points  []TracePoint `json:"points"`
	Dropped int          `json:"dropped"`
	// Changes are the traced methods during which a watched value
	// (invariants.watch) changed, with the value before and after.
	Changes []WatchChange `json:"changes,omitempty"`
}

// WatchChange is a traced method during which a watched static field or
// static query method's value changed: Before and After are its variables
// as a program point's sample holds them (the field by its name, the
// method's value as "return"), Count how often that change happened.
type WatchChange struct {
	Watch  string `json:"watch"`
	Method string `json:"method"`
	// Static says whether Method is a static method.
	Static bool `json:"static"`
	// Arguments are the call's arguments as Java expressions (literals,
	// null, enum constants; "" for an object none writes).
	Arguments []string                   `json:"arguments"`
	Test      string                     `json:"test"`
	Before    map[string]json.RawMessage `json:"before"`
	After     map[string]json.RawMessage `json:"after"`
	Count     int                        `json:"count"`
}

// TracePoint is one program point ("pkg.C.m(int):::ENTER" or ":::EXIT"):
// how often it ran during the test, its variables and the sampled
// executions. In a sample a variable that is missing is nonsensical there
// (Daikon's term, e.g. the size of a null array); null means null.
type TracePoint struct {
	Point   string                       `json:"point"`
	Calls   int64                        `json:"calls"`
	Vars    []TraceVar                   `json:"vars"`
	Samples []map[string]json.RawMessage `json:"samples"`
}

// TraceVar is a program point's variable and its representation kind:
// int, double, boolean, string, hashcode (a reference) or string[].
type TraceVar struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Dataflow is one test's data dependencies (PraDeT): the roots it read
// that an earlier test of the JVM wrote last (Reads, with that writer), all
// the roots it read (Touched), those of them it read before it wrote them
// itself (Exposed: what an earlier test can have left for it; nil from older
// agents), the roots it wrote (Writes) and the project classes whose code ran
// on its behalf (Classes, binary names). Sent once per test, right after its
// test-end, when the agent option dataflow=true is set.
type Dataflow struct {
	Test    string         `json:"test"`
	Index   int            `json:"index"`
	Reads   []DataflowRead `json:"reads"`
	Touched []DataflowRoot `json:"touched"`
	Exposed []DataflowRoot `json:"exposed,omitempty"`
	Writes  []DataflowRoot `json:"writes"`
	Classes []string       `json:"classes,omitempty"`
	// Methods are the project methods that ran on the test's behalf, as
	// Class#name (binary class names, <init> for constructors; an
	// anonymous or local class's code counts as its declaring method's, a
	// lambda's as its enclosing method's); nil from older agents.
	Methods []string `json:"methods,omitempty"`
}

// DataflowRoot names a root a test read or wrote and its kind
// (static-field or system-property).
type DataflowRoot struct {
	Root string `json:"root"`
	Kind string `json:"kind"`
}

// DataflowRead is a read of a root (a static field pkg.Class.field, or a
// system property) last written by another test, Writer.
type DataflowRead struct {
	Root   string `json:"root"`
	Kind   string `json:"kind"`
	Writer string `json:"writer"`
}

// MessageType implements Message.
func (*Dataflow) MessageType() string { return "dataflow" }

// MessageType implements Message.
func (*Hello) MessageType() string { return "hello" }

// MessageType implements Message.
func (*Welcome) MessageType() string { return "welcome" }

// MessageType implements Message.
func (*Reject) MessageType() string { return "reject" }

// MessageType implements Message.
func (*Tests) MessageType() string { return "tests" }

// MessageType implements Message.
func (*RunStart) MessageType() string { return "run-start" }

// MessageType implements Message.
func (*ClassStart) MessageType() string { return "class-start" }

// MessageType implements Message.
func (*ClassEnd) MessageType() string { return "class-end" }

// MessageType implements Message.
func (*TestStart) MessageType() string { return "test-start" }

// MessageType implements Message.
func (*TestEnd) MessageType() string { return "test-end" }

// MessageType implements Message.
func (*ClassError) MessageType() string { return "class-error" }

// MessageType implements Message.
func (*RunEnd) MessageType() string { return "run-end" }

// MessageType implements Message.
func (*Handoff) MessageType() string { return "handoff" }

// MessageType implements Message.
func (*HandoffAt) MessageType() string { return "handoff-at" }

// MessageType implements Message.
func (*Exit) MessageType() string { return "exit" }

// MessageType implements Message.
func (*Log) MessageType() string { return "log" }

// MessageType implements Message.
func (*Perturbation) MessageType() string { return "perturbation" }

// MessageType implements Message.
func (*State) MessageType() string { return "state" }

// MessageType implements Message.
func (*Invariants) MessageType() string { return "invariants" }

var messageTypes = map[string]func() Message{
	"hello":        func() Message { return new(Hello) },
	"welcome":      func() Message { return new(Welcome) },
	"reject":       func() Message { return new(Reject) },
	"tests":        func() Message { return new(Tests) },
	"run-start":    func() Message { return new(RunStart) },
	"class-start":  func() Message { return new(ClassStart) },
	"class-end":    func() Message { return new(ClassEnd) },
	"test-start":   func() Message { return new(TestStart) },
	"test-end":     func() Message { return new(TestEnd) },
	"class-error":  func() Message { return new(ClassError) },
	"run-end":      func() Message { return new(RunEnd) },
	"handoff":      func() Message { return new(Handoff) },
	"handoff-at":   func() Message { return new(HandoffAt) },
	"exit":         func() Message { return new(Exit) },
	"log":          func() Message { return new(Log) },
	"perturbation": func() Message { return new(Perturbation) },
	"state":        func() Message { return new(State) },
	"invariants":   func() Message { return new(Invariants) },
	"dataflow":     func() Message { return new(Dataflow) },
}

// Encode returns the JSON object for m with its "type" member set.
func Encode(m Message) ([]byte, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return nil, fmt.Errorf("encode %s: %w", m.MessageType(), err)
	}
	typ, _ := json.Marshal(m.MessageType())
	fields["type"] = typ
	return json.Marshal(fields)
}

// Decode parses one frame payload. It returns a nil Message and no error for
// a well-formed object of an unknown type, which readers ignore.
func Decode(payload []byte) (Message, error) {
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(payload, &head); err != nil {
		return nil, fmt.Errorf("decode message: %w", err)
	}
	if head.Type == nil {
		return nil, errors.New(`decode message: no "type" member`)
	}
	newMessage, ok := messageTypes[*head.Type]
	if !ok {
		return nil, nil
	}
	m := newMessage()
	if err := json.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("decode %s: %w", *head.Type, err)
	}
	return m, nil
}

// ReadMessage reads and decodes one frame; see Decode for unknown types.
func ReadMessage(r io.Reader) (Message, error) {
	payload, err := ReadFrame(r)
	if err != nil {
		return nil, err
	}
	return Decode(payload)
}

// WriteMessage encodes m and writes it as one frame.
func WriteMessage(w io.Writer, m Message) error {
	payload, err := Encode(m)
	if err != nil {
		return err
	}
	return WriteFrame(w, payload)
}

// listItemEscaper escapes the characters that separate agent options (',')
// and the items of list options ('+'), and the escape character itself.
var listItemEscaper = strings.NewReplacer("%", "%25", ",", "%2C", "+", "%2B")

// EscapeListItem escapes one item of a list agent option (a path or a
// pattern) so that it survives the option syntax; the agent decodes %XX.
func EscapeListItem(item string) string {
	return listItemEscaper.Replace(item)
}
