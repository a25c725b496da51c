// Package editor drives flaky's Java source editor (java/flaky-editor, built on
// JavaParser): one JVM that parses, inspects and edits Java sources and
// compiles them, answering JSON requests.
package editor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/flakyhq/flaky/internal/base/change"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Editor drives the Java source editor (java/flaky-editor): one JVM serving
// JSON requests, one per line, for the whole repair run. Every edit returns
// the whole new source; the characters outside the edit are the input's.
type Editor struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr strings.Builder
}

// prestarted holds the editors Prestart started, by java executable.
var prestarted sync.Map // string -> *warming

// warming is an editor Prestart started: ready once done is closed.
type warming struct {
	done chan struct{}
	e    *Editor
	err  error
}

// Prestart starts an editor JVM with the java executable given in the
// background and has it parse a small class (JavaParser's classes load at
// the first parse), for the next StartEditor with the same java to take.
// `flaky chaos`, whose analysis is short, starts it beside the analysis, so
// that its report's test method lines do not wait for it. A prestarted
// editor costs half a CPU-second even when the report names no test (then
// none would start), so the longer analyses (detect, verify) do without.
// No context ends it: an interrupted analysis still writes its report. One
// that is never taken exits when this process does (its input ends).
func Prestart(java string) {
	w := &warming{done: make(chan struct{})}
	if _, loaded := prestarted.LoadOrStore(java, w); loaded {
		return
	}
	go func() {
		defer close(w.done)
		if w.e, w.err = start(context.Background(), java); w.err == nil {
			_, w.err = w.e.Info("class Warm {}", "Warm")
		}
	}()
}

// StartEditor starts the editor JVM with the java executable given, or
// takes the one Prestart started for it (which ctx does not end).
func StartEditor(ctx context.Context, java string) (*Editor, error) {
	if v, ok := prestarted.LoadAndDelete(java); ok {
		w := v.(*warming)
		<-w.done
		if w.err == nil {
			return w.e, nil
		}
		if w.e != nil {
			w.e.Close()
		}
	}
	return start(ctx, java)
}

// Lend runs use with the editor JVM that Prestart started for the java
// executable given (waiting for it to be ready), or with one it starts when
// none was, and then keeps that editor for the next StartEditor, as if
// Prestart had started it: a short request early in an analysis does not
// take the editor that the report's test method lines need at its end. No
// context ends the editor, as with Prestart.
func Lend(java string, use func(*Editor) error) error {
	e, err := StartEditor(context.Background(), java)
	if err != nil {
		return err
	}
	err = use(e)
	w := &warming{done: make(chan struct{}), e: e}
	close(w.done)
	if _, loaded := prestarted.LoadOrStore(java, w); loaded {
		e.Close() // another editor is kept already
	}
	return err
}

// BindSite is a call site in the module's classes that binds a server or
// datagram socket to a port that is not provably ephemeral (0, or no
// address): two JVMs that run it at once may clash over the port.
type BindSite struct {
	Class  string `json:"class"`
	Method string `json:"method"`
	Line   int    `json:"line"` // 0 when the class has no line numbers
	Call   string `json:"call"` // the JDK method called: java.net.ServerSocket#bind
	Port   int    `json:"port"` // -1 when it is not a constant
}

// String describes the site for a note: where it is and what it binds.
func (b BindSite) String() string {
	port := "a port that is not a constant"
	if b.Port > 0 {
		port = fmt.Sprintf("port %d", b.Port)
	}
	return fmt.Sprintf("%s.%s (line %d) binds %s with %s", b.Class, b.Method, b.Line, port, b.Call)
}

// BindSites returns the call sites in the class directories dirs (missing
// ones are skipped) that bind a server or datagram socket to a port that
// is not provably ephemeral (see java/flaky-editor's BindSites).
func (e *Editor) BindSites(dirs []string) ([]BindSite, error) {
	var out struct {
		Sites []BindSite `json:"sites"`
	}
	if err := e.Call(map[string]any{"op": "bind-sites", "dirs": dirs}, &out); err != nil {
		return nil, fmt.Errorf("scan the classes for sockets bound to fixed ports: %w", err)
	}
	return out.Sites, nil
}

// start starts an editor JVM with the java executable given.
func start(ctx context.Context, java string) (*Editor, error) {
	jar, err := agent.ExtractEditor()
	if err != nil {
		return nil, err
	}
	e := &Editor{}
	// A short-lived tool: the client compiler and the serial collector
	// start it in two thirds of the time and half the CPU (Java 8 has both).
	e.cmd = exec.CommandContext(ctx, java, "-Xss8m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", jar)
	e.cmd.Stderr = &e.stderr
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start the source editor: %w", err)
	}
	out, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("start the source editor: %w", err)
	}
	e.stdout = bufio.NewReaderSize(out, 1<<20)
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the source editor: %w", err)
	}
	return e, nil
}

