package repair

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRestores turns polluted states, as the root-cause analysis records
// them on a finding, into direct restores.
func TestRestores(t *testing.T) {
	tests := []struct {
		name  string
		state State
		stmt  string
		why   string
	}{
		{"property absent", State{Kind: "system-property", Root: "fixture.mode", Passing: "", Failing: "fast", Confirmed: true}, `System.clearProperty("fixture.mode");`, ""},
		{"property null", State{Kind: "system-property", Root: "a", Passing: "null", Failing: "b"}, `System.clearProperty("a");`, ""},
		{"property value", State{Kind: "system-property", Root: "user.x", Passing: "a \"q\"\\\n", Failing: "b"}, `System.setProperty("user.x", "a \"q\"\\\n");`, ""},
		{"locale", State{Kind: "jdk-default", Root: "java.util.Locale#default", Passing: "en_US", Failing: "tr_TR"}, `java.util.Locale.setDefault(java.util.Locale.forLanguageTag("en-US"));`, ""},
		{"time zone", State{Kind: "jdk-default", Root: "java.util.TimeZone#default", Passing: "UTC", Failing: "Asia/Tokyo"}, `java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone("UTC"));`, ""},
		{"new file", State{Kind: "file", Root: "/tmp/x y.lock", Passing: "absent", Failing: "exists"}, `new java.io.File("/tmp/x y.lock").delete();`, ""},
		{"changed file", State{Kind: "file", Root: "data.txt", Passing: "abc", Failing: "abd"}, "", "file data.txt existed before: its content cannot be restored"},
		{"charset", State{Kind: "jdk-default", Root: "java.nio.charset.Charset#defaultCharset", Passing: "UTF-8"}, "", "JDK default java.nio.charset.Charset#defaultCharset: no direct restore known"},
		{"static field (reset-method search)", State{Kind: "static-field", Root: "fixture.Ids.last", Passing: "0", Failing: "1"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmts, why := restores([]State{tt.state})
			if want := []string{tt.stmt}; tt.stmt == "" && len(stmts) != 0 || tt.stmt != "" && !slices.Equal(stmts, want) {
				t.Errorf("statements %q, want %q", stmts, tt.stmt)
			}
			if why != tt.why {
				t.Errorf("why %q, want %q", why, tt.why)
			}
		})
	}
}

// TestArgValues: the passing value first when it fits the parameter type.
func TestArgValues(t *testing.T) {
	tests := []struct {
		typ, passing string
		want         []string
	}{
		{"boolean", "false", []string{"false", "true"}},
		{"boolean", "true", []string{"true", "false"}},
		{"int", "3", []string{"3", "0"}},
		{"long", "7", []string{"7L", "0"}},
		{"String", "default", []string{`"default"`, "null"}},
		{"String", "null", []string{"null", `""`}},
		{"java.util.Map<String, String>", "{}", []string{"null"}},
	}
	for _, tt := range tests {
		if got := argValues(tt.typ, tt.passing); !slices.Equal(got, tt.want) {
			t.Errorf("argValues(%q, %q) = %q, want %q", tt.typ, tt.passing, got, tt.want)
		}
	}
}

// TestReadStates reads pollutedState from a report written by the
// root-cause analysis.
func TestReadStates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(path, []byte(`{"version":1,"findings":[{"test":"a.B#c","kind":"od-victim","pollutedState":[{"kind":"system-property","root":"k","path":"","passing":"","failing":"v","confirmed":true}]},{"test":"a.B#d","kind":"nio"}]}`), 0o644)
	got, err := ReadStates(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["a.B#c"]) != 1 || got["a.B#c"][0] != (State{Kind: "system-property", Root: "k", Failing: "v", Confirmed: true}) {
		t.Errorf("got %+v", got)
	}
}

// TestDdmin finds a 1-minimal subset, keeping statements that only work together.
func TestDdmin(t *testing.T) {
	tests := []struct {
		items, need []string
	}{
		{[]string{"a", "b", "c", "d", "e"}, []string{"c"}},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, []string{"b", "f"}},
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a"}, []string{"a"}},
	}
	for _, tt := range tests {
		calls := 0
		got, err := ddmin(tt.items, func(s []string) (bool, error) {
			calls++
			for _, n := range tt.need {
				if !slices.Contains(s, n) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil || !slices.Equal(got, tt.need) {
			t.Errorf("ddmin(%v) = %v after %d calls, want %v", tt.items, got, calls, tt.need)
		}
	}
}

// TestLLMFromEnv: the loop runs only with an endpoint and a model.
func TestLLMFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if c, why := LLMFromEnv(get); c != nil || !strings.Contains(why, "FLAKY_LLM_URL") {
		t.Errorf("without variables: %+v, %q", c, why)
	}
	env["FLAKY_LLM_URL"], env["FLAKY_LLM_MODEL"] = "http://localhost:11434/v1", "qwen"
	if c, why := LLMFromEnv(get); c == nil || c.Model != "qwen" || why != "" {
		t.Errorf("with variables: %+v, %q", c, why)
	}
}

// TestMissingClasses reads javac's unknown classes.
func TestMissingClasses(t *testing.T) {
	out := "src/test/java/p/ATest.java:12: error: cannot find symbol\n        AtomicLong x = new AtomicLong(1);\n        ^\n  symbol:   class AtomicLong\n  location: class ATest\nsrc/test/java/p/ATest.java:12: error: cannot find symbol\n  symbol:   class AtomicLong\n  symbol:   method reset()\n"
	if got := missingClasses(out); !slices.Equal(got, []string{"AtomicLong"}) {
		t.Errorf("got %v", got)
	}
}
