package invariants

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/flakyhq/flaky/internal/base/safewrite"
	"github.com/flakyhq/flaky/internal/engine/agent"
)

// Daikon's file formats, declaration version 2: a .decls file declares each
// program point and its variables, a .dtrace file holds one record per
// sampled execution. Exit points are written as Chicory does, ":::EXIT1"
// with ppt-type subexit, from which Daikon builds the combined ":::EXIT";
// the reader maps them back. Variables "size(x[])" are left out: Daikon
// derives them from "x[]" itself.

// Merge returns the program points of all events, merged per point (for
// a whole run).
func Merge(events []agent.Invariants) []agent.TracePoint {
	return merge(events, func(string) bool { return true })
}

// WriteDaikon writes the points as DIR/NAME.decls and DIR/NAME.dtrace.
func WriteDaikon(dir, name string, points []agent.TracePoint) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("daikon output: %w", err)
	}
	var decls, dtrace strings.Builder
	decls.WriteString("decl-version 2.0\ninput-language java\nvar-comparability none\n")
	for _, p := range points {
		vars := daikonVars(p.Vars)
		ppt, typ := daikonPpt(p.Point)
		fmt.Fprintf(&decls, "\nppt %s\nppt-type %s\n", escapeName(ppt), typ)
		for _, v := range vars {
			writeDecl(&decls, v)
		}
		for _, s := range p.Samples {
			fmt.Fprintf(&dtrace, "%s\n", escapeName(ppt))
			for _, v := range vars {
				val, mod := daikonValue(v, s)
				fmt.Fprintf(&dtrace, "%s\n%s\n%d\n", escapeName(v.Name), val, mod)
			}
			dtrace.WriteString("\n")
		}
	}
	for ext, body := range map[string]string{".decls": decls.String(), ".dtrace": dtrace.String()} {
		if err := safewrite.Atomic(filepath.Join(dir, name+ext), []byte(body), 0o644); err != nil {
			return fmt.Errorf("daikon output: %w", err)
		}
	}
	return nil
}

func daikonVars(vars []agent.TraceVar) []agent.TraceVar {
	var out []agent.TraceVar
	for _, v := range vars {
		if !strings.HasPrefix(v.Name, "size(") {
			out = append(out, v)
		}
	}
	return out
}

// daikonPpt returns the point's name in Daikon's files and its ppt-type.
func daikonPpt(point string) (string, string) {
	if base, ok := strings.CutSuffix(point, ":::EXIT"); ok {
		return base + ":::EXIT1", "subexit"
	}
	if strings.HasSuffix(point, ":::ENTER") {
		return point, "enter"
	}
	return point, "point"
}

var repTypes = map[string]string{
	"int": "int", "double": "double", "boolean": "boolean", "string": "java.lang.String",
	"hashcode": "hashcode", "string[]": "java.lang.String[]",
}

var decTypes = map[string]string{
	"int": "int", "double": "double", "boolean": "boolean", "string": "java.lang.String",
	"hashcode": "java.lang.Object", "string[]": "java.lang.String[]",
}

