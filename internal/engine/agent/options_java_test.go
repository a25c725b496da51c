package agent_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"

	"github.com/flakyhq/flaky/internal/analysis/chaos"
	"github.com/flakyhq/flaky/internal/engine/agent"
	"github.com/flakyhq/flaky/internal/maven/mvn"
)

// parsed is what the agent jar prints with -Dflaky.agent.dump: its options
// as its own parsers read them (see Agent.java).
type parsed struct {
	Port       *string
	Token      *string
	Chaos      map[string]any
	State      map[string]any
	Invariants map[string]any
	Dataflow   bool
}

// dumpOptions runs the real agent jar attached with javaagent (the full
// -javaagent argument) and returns what it parsed, or its failure output.
func dumpOptions(t *testing.T, javaagent string) (parsed, string, bool) {
	t.Helper()
	cmd := exec.Command("java", "-Dflaky.agent.dump=true", javaagent, "-version")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return parsed{}, stderr.String(), false
	}
	var p parsed
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("the agent printed %q: %v", stdout.String(), err)
	}
	return p, "", true
}

// agentJar returns the embedded agent jar's path, skipping the test
// without a JVM (or under -short).
func agentJar(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts JVMs")
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on PATH")
	}
	jar, err := filepath.Abs(filepath.Join("jars", "flaky-agent.jar"))
	if err != nil {
		t.Fatal(err)
	}
	return jar
}

// awkward are list items, paths and patterns that the option syntax, the
// agent's trimming, Maven's argLine or the JVM's encoding could mangle.
var awkward = []string{
	"a,b", "c+d", "e=f", "100%", "%2C", " lead and trail ", `C:\work dir\target\classes`,
	"/tmp/é 日本/classes", "pkg.Outer$Inner", `q"uote'@x;y`, "tab\there", "**",
}