// Close ends the editor JVM.
func (e *Editor) Close() error {
	e.stdin.Close()
	return e.cmd.Wait()
}

// Call sends one request (an op of java/flaky-editor, see its Editor class)
// and decodes its answer into out.
func (e *Editor) Call(req map[string]any, out any) error {
	if src, ok := req["source"].(string); ok && !utf8.ValidString(src) {
		return errors.New("the source file is not UTF-8; flaky repair edits only UTF-8 sources")
	}
	data, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode editor request: %w", err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.stdin.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("source editor: %w (%s)", err, strings.TrimSpace(e.stderr.String()))
	}
	line, err := e.stdout.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("source editor ended: %w (%s)", err, strings.TrimSpace(e.stderr.String()))
	}
	var status struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &status); err != nil {
		return fmt.Errorf("source editor answer: %w", err)
	}
	if status.Error != "" {
		return &RefusedError{Op: fmt.Sprint(req["op"]), Message: status.Error}
	}
	if err := json.Unmarshal(line, out); err != nil {
		return fmt.Errorf("source editor answer: %w", err)
	}
	return nil
}

// RefusedError is the editor's answer to a request it could not carry out
// on the source it was given (a parse error, a class with no set-up or
// tear-down it knows how to add): the editor itself works on.
type RefusedError struct {
	Op      string // the request's op
	Message string // the editor's reason
}

func (e *RefusedError) Error() string {
	return "source editor: " + e.Op + ": " + e.Message
}

// ClassInfo describes a class of a source file.
type ClassInfo struct {
	Framework string       `json:"framework"` // "junit3" (extends a TestCase), "junit4", "jupiter", "testng" or ""
	Package   string       `json:"package"`
	Imports   []string     `json:"imports"` // as after "import": "static a.B.c", "a.b.*"
	Fields    []FieldInfo  `json:"fields"`
	Methods   []MethodInfo `json:"methods"`
}

// FieldInfo is one field declaration.
type FieldInfo struct {
	Names  []string `json:"names"`
	Text   string   `json:"text"`
	Static bool     `json:"static"`
	Final  bool     `json:"final"`
	Public bool     `json:"public"`
	// Private is declared private (neither Public nor Private: package
	// private or protected, visible in its package).
	Private bool   `json:"private"`
	Type    string `json:"type"` // the first variable's type as written: long, Map<String, Integer>, int[]
	// Initializers are the variables' initialisers as written, one per
	// name ("" for a variable without one).
	Initializers []string `json:"initializers"`
}

// Initializer is the initialiser of a variable of the declaration as
// written, "" when it has none.
func (f *FieldInfo) Initializer(name string) string {
	for i, n := range f.Names {
		if n == name && i < len(f.Initializers) {
			return f.Initializers[i]
		}
	}
	return ""
}

// MethodInfo is one method declaration.
type MethodInfo struct {
	Name        string   `json:"name"`
	Text        string   `json:"text"`
	Static      bool     `json:"static"`
	Public      bool     `json:"public"`
	Throws      bool     `json:"throws"`
	Annotations []string `json:"annotations"` // simple names
	Body        []string `json:"body"`        // its statements as written
	BeginLine   int      `json:"beginLine"`
	EndLine     int      `json:"endLine"`
}

// Method returns the first method with a name, if any.
func (c *ClassInfo) Method(name string) *MethodInfo {
	for i := range c.Methods {
		if c.Methods[i].Name == name {
			return &c.Methods[i]
		}
	}
	return nil
}

