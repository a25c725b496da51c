package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/fix/editor"
	"github.com/flakyhq/flaky/internal/report"
)

// TestDirectRestores turns polluted states, as the root-cause analysis
// records them on a finding, into direct restores: the preferred
// alternative's statements and members, and the reasons for the others.
func TestDirectRestores(t *testing.T) {
	r := &run{cfg: Config{Module: Module{SysProps: map[string]string{"env": "ci"}, JVMArgs: []string{"-Xmx1g", "-Dmode=slow"}}}}
	tests := []struct {
		name    string
		state   State
		stmts   []string
		members []string
		alts    int
		why     string
	}{
		{"property absent", State{Kind: "system-property", Root: "fixture.mode", Passing: "<absent>", Failing: `"fast"`}, []string{`System.clearProperty("fixture.mode");`}, nil, 1, ""},
		{"property as at start, unset", State{Kind: "system-property", Root: "fixture.mode", Passing: "<as at JVM start>", Failing: `"debug"`}, []string{`System.clearProperty("fixture.mode");`}, nil, 1, ""},
		{"property as at start, from argLine", State{Kind: "system-property", Root: "mode", Passing: "<as at JVM start>"}, []string{`System.setProperty("mode", "slow");`}, nil, 1, ""},
		{"property as at start, from the fork", State{Kind: "system-property", Root: "env", Passing: "<as at JVM start>"}, []string{`System.setProperty("env", "ci");`}, nil, 1, ""},
		{"property value", State{Kind: "system-property", Root: "user.x", Passing: `"a \"q\"\\\n"`, Failing: `"b"`}, []string{`System.setProperty("user.x", "a \"q\"\\\n");`}, nil, 1, ""},
		{"property cut", State{Kind: "system-property", Root: "p", Passing: `"abc...`}, nil, nil, 0, `system property p: passing value "abc... is not a whole string`},
		{"locale format", State{Kind: "jdk-default", Root: "Locale.default(FORMAT)", Passing: `"en_US"`, Failing: `"de_DE"`},
			[]string{"java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, INITIAL_FORMAT_LOCALE);"},
			[]string{"private static final java.util.Locale INITIAL_FORMAT_LOCALE = java.util.Locale.getDefault(java.util.Locale.Category.FORMAT);"}, 2, ""},
		{"locale with script", State{Kind: "jdk-default", Root: "Locale.default", Passing: `"sr_RS_#Latn"`},
			[]string{"java.util.Locale.setDefault(INITIAL_LOCALE);"}, []string{"private static final java.util.Locale INITIAL_LOCALE = java.util.Locale.getDefault();"}, 1, ""},
		{"time zone", State{Kind: "jdk-default", Root: "TimeZone.default", Passing: `"UTC"`, Failing: `"Pacific/Chatham"`},
			[]string{"java.util.TimeZone.setDefault(INITIAL_TIME_ZONE);"}, []string{"private static final java.util.TimeZone INITIAL_TIME_ZONE = java.util.TimeZone.getDefault();"}, 2, ""},
		{"new temporary file", State{Kind: "file", Root: "${java.io.tmpdir}/x y.lock", Passing: "<as at JVM start>", Failing: "file of 0 bytes, sha256 e3b0c44298fc"},
			[]string{`new java.io.File(System.getProperty("java.io.tmpdir"), "x y.lock").delete();`}, nil, 1, ""},
		{"new working-directory file", State{Kind: "file", Root: "out/data.bin", Passing: "<absent>"}, []string{`new java.io.File("out/data.bin").delete();`}, nil, 1, ""},
		{"changed file", State{Kind: "file", Root: "data.txt", Passing: "file of 3 bytes, sha256 ba7816bf8f01", Failing: "file of 4 bytes, sha256 88d4266fd4e6"}, nil, nil, 0, "file data.txt existed before: its content cannot be restored"},
		{"charset", State{Kind: "jdk-default", Root: "Charset.default", Passing: `"UTF-8"`}, nil, nil, 0, "JDK default Charset.default: no direct restore known"},
		{"static field (reset-methods and reflection)", State{Kind: "static-field", Root: "fixture.Ids.last", Passing: "0", Failing: "1"}, nil, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			units, why := r.directRestores([]State{tt.state})
			if strings.Join(why, "; ") != tt.why {
				t.Errorf("why %q, want %q", why, tt.why)
			}
			if len(units) != min(tt.alts, 1) {
				t.Fatalf("%d units, want %d", len(units), min(tt.alts, 1))
			}
			if len(units) == 0 {
				return
			}
			if len(units[0]) != tt.alts {
				t.Errorf("%d alternatives, want %d", len(units[0]), tt.alts)
			}
			if c := units[0][0].code; !slices.Equal(c.Statements, tt.stmts) || !slices.Equal(c.Members, tt.members) {
				t.Errorf("statements %q members %q, want %q %q", c.Statements, c.Members, tt.stmts, tt.members)
			}
		})
	}
}