// writeDecl declares one variable: a field (x.f) or a function of its
// enclosing variable (x.getClass().getName(), x.size()), an array (x[]),
// the return value, or a plain variable (a parameter, this, a static field
// pkg.Class.f).
func writeDecl(w *strings.Builder, v agent.TraceVar) {
	fmt.Fprintf(w, "variable %s\n", escapeName(v.Name))
	kind, enclosing, flags := "variable", "", ""
	switch {
	case v.Name == "return":
		kind = "return"
	case strings.HasSuffix(v.Name, "[]"):
		kind, enclosing = "array", strings.TrimSuffix(v.Name, "[]")
	case strings.HasSuffix(v.Name, ".getClass().getName()"):
		kind, enclosing, flags = "function getClass().getName()", strings.TrimSuffix(v.Name, ".getClass().getName()"), "synthetic classname"
	case strings.HasSuffix(v.Name, ".size()"):
		kind, enclosing, flags = "function size()", strings.TrimSuffix(v.Name, ".size()"), "synthetic"
	case strings.HasPrefix(v.Name, "this.") || strings.HasPrefix(v.Name, "return.") || strings.HasPrefix(v.Name, "arg") && strings.Contains(v.Name, "."):
		i := strings.LastIndex(v.Name, ".")
		kind, enclosing = "field "+v.Name[i+1:], v.Name[:i]
	}
	fmt.Fprintf(w, "  var-kind %s\n", kind)
	if enclosing != "" {
		fmt.Fprintf(w, "  enclosing-var %s\n", escapeName(enclosing))
	}
	if kind == "array" {
		w.WriteString("  array 1\n")
	}
	dec := decTypes[v.Kind]
	if strings.HasPrefix(kind, "function getClass()") {
		dec = "java.lang.Class" // Chicory's declared type for the class-name function
	}
	fmt.Fprintf(w, "  dec-type %s\n  rep-type %s\n", dec, repTypes[v.Kind])
	if flags != "" {
		fmt.Fprintf(w, "  flags %s\n", flags)
	}
}