// Lifecycle returns the methods annotated with any of the annotations.
func (c *ClassInfo) Lifecycle(annotations ...string) []MethodInfo {
	var out []MethodInfo
	for _, m := range c.Methods {
		for _, a := range m.Annotations {
			if slices.Contains(annotations, a) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// Info describes class (Outer or Outer$Inner) of a source.
func (e *Editor) Info(source, class string) (*ClassInfo, error) {
	var out ClassInfo
	err := e.Call(map[string]any{"op": "info", "source": source, "class": class}, &out)
	return &out, err
}

// Code is code to add to a class: statements, and the members and imports
// of its origin, of which only those the statements use are added.
type Code struct {
	Statements []string
	Members    []string
	Imports    []string
	Throws     bool // a new method holding the statements declares throws Exception
}

// edited is an edit's answer.
type edited struct {
	Source   string   `json:"source"`
	Added    []string `json:"added"`
	Restored []string `json:"restored"`
	Changed  int      `json:"changed"`
}

// AddFixture adds code to the set-up (when "before") or tear-down ("after")
// of class, creating the method when the class has none.
func (e *Editor) AddFixture(source, class, when string, code Code) (string, error) {
	var out edited
	err := e.Call(map[string]any{"op": "add-fixture", "source": source, "class": class, "when": when,
		"statements": code.Statements, "members": code.Members, "imports": code.Imports, "throws": code.Throws}, &out)
	return out.Source, err
}

// InsertAtStart inserts code at the start of a method.
func (e *Editor) InsertAtStart(source, class, method string, code Code) (string, error) {
	var out edited
	err := e.Call(map[string]any{"op": "insert-at-start", "source": source, "class": class, "method": method,
		"statements": code.Statements, "members": code.Members, "imports": code.Imports}, &out)
	return out.Source, err
}

// ReplaceMethod replaces a method's body with that of text, keeping the
// method's modifiers, return type and annotations (stitching); it returns
// the new source and what the text had changed there.
func (e *Editor) ReplaceMethod(source, class, method, text string) (string, []string, error) {
	var out edited
	err := e.Call(map[string]any{"op": "replace-method", "source": source, "class": class, "method": method, "text": text}, &out)
	return out.Source, out.Restored, err
}

// AddMembers adds the member declarations class does not declare yet.
func (e *Editor) AddMembers(source, class string, members []string) (string, []string, error) {
	var out edited
	err := e.Call(map[string]any{"op": "add-members", "source": source, "class": class, "members": members}, &out)
	return out.Source, out.Added, err
}

// AddImports adds imports ("a.b.C", "static a.b.C.m") not present yet.
func (e *Editor) AddImports(source string, imports []string) (string, error) {
	var out edited
	err := e.Call(map[string]any{"op": "add-imports", "source": source, "imports": imports}, &out)
	return out.Source, err
}

// Template applies a template fix ("locale-root", "ordered-collection",
// "time-zone" or "seeded-random") at a line and says how many places it
// changed.
func (e *Editor) Template(source, op string, line int) (string, int, error) {
	var out edited
	err := e.Call(map[string]any{"op": op, "source": source, "line": line}, &out)
	return out.Source, out.Changed, err
}

// Member is one member declaration of an answer.
type Member struct {
	Kind string `json:"kind"` // "method" or "field"
	Name string `json:"name"`
	Text string `json:"text"`
}

// ParseMembers splits text holding method and field declarations into members.
func (e *Editor) ParseMembers(text string) ([]Member, error) {
	var out struct {
		Members []Member `json:"members"`
	}
	err := e.Call(map[string]any{"op": "parse-members", "text": text}, &out)
	return out.Members, err
}

// Compile runs javac with args in the editor's JVM; available is false on a
// JRE, which has no compiler.
func (e *Editor) Compile(args []string) (exit int, output string, available bool, err error) {
	var out struct {
		Exit        int    `json:"exit"`
		Output      string `json:"output"`
		Unavailable bool   `json:"unavailable"`
	}
	err = e.Call(map[string]any{"op": "compile", "args": args}, &out)
	return out.Exit, out.Output, !out.Unavailable, err
}

// Split returns the package of a source file and its members, those of
// nested types included (anonymous and local classes and lambdas are part
// of the member that declares them).
func (e *Editor) Split(source string) (string, []change.Member, error) {
	var out struct {
		Package string          `json:"package"`
		Members []change.Member `json:"members"`
	}
	err := e.Call(map[string]any{"op": "split", "source": source}, &out)
	return out.Package, out.Members, err
}

// Fact is one thing a source file's tests check or how they run, as the
// editor's test-meaning op reports it: Kind is "test", "assertion",
// "expected", "timeout", "rule", "import", "disabled", "assumption",
// "swallow", "return" or "assert-decl"; Where the class or method
// (Outer.Inner#name(int)); Key what a patch must keep the same (for an
// assertion, the conditions around it and its arguments' fingerprints);
// Text the fact as written, for messages.
type Fact struct {
	Kind  string `json:"kind"`
	Where string `json:"where"`
	Key   string `json:"key"`
	Text  string `json:"text"`
}

// TestMeaning returns the facts of a source file (see java/flaky-editor's
// Meaning), which a patch must keep: its tests, assertions, expected
// exceptions and timeouts, and what would weaken them if added.
func (e *Editor) TestMeaning(source string) ([]Fact, error) {
	var out struct {
		Facts []Fact `json:"facts"`
	}
	if err := e.Call(map[string]any{"op": "test-meaning", "source": source}, &out); err != nil {
		return nil, err
	}
	return out.Facts, nil
}