// TestOptionsRoundTrip renders Options covering every option with awkward
// values into a -javaagent argument, runs the real agent jar with it, and
// compares what the Java parsers read with what the Go side meant.
func TestOptionsRoundTrip(t *testing.T) {
	jar := agentJar(t)
	full := agent.Options{
		Port: 65535,
		Chaos: agent.ChaosOptions{
			Strategies:  []string{"RANDOM_MAX", "TIME_INCREMENT", "DATE_FIXED", "TIMEZONE", "SLEEP_DECREASE", "ITERATION_ORDER"},
			Roots:       awkward,
			Include:     []string{"com.acme.**", "fixture.chaos.*", "a$b"},
			Exclude:     awkward[:3],
			RandomLimit: 3,
			SleepLimit:  4,
			Explain:     true,
			Params: []agent.Param{
				{Key: "chaos.random", Value: "0.25"},
				{Key: "chaos.random.limit", Value: "99"}, // RandomLimit overrides it
				{Key: "chaos.time.increment", Value: "3000"},
				{Key: "chaos.time.granularity", Value: "7"},
				{Key: "chaos.time.slow", Value: "4"},
				{Key: "chaos.date", Value: "2030-01-02T03:04:05Z"},
				{Key: "chaos.date.margin", Value: "10"},
				{Key: "chaos.date.zone", Value: "Europe/Zurich"},
				{Key: "chaos.locale", Value: "de_CH"},
				{Key: "chaos.timezone", Value: "Asia/Kolkata"},
				{Key: "chaos.sleep", Value: "11"},
				{Key: "chaos.sleep.limit", Value: "98"}, // SleepLimit overrides it
				{Key: "chaos.concurrency", Value: "0.5"},
				{Key: "chaos.network", Value: "1"},
				{Key: "chaos.network.timeout", Value: "0.5"},
				{Key: "chaos.resolve", Value: "12"},
				{Key: "chaos.seed", Value: "-7"},
				{Key: "chaos.iteration.scope", Value: "all"},
				{Key: "chaos.iteration.sites", Value: "a.B#m:7+a.B#lambda$x$0:9"},
				{Key: "chaos.async.delay", Value: "13"},
				{Key: "chaos.async.limit", Value: "0"},
			},
		},
		State: agent.StateOptions{
			Before: []int{0, 12}, After: []int{3},
			Restore: `/tmp/re store+1,2=%.json`, Probe: "/tmp/日本 probe\\x.json",
			Include: awkward, Exclude: []string{"org.junit.**"},
			Depth: 5, Nodes: 100, Bytes: 4096,
		},
		Invariants: agent.InvariantOptions{
			On: true, Roots: awkward, Include: awkward[5:], Exclude: []string{"x.*"},
			Watch:  []string{"p.C$Inner.f", "p.C#reset", "a,b+c"},
			Points: 10, Samples: 2, Depth: 3,
		},
		Dataflow: true,
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name string
		opts agent.Options
		want parsed
	}{
		{"every option", full, parsed{
			Port: str("65535"),
			Chaos: map[string]any{
				"chaos": list(full.Chaos.Strategies...), "roots": list(awkward...), "include": list(full.Chaos.Include...), "exclude": list(awkward[:3]...),
				"random": "0.25", "random.limit": 3.0, "time.increment": 3000.0, "time.budget": 600.0, "time.granularity": 7.0, "time.slow": 4.0,
				"date": "2030-01-02T03:04:05Z", "date.margin": 10.0, "date.zone": "Europe/Zurich", "locale": "de-CH", "timezone": "Asia/Kolkata",
				"sleep": 11.0, "sleep.limit": 4.0, "concurrency": 0.5, "network": 1.0, "network.timeout": 0.5, "resolve": 12.0, "seed": -7.0, "iteration.scope": "all", "iteration.sites": list("a.B#m:7", "a.B#lambda$x$0:9"), "async.delay": 13.0, "async.limit": 0.0,
				"explain": true,
			},
			State: map[string]any{
				"state":   map[string]any{"all": false, "before": []any{0.0, 12.0}, "after": []any{3.0}},
				"restore": full.State.Restore, "probe": full.State.Probe,
				"include": list(awkward...), "exclude": list("org.junit.**"),
				"depth": 5.0, "nodes": 100.0, "bytes": 4096.0,
			},
			Invariants: map[string]any{
				"roots": list(awkward...), "include": list(awkward[5:]...), "exclude": list("x.*"),
				"watch": list(full.Invariants.Watch...), "points": 10.0, "samples": 2.0, "depth": 3.0,
			},
			Dataflow: true,
		}},
		{"port alone", agent.Options{Port: 1}, parsed{Port: str("1")}},
		{"nothing", agent.Options{}, parsed{}},
		{"capture everywhere, empty lists", agent.Options{
			Chaos: agent.ChaosOptions{Strategies: []string{"locale"}, Include: []string{}},
			State: agent.StateOptions{All: true, Include: []string{}},
		}, parsed{
			Chaos: subset(map[string]any{"chaos": list("LOCALE"), "roots": list(), "include": list(), "exclude": list(), "random.limit": 3.0, "sleep.limit": 3.0, "explain": false}),
			State: map[string]any{
				"state":   map[string]any{"all": true, "before": list(), "after": list()},
				"include": list(), "exclude": list(), "depth": 24.0, "nodes": 20000.0, "bytes": 1048576.0,
			},
		}},
		{"restore alone", agent.Options{State: agent.StateOptions{Restore: "/r/a b,c.json"}}, parsed{
			State: subset(map[string]any{"state": map[string]any{"all": false, "before": list(), "after": list()}, "restore": "/r/a b,c.json"}),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arg, err := tt.opts.JavaAgent(jar)
			if err != nil {
				t.Fatal(err)
			}
			got, out, ok := dumpOptions(t, arg)
			if !ok {
				t.Fatalf("the agent rejected %s:\n%s", arg, out)
			}
			compare(t, arg, got, tt.want)
		})
	}
}

// TestOptionsRejected checks that Encode refuses options the agent would
// not read as meant.
func TestOptionsRejected(t *testing.T) {
	for _, o := range []agent.Options{
		{Chaos: agent.ChaosOptions{Include: []string{"a"}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Roots: []string{""}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Params: []agent.Param{{Key: "chaos.date", Value: "a,b"}}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Params: []agent.Param{{Key: "chaos.roots", Value: "x"}}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Params: []agent.Param{{Key: "seed", Value: "1"}}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Params: []agent.Param{{Key: "chaos.seed", Value: " 1"}}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}, Params: []agent.Param{{Key: "chaos.seed", Value: "1"}, {Key: "chaos.seed", Value: "2"}}}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"SLEEP_INCREASE"}, SleepLimit: -1}},
		{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}, RandomLimit: -1}},
		{State: agent.StateOptions{All: true, Before: []int{1}}},
		{State: agent.StateOptions{Before: []int{-1}}},
		{State: agent.StateOptions{Include: []string{"a.**"}}},
		{Invariants: agent.InvariantOptions{Watch: []string{"p.C.f"}}},
		{Port: 70000},
	} {
		if enc, err := o.Encode(); err == nil {
			t.Errorf("Encode(%+v) = %q, want an error", o, enc)
		}
	}
	if _, err := (agent.Options{}).JavaAgent("/a=b/flaky-agent.jar"); err == nil {
		t.Error("JavaAgent accepted a jar path with '='")
	}
}