// escapeName escapes the blanks and backslashes of a name, as the format
// asks (a ppt name holds ", " between parameter types).
func escapeName(s string) string {
	return strings.NewReplacer(`\`, `\\`, " ", `\_`).Replace(s)
}

func unescapeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '_' {
				b.WriteByte(' ')
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// daikonValue renders a sample's value of v and its modified flag: 1 for
// a value, 2 with "nonsensical" when the variable is missing.
func daikonValue(v agent.TraceVar, s map[string]json.RawMessage) (string, int) {
	raw, ok := s[v.Name]
	if !ok {
		return "nonsensical", 2
	}
	if string(raw) == "null" {
		return "null", 1
	}
	switch v.Kind {
	case "string":
		var str string
		if json.Unmarshal(raw, &str) == nil {
			return strconv.Quote(str), 1
		}
	case "string[]":
		var items []string
		if json.Unmarshal(raw, &items) == nil {
			q := make([]string, len(items))
			for i, it := range items {
				q[i] = strconv.Quote(it)
			}
			return "[" + strings.Join(q, " ") + "]", 1
		}
	case "int", "hashcode", "double":
		var f float64
		if json.Unmarshal(raw, &f) == nil && !math.IsNaN(f) {
			return string(raw), 1
		}
	case "boolean":
		return string(raw), 1
	}
	return "nonsensical", 2
}

// ReadDaikon reads DIR/NAME.decls and DIR/NAME.dtrace back into program
// points, checking them against the declaration-version-2 grammar: the
// header, known record keys, a var-kind, dec-type and rep-type for every
// variable, an enclosing variable declared before each field, function
// and array, and in the trace one record per execution listing exactly
// the point's variables in order, each with a value of its rep-type and a
// modified flag of 0, 1 or 2.
func ReadDaikon(dir, name string) ([]agent.TracePoint, error) {
	decls, err := os.Open(filepath.Join(dir, name+".decls"))
	if err != nil {
		return nil, fmt.Errorf("daikon: %w", err)
	}
	defer decls.Close()
	points, err := readDecls(decls)
	if err != nil {
		return nil, fmt.Errorf("daikon: %s.decls: %w", name, err)
	}
	trace, err := os.Open(filepath.Join(dir, name+".dtrace"))
	if err != nil {
		return nil, fmt.Errorf("daikon: %w", err)
	}
	defer trace.Close()
	if err := readTrace(trace, points); err != nil {
		return nil, fmt.Errorf("daikon: %s.dtrace: %w", name, err)
	}
	out := make([]agent.TracePoint, 0, len(points.order))
	for _, n := range points.order {
		p := points.byName[n]
		if base, ok := strings.CutSuffix(p.Point, ":::EXIT1"); ok {
			p.Point = base + ":::EXIT"
		}
		p.Calls = int64(len(p.Samples))
		out = append(out, *p)
	}
	return out, nil
}

type declared struct {
	order  []string
	byName map[string]*agent.TracePoint
}

var kindOfRep = map[string]string{}

func init() {
	for k, r := range repTypes {
		kindOfRep[r] = k
	}
}

// readDecls reads a Daikon declarations file (decl-version 2.0): its
// program points in order, each with its variables.
func readDecls(r io.Reader) (*declared, error) {
	dr := &declReader{d: &declared{byName: map[string]*agent.TracePoint{}}, seen: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
		if line == 1 && key != "decl-version" {
			return nil, fmt.Errorf("line 1: want decl-version 2.0, got %q", text)
		}
		if err := dr.entry(key, rest, text); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if dr.ppt != nil {
		if err := dr.endVar(); err != nil {
			return nil, err
		}
	}
	return dr.d, nil
}

// declReader is one readDecls in progress.
type declReader struct {
	d      *declared
	ppt    *agent.TracePoint // the program point being read
	v      *agent.TraceVar   // its variable being read, nil between them
	fields map[string]string // v's fields so far
	seen   map[string]bool   // ppt's variables read, by name
}

// entry reads the line text, whose first word is key and the rest rest.
func (dr *declReader) entry(key, rest, text string) error {
	indented := text[0] == ' ' || text[0] == '\t'
	switch {
	case key == "decl-version":
		if rest != "2.0" {
			return fmt.Errorf("decl-version %q, want 2.0", rest)
		}
	case key == "input-language" || key == "var-comparability":
	case key == "ppt" && !indented:
		if err := dr.endVar(); err != nil {
			return err
		}
		name := unescapeName(rest)
		if _, dup := dr.d.byName[name]; dup {
			return fmt.Errorf("ppt %s declared twice", name)
		}
		dr.ppt = &agent.TracePoint{Point: name}
		dr.d.byName[name] = dr.ppt
		dr.d.order = append(dr.d.order, name)
		dr.seen = map[string]bool{}
	case key == "ppt-type" && dr.ppt != nil && dr.v == nil:
		switch rest {
		case "point", "class", "object", "enter", "exit", "subexit":
		default:
			return fmt.Errorf("unknown ppt-type %q", rest)
		}
	case key == "variable" && dr.ppt != nil:
		if err := dr.endVar(); err != nil {
			return err
		}
		dr.v = &agent.TraceVar{Name: unescapeName(rest)}
		dr.fields = map[string]string{}
	case dr.v != nil && indented:
		switch key {
		case "var-kind", "enclosing-var", "dec-type", "rep-type", "flags", "comparability", "array", "reference-type", "lang-flags", "parent", "constant", "function-args", "min-value", "max-value", "min-length", "max-length", "valid-values":
			dr.fields[key] = unescapeName(rest)
		default:
			return fmt.Errorf("unknown variable key %q", key)
		}
	default:
		return fmt.Errorf("unexpected %q", text)
	}
	return nil
}

// endVar checks the variable being read and adds it to its program point.
func (dr *declReader) endVar() error {
	v, fields := dr.v, dr.fields
	if v == nil {
		return nil
	}
	for _, k := range []string{"var-kind", "dec-type", "rep-type"} {
		if fields[k] == "" {
			return fmt.Errorf("variable %s of %s: no %s", v.Name, dr.ppt.Point, k)
		}
	}
	kind, ok := kindOfRep[fields["rep-type"]]
	if !ok {
		return fmt.Errorf("variable %s: unknown rep-type %q", v.Name, fields["rep-type"])
	}
	vk := strings.Fields(fields["var-kind"])[0]
	switch vk {
	case "field", "function", "array":
		enc := fields["enclosing-var"]
		if enc == "" || !dr.seen[enc] {
			return fmt.Errorf("variable %s: var-kind %s needs an enclosing-var declared before it", v.Name, vk)
		}
	case "variable", "return":
	default:
		return fmt.Errorf("variable %s: unknown var-kind %q", v.Name, vk)
	}
	v.Kind = kind
	dr.ppt.Vars = append(dr.ppt.Vars, *v)
	dr.seen[v.Name] = true
	dr.v = nil
	return nil
}

func readTrace(r io.Reader, d *declared) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return strings.TrimRight(sc.Text(), "\r"), true
	}
	for {
		head, ok := next()
		if !ok {
			return sc.Err()
		}
		if strings.TrimSpace(head) == "" || strings.HasPrefix(head, "#") {
			continue
		}
		p, ok := d.byName[unescapeName(head)]
		if !ok {
			return fmt.Errorf("line %d: record for undeclared ppt %q", line, head)
		}
		sample := map[string]json.RawMessage{}
		for _, v := range p.Vars {
			name, ok1 := next()
			val, ok2 := next()
			mod, ok3 := next()
			if !ok1 || !ok2 || !ok3 {
				return fmt.Errorf("line %d: record of %s ends early", line, p.Point)
			}
			if unescapeName(name) != v.Name {
				return fmt.Errorf("line %d: variable %q where %s declares %q", line-2, name, p.Point, v.Name)
			}
			if mod != "0" && mod != "1" && mod != "2" {
				return fmt.Errorf("line %d: modified flag %q, want 0, 1 or 2", line, mod)
			}
			if val == "nonsensical" {
				if mod != "2" {
					return fmt.Errorf("line %d: nonsensical value with modified flag %s, want 2", line, mod)
				}
				continue
			}
			raw, err := parseValue(v.Kind, val)
			if err != nil {
				return fmt.Errorf("line %d: %s: %w", line-1, v.Name, err)
			}
			sample[v.Name] = raw
		}
		if end, ok := next(); ok && strings.TrimSpace(end) != "" {
			return fmt.Errorf("line %d: want a blank line after the record of %s", line, p.Point)
		}
		p.Samples = append(p.Samples, sample)
	}
}

// parseValue turns a trace value back into the agent's JSON form.
func parseValue(kind, val string) (json.RawMessage, error) {
	if val == "null" && kind != "int" && kind != "double" && kind != "boolean" {
		return json.RawMessage("null"), nil
	}
	switch kind {
	case "int", "hashcode":
		if _, err := strconv.ParseInt(val, 10, 64); err != nil {
			return nil, fmt.Errorf("not an int: %q", val)
		}
		return json.RawMessage(val), nil
	case "double":
		if _, err := strconv.ParseFloat(val, 64); err != nil {
			return nil, fmt.Errorf("not a double: %q", val)
		}
		return json.RawMessage(val), nil
	case "boolean":
		if val != "true" && val != "false" {
			return nil, fmt.Errorf("not a boolean: %q", val)
		}
		return json.RawMessage(val), nil
	case "string":
		s, err := strconv.Unquote(val)
		if err != nil {
			return nil, fmt.Errorf("not a quoted string: %q", val)
		}
		return json.Marshal(s)
	case "string[]":
		items, err := parseStrings(val)
		if err != nil {
			return nil, err
		}
		return json.Marshal(items)
	}
	return nil, fmt.Errorf("unknown kind %s", kind)
}

// parseStrings parses [“a” “b”], quoted strings separated by blanks.
func parseStrings(val string) ([]string, error) {
	inner, ok := strings.CutPrefix(val, "[")
	if inner, ok = strings.CutSuffix(inner, "]"); !ok {
		return nil, fmt.Errorf("not an array: %q", val)
	}
	items := []string{}
	for inner = strings.TrimSpace(inner); inner != ""; inner = strings.TrimSpace(inner) {
		q, err := strconv.QuotedPrefix(inner)
		if err != nil {
			return nil, fmt.Errorf("not an array of strings: %q", val)
		}
		s, _ := strconv.Unquote(q)
		items = append(items, s)
		inner = inner[len(q):]
	}
	return items, nil
}
