package agent

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Options are the options of one test JVM's agent: what the -javaagent
// argument carries after the jar (see PROTOCOL.md). A zero section asks for
// nothing; With combines the sections that several analyses ask for in one
// run. Encode is the only place that writes the agent's option syntax.
type Options struct {
	// Port is the driver's loopback port; 0 leaves the agent unconnected.
	// The launcher sets it. The token never travels here: the command line
	// is readable by every local user, so it goes in the JVM's environment
	// (TokenEnv).
	Port int
	// Chaos perturbs nondeterministic JDK APIs.
	Chaos ChaosOptions
	// State captures, restores or probes the JVM's state.
	State StateOptions
	// Invariants traces the values at the project's program points.
	Invariants InvariantOptions
	// Dataflow records the data dependencies between tests (dataflow=true).
	Dataflow bool
}

// ChaosOptions are the API perturbation options; they are off without Strategies.
type ChaosOptions struct {
	// Strategies are the ids of the strategies to enable (chaos), at most
	// one per group.
	Strategies []string
	// Roots are class directories: exactly the classes under them are
	// instrumented (chaos.roots). Relative paths resolve against the test
	// JVM's working directory.
	Roots []string
	// Include and Exclude are class-name patterns (chaos.include,
	// chaos.exclude): fixture.chaos.*, com.acme.**.
	Include, Exclude []string
	// RandomLimit makes RANDOM_MAX return extremes only this many times per
	// call site and test (chaos.random.limit); 0 leaves the agent's
	// default, 3. It overrides a parameter of the same key.
	RandomLimit int
	// SleepLimit makes SLEEP_INCREASE lengthen only this many sleeps per
	// call site and JVM (chaos.sleep.limit); later sleeps there sleep their
	// real duration. 0 leaves the agent's default, 3. It overrides a
	// parameter of the same key.
	SleepLimit int
	// Explain sends a perturbation event for every perturbed call
	// (chaos.explain). It overrides a parameter of the same key.
	Explain bool
	// Params tune the strategies: further chaos.* options
	// (chaos.time.increment, chaos.seed, ...) with the value as the agent
	// parses it.
	Params []Param
}

// Param is one strategy parameter of ChaosOptions.
type Param struct {
	Key   string // with its chaos. prefix
	Value string
}

// StateOptions are the state capture options; they are off without All, a capture
// point, Restore or Probe.
type StateOptions struct {
	// All captures before and after every test (state=all).
	All bool
	// Before and After are the order positions to capture right before and
	// right after (state=before:N+after:N).
	Before, After []int
	// Restore is a file naming the roots to set back before a test
	// (state.restore).
	Restore string
	// Probe is a file with the reset candidates to check (state.probe).
	Probe string
	// Include and Exclude are class-name patterns selecting whose static
	// fields are walked (state.include, state.exclude).
	Include, Exclude []string
	// Depth, Nodes and Bytes bound the walk below one root (state.depth,
	// state.nodes, state.bytes); 0 leaves the agent's default.
	Depth, Nodes, Bytes int
}

// InvariantOptions are the invariant tracer's options; they are off without On.
type InvariantOptions struct {
	// On enables the tracer (invariants=on).
	On bool
	// Roots, Include and Exclude select the traced classes as ChaosOptions'
	// fields of those names select the instrumented ones.
	Roots, Include, Exclude []string
	// Watch are watched values (invariants.watch): static fields pkg.C.f
	// and static no-argument methods pkg.C#m.
	Watch []string
	// Points, Samples and Depth bound the trace (invariants.points,
	// invariants.samples, invariants.depth); 0 leaves the agent's default.
	Points, Samples, Depth int
}

// With returns o with p's sections added. It fails when both set the same
// section, or both a port: the agent takes each option once, so two
// analyses cannot both tune one section of one run.
func (o Options) With(p Options) (Options, error) {
	both := func(a, b any) bool { return !reflect.ValueOf(a).IsZero() && !reflect.ValueOf(b).IsZero() }
	switch {
	case both(o.Port, p.Port):
		return o, errors.New("agent options: two ports")
	case both(o.Chaos, p.Chaos):
		return o, errors.New("agent options: two sets of chaos options")
	case both(o.State, p.State):
		return o, errors.New("agent options: two sets of state options")
	case both(o.Invariants, p.Invariants):
		return o, errors.New("agent options: two sets of invariants options")
	}
	if p.Port != 0 {
		o.Port = p.Port
	}
	if !reflect.ValueOf(p.Chaos).IsZero() {
		o.Chaos = p.Chaos
	}
	if !reflect.ValueOf(p.State).IsZero() {
		o.State = p.State
	}
	if !reflect.ValueOf(p.Invariants).IsZero() {
		o.Invariants = p.Invariants
	}
	o.Dataflow = o.Dataflow || p.Dataflow
	return o, nil
}