// TestOptionsWith checks that With joins sections and refuses to merge two
// of one kind.
func TestOptionsWith(t *testing.T) {
	chaosOpts := agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"LOCALE"}}}
	got, err := chaosOpts.With(agent.Options{Invariants: agent.InvariantOptions{On: true}, Dataflow: true})
	if err != nil {
		t.Fatal(err)
	}
	if enc, _ := got.Encode(); enc != "chaos=LOCALE,invariants=on,dataflow=true" {
		t.Errorf("With = %q", enc)
	}
	if _, err := chaosOpts.With(agent.Options{Chaos: agent.ChaosOptions{Strategies: []string{"RANDOM_MAX"}}}); err == nil {
		t.Error("With merged two sets of chaos options")
	}
	if _, err := (agent.Options{State: agent.StateOptions{All: true}}).With(agent.Options{State: agent.StateOptions{Probe: "p"}}); err == nil {
		t.Error("With merged two sets of state options")
	}
}

// TestMavenArgLineRoundTrip checks the Maven profile's agent argument: with
// no driver (empty port and token) the agent reads no connection, and with
// the token chaos.MavenCommand passes it reads the chaos options meant.
func TestMavenArgLineRoundTrip(t *testing.T) {
	jar := agentJar(t)
	settings := chaos.Settings{Roots: []string{"target/classes", "target/test classes"}, Include: []string{"a,b+c"}, Params: []string{"seed=5"}}
	strategies, err := chaos.Parse("RANDOM_MAX", "LOCALE")
	if err != nil {
		t.Fatal(err)
	}
	command, err := chaos.MavenCommand("", "order.txt", []string{"p.A#a"}, strategies, settings)
	if err != nil {
		t.Fatal(err)
	}
	args, err := shellquote.Split(command)
	if err != nil {
		t.Fatal(err)
	}
	var token string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-Dflaky.token="); ok {
			token = v
		}
	}
	if token == "" {
		t.Fatalf("no -Dflaky.token in %q", command)
	}
	empty := ""
	for _, tt := range []struct {
		name  string
		token string
		want  parsed
	}{
		{"no driver", "", parsed{Port: &empty, Token: &empty}},
		{"chaos through the token", token, parsed{Port: &empty, Token: &empty, Chaos: subset(map[string]any{
			"chaos": list("RANDOM_MAX", "LOCALE"), "roots": list("target/classes", "target/test classes"), "include": list("a,b+c"), "seed": 5.0,
		})}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Surefire splits its argLine at spaces: the agent's argument must stay one.
			arg := strings.NewReplacer(
				"${settings.localRepository}/dev/flaky/flaky-agent/${flaky.version}/flaky-agent-${flaky.version}.jar", jar,
				"${flaky.port}", "", "${flaky.token}", tt.token).Replace(mvn.AgentArgLine)
			if strings.ContainsAny(arg[len("-javaagent:"+jar):], " \t\"'") {
				t.Fatalf("the argLine's agent argument %q holds a space or a quote", arg)
			}
			got, out, ok := dumpOptions(t, arg)
			if !ok {
				t.Fatalf("the agent rejected %s:\n%s", arg, out)
			}
			compare(t, arg, got, tt.want)
		})
	}
}

// subsetKey marks a want map whose keys are checked alone (the rest are the
// agent's defaults).
const subsetKey = "\x00subset"

func subset(m map[string]any) map[string]any {
	m[subsetKey] = true
	return m
}

func list(items ...string) []any {
	out := make([]any, len(items))
	for i, s := range items {
		out[i] = s
	}
	return out
}

func compare(t *testing.T, arg string, got, want parsed) {
	t.Helper()
	if !reflect.DeepEqual(got.Port, want.Port) || !reflect.DeepEqual(got.Token, want.Token) || got.Dataflow != want.Dataflow {
		t.Errorf("%s: port %v, token %v, dataflow %v; want %v, %v, %v", arg, deref(got.Port), deref(got.Token), got.Dataflow, deref(want.Port), deref(want.Token), want.Dataflow)
	}
	for _, s := range []struct {
		name      string
		got, want map[string]any
	}{{"chaos", got.Chaos, want.Chaos}, {"state", got.State, want.State}, {"invariants", got.Invariants, want.Invariants}} {
		if (s.got == nil) != (s.want == nil) {
			t.Errorf("%s: %s options %v, want %v", arg, s.name, s.got, s.want)
			continue
		}
		only := s.want[subsetKey] == true
		for k, w := range s.want {
			if k == subsetKey {
				continue
			}
			if g, ok := s.got[k]; !ok || !reflect.DeepEqual(g, w) {
				t.Errorf("%s: %s %s = %#v, want %#v", arg, s.name, k, g, w)
			}
		}
		if !only {
			for k, g := range s.got {
				if _, ok := s.want[k]; !ok {
					t.Errorf("%s: %s %s = %#v, not expected", arg, s.name, k, g)
				}
			}
		}
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