// TestLocaleRestoresAllCategories: the locale's states make one restore,
// the default before its categories, with the passing values second.
func TestLocaleRestoresAllCategories(t *testing.T) {
	alts := localeRestores([]State{
		{Kind: "jdk-default", Root: "Locale.default(FORMAT)", Passing: `"en_US"`},
		{Kind: "jdk-default", Root: "Locale.default", Passing: `"en_US"`},
	})
	want := [][]string{
		{"java.util.Locale.setDefault(INITIAL_LOCALE);", "java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, INITIAL_FORMAT_LOCALE);"},
		{`java.util.Locale.setDefault(new java.util.Locale("en", "US"));`, `java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, new java.util.Locale("en", "US"));`},
	}
	if len(alts) != len(want) {
		t.Fatalf("%d alternatives, want %d", len(alts), len(want))
	}
	for i, w := range want {
		if !slices.Equal(alts[i].code.Statements, w) {
			t.Errorf("alternative %d: %q, want %q", i, alts[i].code.Statements, w)
		}
	}
}

// TestReflectiveRestore: the reflective restore of a static field's passing
// value where Java can write it, and the honest reason where it cannot.
func TestReflectiveRestore(t *testing.T) {
	head := []string{`java.lang.reflect.Field themeField = Class.forName("fixture.Look").getDeclaredField("theme");`, "themeField.setAccessible(true);"}
	tests := []struct {
		name  string
		state State
		field editor.FieldInfo
		last  string
		why   string
	}{
		{"enum constant", State{Passing: "Theme.LIGHT"}, editor.FieldInfo{Type: "Theme"}, `themeField.set(null, Enum.valueOf((Class) themeField.getType(), "LIGHT"));`, ""},
		{"enum constant, bare", State{Passing: "LIGHT"}, editor.FieldInfo{Type: "Theme"}, `themeField.set(null, Enum.valueOf((Class) themeField.getType(), "LIGHT"));`, ""},
		{"null", State{Passing: "null"}, editor.FieldInfo{Type: "String"}, "themeField.set(null, null);", ""},
		{"string", State{Passing: `"a\tb"`}, editor.FieldInfo{Type: "String"}, `themeField.set(null, "a\tb");`, ""},
		{"long", State{Passing: "0"}, editor.FieldInfo{Type: "long"}, "themeField.set(null, 0L);", ""},
		{"boxed short", State{Passing: "3"}, editor.FieldInfo{Type: "Short"}, "themeField.set(null, (short) 3);", ""},
		{"float", State{Passing: "1.5"}, editor.FieldInfo{Type: "float"}, "themeField.set(null, 1.5f);", ""},
		{"boolean", State{Passing: "false"}, editor.FieldInfo{Type: "boolean"}, "themeField.set(null, false);", ""},
		{"empty list", State{Passing: "[]"}, editor.FieldInfo{Type: "List<String>"}, "((java.util.Collection<?>) themeField.get(null)).clear();", ""},
		{"added map entry", State{Path: "['BTC']", Passing: "<absent>"}, editor.FieldInfo{Type: "Map<String, Integer>", Final: true}, `((java.util.Map<Object, Object>) themeField.get(null)).remove("BTC");`, ""},
		{"changed map entry", State{Path: "['BTC']", Passing: "100"}, editor.FieldInfo{Type: "Map<String, java.lang.Long>", Final: true}, `((java.util.Map<Object, Object>) themeField.get(null)).put("BTC", 100L);`, ""},
		{"emptied list", State{Path: "[0]", Passing: "<absent>"}, editor.FieldInfo{Type: "List<String>", Final: true}, "((java.util.Collection<?>) themeField.get(null)).clear();", ""},
		{"final value", State{Passing: "0"}, editor.FieldInfo{Type: "int", Final: true}, "", "static field fixture.Look.theme: final, so not even reflection can set it back to 0"},
		{"inside an object", State{Path: ".value", Passing: "0"}, editor.FieldInfo{Type: "AtomicLong", Final: true}, "", "static field fixture.Look.theme: its state differs inside its object (.value), which no reflective restore of the field reaches"},
		{"null primitive", State{Passing: "null"}, editor.FieldInfo{Type: "int"}, "", "static field fixture.Look.theme: its passing value null of type int cannot be written in Java"},
		{"object", State{Passing: "Registry{count=3}"}, editor.FieldInfo{Type: "Registry"}, "", "static field fixture.Look.theme: its passing value Registry{count=3} of type Registry cannot be written in Java"},
		{"not a collection", State{Passing: "{}"}, editor.FieldInfo{Type: "Registry"}, "", "static field fixture.Look.theme: of type Registry, which is neither a Map nor a Collection to empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.state.Kind, tt.state.Root = "static-field", "fixture.Look.theme"
			got, why := reflectiveRestore(tt.state, "fixture.Look", "theme", &tt.field)
			if why != tt.why {
				t.Errorf("why %q, want %q", why, tt.why)
			}
			if tt.last == "" {
				return
			}
			if want := append(slices.Clone(head), tt.last); !slices.Equal(got.code.Statements, want) || !got.code.Throws {
				t.Errorf("code %q (throws %v), want %q", got.code.Statements, got.code.Throws, want)
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

// TestStatesOf takes the polluted states from the report's findings: a
// test's NIO finding has none, its victim finding's count.
func TestStatesOf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(path, []byte(`{"version":1,"findings":[{"test":"a.B#c","kind":"nio"},{"test":"a.B#c","kind":"od-victim","pollutedState":[{"kind":"system-property","root":"k","path":"","passing":"<absent>","failing":"\"v\"","confirmed":true}]},{"test":"a.B#d","kind":"nio"}]}`), 0o644)
	rep, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got := statesOf(rep)
	if len(got) != 1 || len(got["a.B#c"]) != 1 || got["a.B#c"][0] != (State{Kind: "system-property", Root: "k", Passing: "<absent>", Failing: `"v"`, Confirmed: true}) {
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

// TestLLMFromEnv: the loop runs only with an endpoint and a model, and
// unconfined where there is no sandbox only when the environment says so.
func TestLLMFromEnv(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if c, why := LLMFromEnv(get); c != nil || !strings.Contains(why, "FLAKY_LLM_URL") {
		t.Errorf("without variables: %+v, %q", c, why)
	}
	env["FLAKY_LLM_URL"], env["FLAKY_LLM_MODEL"] = "http://localhost:11434/v1", "qwen"
	if c, why := LLMFromEnv(get); c == nil || c.Model != "qwen" || c.Timeout != 0 || c.Unconfined || why != "" {
		t.Errorf("with variables: %+v, %q", c, why)
	}
	env[UnconfinedEnv] = "1"
	if c, why := LLMFromEnv(get); c == nil || !c.Unconfined || why != "" {
		t.Errorf("with %s=1: %+v, %q", UnconfinedEnv, c, why)
	}
	env["FLAKY_LLM_TIMEOUT"] = "30s"
	if c, why := LLMFromEnv(get); c == nil || c.Timeout != 30*time.Second || why != "" {
		t.Errorf("with a timeout: %+v, %q", c, why)
	}
	env["FLAKY_LLM_TIMEOUT"] = "soon"
	if c, why := LLMFromEnv(get); c != nil || !strings.Contains(why, `FLAKY_LLM_TIMEOUT="soon"`) {
		t.Errorf("with a bad timeout: %+v, %q", c, why)
	}
}

// TestMissingClasses reads javac's unknown classes.
func TestMissingClasses(t *testing.T) {
	out := "src/test/java/p/ATest.java:12: error: cannot find symbol\n        AtomicLong x = new AtomicLong(1);\n        ^\n  symbol:   class AtomicLong\n  location: class ATest\nsrc/test/java/p/ATest.java:12: error: cannot find symbol\n  symbol:   class AtomicLong\n  symbol:   method reset()\n"
	if got := missingClasses(out); !slices.Equal(got, []string{"AtomicLong"}) {
		t.Errorf("got %v", got)
	}
}

// fixtureEditor indexes the sources of testdata/fixture and starts the
// source editor, closed when t ends; it skips t with -short.
func fixtureEditor(t *testing.T, fixture string) (*sources, *editor.Editor) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the source editor's JVM: skipped with -short")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not on PATH")
	}
	src, err := indexSources(filepath.Join("..", "..", "..", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	ed, err := editor.StartEditor(context.Background(), java)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ed.Close() })
	return src, ed
}

// TestFieldRestores reads the repair fixture's sources with the editor: a
// static field that only reflection restores says so without
// --allow-reflection and gets the reflective restore with it, after its
// reset-method call; a final field whose state is inside its object gets
// neither, and the reason says why.
func TestFieldRestores(t *testing.T) {
	src, ed := fixtureEditor(t, "repair")
	theme := State{Kind: "static-field", Root: "fixture.repair.Appearance.theme", Passing: "Theme.LIGHT", Failing: "Theme.DARK"}
	ids := State{Kind: "static-field", Root: "fixture.repair.Ids.LAST", Path: ".value", Passing: "0", Failing: "1"}
	tests := []struct {
		name  string
		state State
		allow bool
		alts  []string // each alternative's last statement
		why   string
	}{
		{"reflection off", theme, false, []string{"fixture.repair.Appearance.darken();"}, "static field fixture.repair.Appearance.theme: " + reflectionHint},
		{"reflection on", theme, true, []string{"fixture.repair.Appearance.darken();", `themeField.set(null, Enum.valueOf((Class) themeField.getType(), "LIGHT"));`}, ""},
		{"final, inside its object", ids, true, nil, "static field fixture.repair.Ids.LAST: no reset-method found; its state differs inside its object (.value), which no reflective restore of the field reaches"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &run{cfg: Config{AllowReflection: tt.allow}, src: src, ed: ed}
			calls, err := r.resetCalls(tt.state)
			if err != nil {
				t.Fatal(err)
			}
			alts, why := r.fieldRestores(tt.state, calls, "static field "+tt.state.Root+": no reset-method found", []string{"fixture.repair.AppearanceTest#t"})
			var last []string
			for _, a := range alts {
				last = append(last, a.code.Statements[len(a.code.Statements)-1])
			}
			if !slices.Equal(last, tt.alts) || why != tt.why {
				t.Errorf("alternatives ending %q, why %q; want %q, %q", last, why, tt.alts, tt.why)
			}
		})
	}
}

// TestAssignment: a static field visible from the patched test's class
// (public, or package private in its package) is restored by plain Java,
// without reflection; other fields are not.
func TestAssignment(t *testing.T) {
	const same, other = "fixture.CounterTest#a", "other.CounterTest#a"
	tests := []struct {
		name  string
		state State
		field editor.FieldInfo
		from  string
		stmt  string
	}{
		{"int", State{Passing: "0"}, editor.FieldInfo{Type: "int", Public: true}, other, "Counter.count = 0;"},
		{"string", State{Passing: `"a"`}, editor.FieldInfo{Type: "String", Public: true}, other, `Counter.count = "a";`},
		{"added entry", State{Path: "['k']", Passing: "<absent>"}, editor.FieldInfo{Type: "Map<String, String>", Public: true, Final: true}, other, `Counter.count.remove("k");`},
		{"changed entry", State{Path: "['BTC']", Passing: "100"}, editor.FieldInfo{Type: "Map<String, Integer>", Public: true, Final: true}, other, `Counter.count.put("BTC", 100);`},
		{"entry set to null", State{Path: "['k']", Passing: "null"}, editor.FieldInfo{Type: "java.util.HashMap<String, Map<String, Integer>>", Public: true, Final: true}, other, `Counter.count.put("k", null);`},
		{"entry of a nested map", State{Path: "['a']['b']", Passing: "1"}, editor.FieldInfo{Type: "Map<String, Map<String, Integer>>", Public: true, Final: true}, other, ""},
		{"object entry", State{Path: "['k']", Passing: "Point{x=1}"}, editor.FieldInfo{Type: "Map<String, Point>", Public: true, Final: true}, other, ""},
		{"private", State{Passing: "0"}, editor.FieldInfo{Type: "int", Private: true}, same, ""},
		{"package private, from its package", State{Passing: "0"}, editor.FieldInfo{Type: "int"}, same, "Counter.count = 0;"},
		{"package private map, from its package", State{Path: "['k']", Passing: "<absent>"}, editor.FieldInfo{Type: "Map<String, String>", Final: true}, same, `Counter.count.remove("k");`},
		{"package private, from another package", State{Passing: "0"}, editor.FieldInfo{Type: "int"}, other, ""},
		{"final", State{Passing: "0"}, editor.FieldInfo{Type: "int", Public: true, Final: true}, other, ""},
		{"enum", State{Passing: "Theme.LIGHT"}, editor.FieldInfo{Type: "Theme", Public: true}, other, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.state.Kind, tt.state.Root = "static-field", "fixture.Counter.count"
			got, ok := assignment(tt.state, "Counter.count", &tt.field, visible(&tt.field, "fixture.Counter", []string{tt.from}))
			if ok != (tt.stmt != "") || ok && !slices.Equal(got.code.Statements, []string{tt.stmt}) {
				t.Errorf("%q, %v; want %q", got.code.Statements, ok, tt.stmt)
			}
		})
	}
}

// TestVisible: a field is visible from every class of the tests a restore
// goes into, or not at all: public from anywhere, package private and
// protected only from its own package (nested classes count as their outer
// class's package), private never.
func TestVisible(t *testing.T) {
	pub, pkg, priv := &editor.FieldInfo{Public: true}, &editor.FieldInfo{}, &editor.FieldInfo{Private: true}
	tests := []struct {
		name  string
		fi    *editor.FieldInfo
		class string
		from  []string
		want  bool
	}{
		{"public", pub, "a.C", []string{"b.T#t"}, true},
		{"package private, same package", pkg, "a.C", []string{"a.T#t", "a.U$V#u"}, true},
		{"nested class's field", pkg, "a.C$D", []string{"a.T#t"}, true},
		{"one test in another package", pkg, "a.C", []string{"a.T#t", "a.b.U#u"}, false},
		{"private", priv, "a.C", []string{"a.T#t"}, false},
		{"no declaration", nil, "a.C", []string{"a.T#t"}, false},
		{"no test", pkg, "a.C", nil, false},
	}
	for _, tt := range tests {
		if got := visible(tt.fi, tt.class, tt.from); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestReinitialisation: a visible, non-final field whose state differs
// inside its object gets its initialiser re-assigned, with the field's
// file's single-type imports; a final, invisible or uninitialised field,
// or an array initialiser, gets none.
func TestReinitialisation(t *testing.T) {
	hits := State{Kind: "static-field", Root: "fixture.Counter.hits", Path: ".value", Passing: "0", Failing: "1"}
	imports := []string{"java.util.concurrent.atomic.AtomicInteger", "java.util.*", "static java.lang.Math.max"}
	field := func(init string, final bool) *editor.FieldInfo {
		return &editor.FieldInfo{Names: []string{"other", "hits"}, Initializers: []string{"", init}, Final: final, Type: "AtomicInteger"}
	}
	tests := []struct {
		name string
		fi   *editor.FieldInfo
		vis  bool
		stmt string
	}{
		{"initialiser", field("new AtomicInteger()", false), true, "Counter.hits = new AtomicInteger();"},
		{"final", field("new AtomicInteger()", true), true, ""},
		{"not visible", field("new AtomicInteger()", false), false, ""},
		{"no initialiser", field("", false), true, ""},
		{"array", field("{1, 2}", false), true, ""},
	}
	for _, tt := range tests {
		got, ok := reinitialisation(hits, "Counter.hits", "hits", tt.fi, imports, tt.vis)
		if ok != (tt.stmt != "") || ok && !slices.Equal(got.code.Statements, []string{tt.stmt}) {
			t.Errorf("%s: %q, %v; want %q", tt.name, got.code.Statements, ok, tt.stmt)
		}
		if ok && !slices.Equal(got.code.Imports, imports[:1]) {
			t.Errorf("%s: imports %q, want %q", tt.name, got.code.Imports, imports[:1])
		}
	}
}

// TestHasStatement: a reset already in the fixture method the editor
// would add it to is not added again: JUnit 4's @After, TestNG's
// @AfterMethod, JUnit 3's tearDown (not another method of that name's
// class without the framework), blanks aside.
func TestHasStatement(t *testing.T) {
	const stmt = `System.clearProperty("m");`
	withBody := func(name string, annotations ...string) editor.MethodInfo {
		return editor.MethodInfo{Name: name, Annotations: annotations, Body: []string{`System.clearProperty( "m" );`, "super.tearDown();"}}
	}
	tests := []struct {
		name string
		info editor.ClassInfo
		when string
		want bool
	}{
		{"junit4 tear-down", editor.ClassInfo{Framework: "junit4", Methods: []editor.MethodInfo{withBody("restore", "After")}}, "after", true},
		{"junit4 set-up asked", editor.ClassInfo{Framework: "junit4", Methods: []editor.MethodInfo{withBody("restore", "After")}}, "before", false},
		{"testng tear-down", editor.ClassInfo{Framework: "testng", Methods: []editor.MethodInfo{withBody("restore", "AfterMethod")}}, "after", true},
		{"junit3 tearDown", editor.ClassInfo{Framework: "junit3", Methods: []editor.MethodInfo{withBody("tearDown")}}, "after", true},
		{"junit3 setUp asked", editor.ClassInfo{Framework: "junit3", Methods: []editor.MethodInfo{withBody("tearDown")}}, "before", false},
		{"tearDown outside junit3", editor.ClassInfo{Framework: "junit4", Methods: []editor.MethodInfo{withBody("tearDown")}}, "after", false},
	}
	for _, tt := range tests {
		if got := hasStatement(&tt.info, tt.when, stmt); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFixtureMethods: a JUnit 3 class's setUp is its set-up, given without
// its super.setUp() (so a cleaner's set-up inlined elsewhere does not call
// another class's super method); other frameworks' are their annotated
// methods.
func TestFixtureMethods(t *testing.T) {
	junit3 := editor.ClassInfo{Framework: "junit3", Methods: []editor.MethodInfo{
		{Name: "setUp", Annotations: []string{"Override"}, Body: []string{"super.setUp();", "lock = new File(\"x\");"}},
		{Name: "testA", Body: []string{"assertTrue(true);"}},
	}}
	if got := fixtureMethods(&junit3, true); len(got) != 1 || !slices.Equal(got[0].Body, []string{"lock = new File(\"x\");"}) {
		t.Errorf("junit3 set-up %+v, want setUp without super.setUp()", got)
	}
	if got := fixtureMethods(&junit3, false); got != nil {
		t.Errorf("junit3 tear-down %+v, want none", got)
	}
	if junit3.Methods[0].Body[0] != "super.setUp();" {
		t.Errorf("fixtureMethods changed the class's info: %q", junit3.Methods[0].Body)
	}
	testng := editor.ClassInfo{Framework: "testng", Methods: []editor.MethodInfo{{Name: "open", Annotations: []string{"BeforeMethod"}, Body: []string{"open();"}}}}
	if got := fixtureMethods(&testng, true); len(got) != 1 || got[0].Name != "open" {
		t.Errorf("testng set-up %+v, want open", got)
	}
}

// TestFieldRestoresInitialiser reads the repair-resets fixture with the
// editor: its package-private counter, whose AtomicInteger no passing value
// rebuilds, gets its initialiser re-assigned from a test of its package
// (with the import it needs), and nothing without reflection from another
// package.
func TestFieldRestoresInitialiser(t *testing.T) {
	src, ed := fixtureEditor(t, "repair-resets")
	r := &run{src: src, ed: ed}
	served := State{Kind: "static-field", Root: "fixture.resets.Visits.served", Passing: "0", Failing: "2"}
	alts, why := r.fieldRestores(served, nil, "static field "+served.Root+": no reset-method found", []string{"fixture.resets.VisitorTest#servesTwoVisits", "fixture.resets.FirstVisitTest#noVisitsYet"})
	if len(alts) != 1 || !slices.Equal(alts[0].code.Statements, []string{"fixture.resets.Visits.served = new AtomicInteger();"}) ||
		!slices.Contains(alts[0].code.Imports, "java.util.concurrent.atomic.AtomicInteger") || why != "" {
		t.Errorf("same package: %+v, why %q; want the initialiser re-assigned with its import", alts, why)
	}
	alts, why = r.fieldRestores(served, nil, "static field "+served.Root+": no reset-method found", []string{"other.VisitorTest#servesTwoVisits"})
	if len(alts) != 0 || !strings.Contains(why, "cannot be written in Java") {
		t.Errorf("another package: %+v, why %q; want none and the reason", alts, why)
	}
}