// JavaAgent returns the JVM argument that attaches the agent jar with o.
// The JVM ends the jar path at its first '=', so jar must hold none.
func (o Options) JavaAgent(jar string) (string, error) {
	if strings.Contains(jar, "=") {
		return "", fmt.Errorf("agent jar %s: -javaagent cannot take a path with '='", jar)
	}
	enc, err := o.Encode()
	if err != nil {
		return "", err
	}
	if enc == "" {
		return "-javaagent:" + jar, nil
	}
	return "-javaagent:" + jar + "=" + enc, nil
}

// Encode returns o as the agent's option string: comma-separated key=value
// pairs, lists joined with '+', list items, paths and patterns escaped (see
// escapeItem). It fails on options the agent would read differently from
// what they say.
func (o Options) Encode() (string, error) {
	var e encoder
	if o.Port < 0 || o.Port > 65535 {
		return "", fmt.Errorf("port %d out of range", o.Port)
	}
	if o.Port != 0 {
		e.add("port", strconv.Itoa(o.Port))
	}
	o.Chaos.encode(&e)
	o.State.encode(&e)
	o.Invariants.encode(&e)
	if o.Dataflow {
		e.add("dataflow", "true")
	}
	if e.err != nil {
		return "", e.err
	}
	return strings.Join(e.pairs, ","), nil
}

// chaosKeys are the chaos options that Chaos's fields set.
var chaosKeys = map[string]bool{"chaos": true, "chaos.roots": true, "chaos.include": true, "chaos.exclude": true}

// Perturbs reports whether c turns a strategy on: chaos options are off
// without Strategies.
func (c ChaosOptions) Perturbs() bool {
	return len(c.Strategies) > 0
}

func (c ChaosOptions) encode(e *encoder) {
	if !c.Perturbs() {
		if !reflect.ValueOf(c).IsZero() {
			e.fail(errors.New("chaos options without a strategy"))
		}
		return
	}
	e.list("chaos", c.Strategies, true)
	e.list("chaos.roots", c.Roots, false)
	e.list("chaos.include", c.Include, false)
	e.list("chaos.exclude", c.Exclude, false)
	overridden := map[string]bool{}
	for _, l := range []struct {
		key string
		n   int
	}{{"chaos.random.limit", c.RandomLimit}, {"chaos.sleep.limit", c.SleepLimit}} {
		if l.n < 0 {
			e.fail(fmt.Errorf("%s %d is negative", l.key, l.n))
		} else if l.n > 0 {
			overridden[l.key] = true
		}
	}
	if c.Explain {
		overridden["chaos.explain"] = true
	}
	seen := map[string]bool{}
	for _, p := range c.Params {
		switch {
		case !strings.HasPrefix(p.Key, "chaos.") || !validKey(p.Key):
			e.fail(fmt.Errorf("strategy parameter %q: want a chaos.* key of letters, digits and dots", p.Key))
		case chaosKeys[p.Key]:
			e.fail(fmt.Errorf("strategy parameter %s: set by the chaos options themselves", p.Key))
		case seen[p.Key]:
			e.fail(fmt.Errorf("strategy parameter %s given twice", p.Key))
		case overridden[p.Key]:
		default:
			e.value(p.Key, p.Value)
		}
		seen[p.Key] = true
	}
	if c.RandomLimit > 0 {
		e.add("chaos.random.limit", strconv.Itoa(c.RandomLimit))
	}
	if c.SleepLimit > 0 {
		e.add("chaos.sleep.limit", strconv.Itoa(c.SleepLimit))
	}
	if c.Explain {
		e.add("chaos.explain", "true")
	}
}

func (s StateOptions) encode(e *encoder) {
	var points []string
	for _, n := range s.Before {
		points = append(points, "before:"+strconv.Itoa(n))
	}
	for _, n := range s.After {
		points = append(points, "after:"+strconv.Itoa(n))
	}
	negative := func(n int) bool { return n < 0 }
	if slices.ContainsFunc(s.Before, negative) || slices.ContainsFunc(s.After, negative) {
		e.fail(errors.New("a state capture point at a negative position"))
	}
	switch {
	case s.All && len(points) > 0:
		e.fail(errors.New("state capture at every test and at points"))
	case !s.All && len(points) == 0 && s.Restore == "" && s.Probe == "":
		if !reflect.ValueOf(s).IsZero() {
			e.fail(errors.New("state options without a capture point, restore or probe"))
		}
		return
	case s.All:
		e.add("state", "all")
	case len(points) > 0:
		e.add("state", strings.Join(points, "+"))
	}
	if s.Restore != "" {
		e.add("state.restore", escapeItem(s.Restore))
	}
	if s.Probe != "" {
		e.add("state.probe", escapeItem(s.Probe))
	}
	e.list("state.include", s.Include, false)
	e.list("state.exclude", s.Exclude, false)
	e.bound("state.depth", s.Depth)
	e.bound("state.nodes", s.Nodes)
	e.bound("state.bytes", s.Bytes)
}

func (v InvariantOptions) encode(e *encoder) {
	if !v.On {
		if !reflect.ValueOf(v).IsZero() {
			e.fail(errors.New("invariants options without On"))
		}
		return
	}
	e.add("invariants", "on")
	e.list("invariants.roots", v.Roots, false)
	e.list("invariants.include", v.Include, false)
	e.list("invariants.exclude", v.Exclude, false)
	e.list("invariants.watch", v.Watch, false)
	e.bound("invariants.points", v.Points)
	e.bound("invariants.samples", v.Samples)
	e.bound("invariants.depth", v.Depth)
}

// encoder collects key=value pairs and the first error.
type encoder struct {
	pairs []string
	err   error
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// add appends a pair whose value needs no escaping.
func (e *encoder) add(key, value string) {
	e.pairs = append(e.pairs, key+"="+value)
}

// value appends a pair whose value the agent reads as it is (a number, a
// date, a zone): it can hold no comma and no surrounding space, which the
// agent would split at or trim.
func (e *encoder) value(key, value string) {
	switch {
	case value == "":
		e.fail(fmt.Errorf("%s: an empty value", key))
	case strings.ContainsAny(value, ","):
		e.fail(fmt.Errorf("%s=%s: the value cannot hold a comma", key, value))
	case strings.TrimSpace(value) != value:
		e.fail(fmt.Errorf("%s=%q: the value cannot start or end with a space", key, value))
	default:
		e.add(key, value)
	}
}

// list appends a '+'-separated list; empty lists are left out, unless
// required. The agent drops empty items, so none may be empty.
func (e *encoder) list(key string, items []string, required bool) {
	if len(items) == 0 {
		if required {
			e.fail(fmt.Errorf("%s: an empty list", key))
		}
		return
	}
	escaped := make([]string, len(items))
	for i, it := range items {
		if it == "" {
			e.fail(fmt.Errorf("%s: an empty value cannot be passed to the agent", key))
		}
		escaped[i] = escapeItem(it)
	}
	e.add(key, strings.Join(escaped, "+"))
}

// bound appends a positive number; 0 leaves the option out.
func (e *encoder) bound(key string, n int) {
	if n < 0 {
		e.fail(fmt.Errorf("%s %d is negative", key, n))
	} else if n > 0 {
		e.add(key, strconv.Itoa(n))
	}
}

// validKey reports whether an option key holds only letters, digits and
// dots.
func validKey(k string) bool {
	for _, r := range k {
		if !(r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return k != ""
}

// escapeItem escapes a list item, path or pattern as %XX, byte by byte (the
// agent decodes UTF-8), keeping only letters, digits and -._~/*:#. So the
// option string holds no ',' (which separates options), '+' (list items),
// '%', space (the agent trims items; Surefire splits its argLine at spaces),
// quote, '$' or '@' (which Maven and Surefire substitute in an argLine), and
// no non-ASCII byte, whatever the JVM's encoding.
func escapeItem(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~/*:#", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
