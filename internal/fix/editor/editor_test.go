package editor

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// javaOnPath returns java from PATH, for a test that runs the editor's JVM
// (skipped with -short).
func javaOnPath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a JVM: skipped with -short")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not on PATH")
	}
	return java
}

// startEditor starts the embedded editor with java from PATH.
func startEditor(t *testing.T) *Editor {
	t.Helper()
	ed, err := StartEditor(context.Background(), javaOnPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ed.Close() })
	return ed
}

// lineChanges returns the original lines an edit removed or changed, and
// the lines it added, as whole lines with their line ends.
func lineChanges(before, after string) (removed, added string) {
	for _, e := range udiff.Lines(before, after) {
		removed += before[e.Start:e.End]
		added += e.New
	}
	return removed, added
}

func readFixture(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

const greeter = "repair/src/test/java/fixture/repair/GreeterTest.java"

// TestEditorKeepsUnusualFormatting: tabs, CRLF and comments inside methods
// survive byte for byte; the added lines use the file's tabs and CRLF.
func TestEditorKeepsUnusualFormatting(t *testing.T) {
	ed := startEditor(t)
	src := readFixture(t, greeter)
	if !strings.Contains(src, "\r\n\t\t/* the language") {
		t.Fatal("fixture lost its CRLF, tabs or comment")
	}
	tests := []struct {
		name  string
		edit  func() (string, error)
		added string
	}{
		{"set-up", func() (string, error) {
			return ed.AddFixture(src, "GreeterTest", "before", Code{Statements: []string{`Config.load("en");`}})
		}, "import org.junit.Before;\r\n\r\n\t@Before\r\n\tpublic void resetSharedState() {\r\n\t\tConfig.load(\"en\");\r\n\t}\r\n"},
		{"tear-down with throws", func() (string, error) {
			return ed.AddFixture(src, "GreeterTest", "after", Code{Statements: []string{"Config.load(null);", "if (HELLO == null) {\n    throw new Exception();\n}"}, Throws: true})
		}, "import org.junit.After;\r\n\r\n\t@After\r\n\tpublic void restoreSharedState() throws Exception {\r\n\t\tConfig.load(null);\r\n\t\tif (HELLO == null) {\r\n\t\t    throw new Exception();\r\n\t\t}\r\n\t}\r\n"},
		{"start of a test", func() (string, error) {
			return ed.InsertAtStart(src, "GreeterTest", "greetsInConfiguredLanguage", Code{Statements: []string{`Config.load("en");`}})
		}, "\t\tConfig.load(\"en\");\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tt.edit()
			if err != nil {
				t.Fatal(err)
			}
			removed, added := lineChanges(src, out)
			if removed != "" {
				t.Errorf("original lines changed:\n%q", removed)
			}
			if added != tt.added {
				t.Errorf("added\n%q\nwant\n%q", added, tt.added)
			}
		})
	}
}

// TestEditorJupiterAndMembers: a Jupiter class gets @AfterEach (package
// private like its tests) and only the helpers and imports the code uses.
func TestEditorJupiterAndMembers(t *testing.T) {
	ed := startEditor(t)
	src := "package p;\n\nimport org.junit.jupiter.api.Test;\n\nimport static org.junit.jupiter.api.Assertions.assertTrue;\n\nclass ATest {\n  @Test\n  void a() {\n    assertTrue(true);\n  }\n}\n"
	out, err := ed.AddFixture(src, "ATest", "after", Code{
		Statements: []string{"emptyRegistry();"},
		Members:    []string{"private final String owner = \"x\";", "private static void emptyRegistry() {\n        Registry.clear();\n    }", "private static void unused() {\n    }"},
		Imports:    []string{"org.junit.jupiter.api.Test", "q.Registry", "java.util.List", "static org.junit.jupiter.api.Assertions.assertFalse"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "package p;\n\nimport org.junit.jupiter.api.Test;\nimport org.junit.jupiter.api.AfterEach;\nimport q.Registry;\n\nimport static org.junit.jupiter.api.Assertions.assertTrue;\n\nclass ATest {\n  @AfterEach\n  void restoreSharedState() {\n    emptyRegistry();\n  }\n\n  @Test\n  void a() {\n    assertTrue(true);\n  }\n\n  private static void emptyRegistry() {\n      Registry.clear();\n  }\n}\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestEditorTestNG: a TestNG class gets a public @BeforeMethod (TestNG's set-up
// around each test method) imported from org.testng.annotations.
func TestEditorTestNG(t *testing.T) {
	ed := startEditor(t)
	src := "package p;\n\nimport org.testng.annotations.Test;\n\npublic class ATest {\n  @Test\n  public void a() {\n  }\n}\n"
	out, err := ed.AddFixture(src, "ATest", "before", Code{Statements: []string{"Catalog.loaded = true;"}})
	if err != nil {
		t.Fatal(err)
	}
	want := "package p;\n\nimport org.testng.annotations.Test;\nimport org.testng.annotations.BeforeMethod;\n\npublic class ATest {\n  @BeforeMethod\n  public void resetSharedState() {\n    Catalog.loaded = true;\n  }\n\n  @Test\n  public void a() {\n  }\n}\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestEditorJUnit3: a JUnit 3 TestCase gets a new protected tearDown (or
// setUp) that calls the super method last (first), and code added to an
// existing one goes before its trailing super.tearDown() (after its leading
// super.setUp()); a JUnit 4 class whose base class is named like a
// TestCase gets an @After; info says junit3 and gives each field's
// initialiser.
func TestEditorJUnit3(t *testing.T) {
	ed := startEditor(t)
	bare := "package p;\n\nimport junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    static int n = 1, m;\n\n    public void testA() {\n        assertTrue(true);\n    }\n}\n"
	fixtures := "package p;\n\nimport junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    @Override\n    protected void setUp() throws Exception {\n        super.setUp();\n        open();\n    }\n\n    @Override\n    protected void tearDown() throws Exception {\n        close();\n        super.tearDown();\n    }\n\n    public void testA() {\n    }\n}\n"
	tests := []struct {
		name, src, when, want string
	}{
		{"new tear-down", bare, "after", "package p;\n\nimport junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    static int n = 1, m;\n\n    @Override\n    protected void tearDown() throws Exception {\n        Registry.clear();\n        super.tearDown();\n    }\n\n    public void testA() {\n        assertTrue(true);\n    }\n}\n"},
		{"new set-up", bare, "before", "package p;\n\nimport junit.framework.TestCase;\n\npublic class ATest extends TestCase {\n    static int n = 1, m;\n\n    @Override\n    protected void setUp() throws Exception {\n        super.setUp();\n        Registry.clear();\n    }\n\n    public void testA() {\n        assertTrue(true);\n    }\n}\n"},
		{"existing tear-down", fixtures, "after", strings.Replace(fixtures, "        close();\n", "        close();\n        Registry.clear();\n", 1)},
		{"existing set-up", fixtures, "before", strings.Replace(fixtures, "        super.setUp();\n", "        super.setUp();\n        Registry.clear();\n", 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := ed.AddFixture(tt.src, "ATest", tt.when, Code{Statements: []string{"Registry.clear();"}})
			if err != nil {
				t.Fatal(err)
			}
			if out != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out, tt.want)
			}
		})
	}
	// A JUnit 4 class whose base class is named like JUnit 3's gets an @After.
	junit4 := "package p;\n\nimport org.junit.Test;\n\npublic class ATest extends BaseTestCase {\n    @Test\n    public void a() {\n    }\n}\n"
	out, err := ed.AddFixture(junit4, "ATest", "after", Code{Statements: []string{"Registry.clear();"}})
	if want := "package p;\n\nimport org.junit.Test;\nimport org.junit.After;\n\npublic class ATest extends BaseTestCase {\n    @After\n    public void restoreSharedState() {\n        Registry.clear();\n    }\n\n    @Test\n    public void a() {\n    }\n}\n"; err != nil || out != want {
		t.Errorf("JUnit 4 class extending BaseTestCase: %v\n%s\nwant\n%s", err, out, want)
	}
	info, err := ed.Info(bare, "ATest")
	if err != nil {
		t.Fatal(err)
	}
	if info.Framework != "junit3" || len(info.Fields) != 1 || !slices.Equal(info.Fields[0].Initializers, []string{"1", ""}) ||
		info.Fields[0].Initializer("n") != "1" || info.Fields[0].Private || info.Fields[0].Public {
		t.Errorf("info %+v, want junit3 and the field n = 1, m package private", info)
	}
}

// TestEditorRefuses: a class with no framework the editor knows gets no
// set-up: a RefusedError with the editor's reason, after which the editor
// still answers.
func TestEditorRefuses(t *testing.T) {
	ed := startEditor(t)
	_, err := ed.AddFixture("package p;\n\nclass Plain {\n}\n", "Plain", "after", Code{Statements: []string{"x();"}})
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Op != "add-fixture" || !strings.Contains(refused.Message, "no set-up or tear-down to add to") {
		t.Fatalf("error %v, want the editor's refusal", err)
	}
	if _, err := ed.Info("class Ok {}", "Ok"); err != nil {
		t.Errorf("after a refusal: %v", err)
	}
}

// TestEditorStitchesMethod: a replacement body keeps the original's
// modifiers and annotations, and says what it restored.
func TestEditorStitchesMethod(t *testing.T) {
	ed := startEditor(t)
	src := readFixture(t, greeter)
	out, restored, err := ed.ReplaceMethod(src, "GreeterTest", "greetsInConfiguredLanguage", "void greetsInConfiguredLanguage() {\n  Config.load(\"en\");\n  assertEquals(\"en\", Config.language());\n}")
	if err != nil {
		t.Fatal(err)
	}
	if len(restored) != 2 || !strings.Contains(restored[0], "modifiers [public]") || !strings.Contains(restored[1], "@Test") {
		t.Errorf("restored %q, want the public modifier and @Test", restored)
	}
	removed, added := lineChanges(src, out)
	if want := "\t\t/* the language comes from Config */  String lang = Config.language();\r\n\t\tassertEquals(\"en\", lang); // loaded by ConfigTest\r\n"; removed != want {
		t.Errorf("removed %q, want the old body only", removed)
	}
	if want := "\t\tConfig.load(\"en\");\r\n\t\tassertEquals(\"en\", Config.language());\r\n"; added != want {
		t.Errorf("added %q, want %q", added, want)
	}
}

// TestEditorTemplates: Locale.ROOT and an ordered collection, on the chaos
// fixture's LOCALE and ITERATION_ORDER sources.
func TestEditorTemplates(t *testing.T) {
	ed := startEditor(t)
	tests := []struct {
		file, op      string
		line          int
		removed, want string
	}{
		{"chaos/src/main/java/fixture/chaos/Headings.java", "locale-root", 9,
			"        return title.toUpperCase();\n", "import java.util.Locale;\n\n        return title.toUpperCase(Locale.ROOT);\n"},
		{"chaos/src/test/java/fixture/chaos/TagsTest.java", "ordered-collection", 14,
			"        Map<String, Integer> counts = new HashMap<>();\n", "import java.util.LinkedHashMap;\n        Map<String, Integer> counts = new LinkedHashMap<>();\n"},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			src := readFixture(t, tt.file)
			out, n, err := ed.Template(src, tt.op, tt.line)
			if err != nil || n != 1 {
				t.Fatalf("changed %d, err %v", n, err)
			}
			removed, added := lineChanges(src, out)
			if removed != tt.removed || added != tt.want {
				t.Errorf("removed %q added %q; want %q and %q", removed, added, tt.removed, tt.want)
			}
		})
	}
}

// TestEditorClockTemplates: an explicit time zone, the Clock the code
// already has, and a seeded Random, each on the line the finding names and
// nowhere else.
func TestEditorClockTemplates(t *testing.T) {
	ed := startEditor(t)
	const head = "package p;\n\nimport java.time.*;\nimport java.util.*;\n\nclass T {\n"
	tests := []struct {
		name, op, body string
		line, n        int
		removed, added string
	}{
		{"now without a clock", "time-zone", "  String day() {\n    return LocalDate.now().toString();\n  }\n", 8, 1,
			"    return LocalDate.now().toString();\n", "    return LocalDate.now(ZoneOffset.UTC).toString();\n"},
		{"now with the class's clock", "time-zone", "  Clock clock = Clock.systemUTC();\n  String day() {\n    return LocalDateTime.now().toString();\n  }\n", 9, 1,
			"    return LocalDateTime.now().toString();\n", "    return LocalDateTime.now(clock).toString();\n"},
		{"default zone and time zone", "time-zone", "  Object z() {\n    return Arrays.asList(ZoneId.systemDefault(), TimeZone.getDefault(), Clock.systemDefaultZone());\n  }\n", 8, 3,
			"    return Arrays.asList(ZoneId.systemDefault(), TimeZone.getDefault(), Clock.systemDefaultZone());\n",
			"    return Arrays.asList(ZoneOffset.UTC, TimeZone.getTimeZone(\"UTC\"), Clock.systemUTC());\n"},
		{"other lines untouched", "time-zone", "  String day() {\n    return LocalDate.now().toString();\n  }\n", 7, 0, "", ""},
		{"the receiver's generator", "seeded-random", "  Random rnd = new Random();\n  int roll() {\n    return rnd.nextInt(6);\n  }\n", 9, 1,
			"  Random rnd = new Random();\n", "  Random rnd = new Random(42L);\n"},
		{"a generator on the line", "seeded-random", "  int roll() {\n    return new Random().nextInt(6);\n  }\n", 8, 1,
			"    return new Random().nextInt(6);\n", "    return new Random(42L).nextInt(6);\n"},
		{"a seeded generator stays", "seeded-random", "  int roll() {\n    return new Random(7).nextInt(6);\n  }\n", 8, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + tt.body + "}\n"
			out, n, err := ed.Template(src, tt.op, tt.line)
			if err != nil || n != tt.n {
				t.Fatalf("changed %d, err %v; want %d", n, err, tt.n)
			}
			removed, added := lineChanges(src, out)
			if strings.Contains(added, "import java.time.ZoneOffset;") {
				added = strings.Replace(added, "import java.time.ZoneOffset;\n", "", 1)
			}
			if removed != tt.removed || added != tt.added {
				t.Errorf("removed %q added %q; want %q and %q", removed, added, tt.removed, tt.added)
			}
		})
	}
}

// TestEditorOrderTemplates: an assertion made order-insensitive (sorted
// before asserting, or the collections compared instead of their text),
// with the expected and actual values where each framework puts them; its
// literals stay.
func TestEditorOrderTemplates(t *testing.T) {
	ed := startEditor(t)
	tests := []struct {
		name, imp, stmt string
		n               int
		added           string
	}{
		{"a set's text", "org.junit.jupiter.api.Assertions.assertEquals", `assertEquals("[a, b]", tags.toString());`, 1,
			`assertEquals("[a, b]", tags.stream().sorted().collect(Collectors.toList()).toString());`},
		{"a map's text, JUnit 4's message first", "org.junit.Assert.assertEquals", `assertEquals("counts", "{a=1}", counts.toString());`, 1,
			`assertEquals("counts", "{a=1}", new TreeMap<>(counts).toString());`},
		{"two texts", "org.junit.jupiter.api.Assertions.assertEquals", `assertEquals(a.toString(), b.toString());`, 1,
			`assertEquals(a, b);`},
		{"a list, TestNG's actual first", "org.testng.Assert.assertEquals", `assertEquals(new ArrayList<>(tags), Arrays.asList("a", "b"));`, 1,
			`assertEquals(new ArrayList<>(tags).stream().sorted().collect(Collectors.toList()), Arrays.asList("a", "b").stream().sorted().collect(Collectors.toList()));`},
		{"a literal that is no collection's text", "org.junit.jupiter.api.Assertions.assertEquals", `assertEquals("ab", tags.toString());`, 0, ""},
		{"not an assertion", "org.junit.jupiter.api.Assertions.assertEquals", `System.out.println(tags.toString());`, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p;\n\nimport java.util.*;\n\nimport static " + tt.imp + ";\n\nclass T {\n  void t(Set<String> tags, Map<String, Integer> counts, Object a, Object b) {\n    " + tt.stmt + "\n  }\n}\n"
			out, n, err := ed.Template(src, "sorted-assertion", 9)
			if err != nil || n != tt.n {
				t.Fatalf("changed %d, err %v; want %d", n, err, tt.n)
			}
			_, added := lineChanges(src, out)
			if got := addedStatements(added); got != tt.added {
				t.Errorf("added %q, want %q", got, tt.added)
			}
		})
	}
}

// addedStatements is a diff's added lines (lineChanges), imports and blank
// lines left out, each trimmed, one per line.
func addedStatements(added string) string {
	var body []string
	for _, l := range strings.Split(strings.TrimSuffix(added, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "import ") {
			body = append(body, strings.TrimSpace(l))
		}
	}
	return strings.Join(body, "\n")
}

// TestEditorWaitTemplates: a fixed sleep before an assertion becomes a
// bounded poll of the assertion's condition (at least as long as the
// sleep), with the condition where each framework puts it; a latch's or
// pool's tight deadline inside an assertion gets the same wait, bounded,
// before it; the assertion stays, and a sleep no such assertion follows, a
// long deadline and a wait that is not idempotent are left alone.
func TestEditorWaitTemplates(t *testing.T) {
	ed := startEditor(t)
	tests := []struct {
		name, imp, sleep, assertion string
		n                           int
		added                       string
	}{
		{"assertTrue after Thread.sleep", "org.junit.jupiter.api.Assertions.assertTrue", "Thread.sleep(500);", `assertTrue(done.get(), "not done");`, 1,
			"long deadline2 = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);\nwhile (!done.get() && System.nanoTime() - deadline2 < 0) {\nThread.sleep(10);\n}"},
		{"JUnit 4's message first, a longer sleep", "org.junit.Assert.assertTrue", "TimeUnit.MINUTES.sleep(1);", `assertTrue("not done", done.get() && ready);`, 1,
			"long deadline2 = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);\nwhile (!(done.get() && ready) && System.nanoTime() - deadline2 < 0) {\nThread.sleep(10);\n}"},
		{"assertNotNull, a computed sleep", "org.testng.Assert.assertNotNull", "Thread.sleep(wait);", `assertNotNull(result.get(), "no result");`, 1,
			"long deadline2 = System.nanoTime() + Math.max(TimeUnit.SECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(wait));\nwhile (result.get() == null && System.nanoTime() - deadline2 < 0) {\nThread.sleep(10);\n}"},
		{"a supplier stays", "org.junit.jupiter.api.Assertions.assertTrue", "Thread.sleep(500);", `assertTrue(done::get);`, 0, ""},
		{"an assertion that waits for nothing", "org.junit.jupiter.api.Assertions.assertFalse", "Thread.sleep(500);", `assertFalse(done.get());`, 0, ""},
		{"a latch's tight deadline", "org.junit.jupiter.api.Assertions.assertTrue", `assertTrue(latch.await(700, TimeUnit.MILLISECONDS), "late");`, "done.set(true);", 1,
			"latch.await(30, TimeUnit.SECONDS);"},
		{"awaitTermination's computed deadline", "org.junit.Assert.assertTrue", `assertTrue("late", pool.awaitTermination(wait, TimeUnit.MILLISECONDS));`, "done.set(true);", 1,
			"pool.awaitTermination(Math.max(TimeUnit.SECONDS.toNanos(30), TimeUnit.MILLISECONDS.toNanos(wait)), TimeUnit.NANOSECONDS);"},
		{"a long deadline stays", "org.junit.jupiter.api.Assertions.assertTrue", `assertTrue(latch.await(1, TimeUnit.MINUTES));`, "done.set(true);", 0, ""},
		{"a condition is not awaited twice", "org.junit.jupiter.api.Assertions.assertTrue", `assertTrue(signal.await(700, TimeUnit.MILLISECONDS));`, "done.set(true);", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p;\n\nimport java.util.concurrent.*;\nimport java.util.concurrent.atomic.*;\nimport java.util.concurrent.locks.Condition;\n\nimport static " + tt.imp + ";\n\nclass T {\n  void t(AtomicBoolean done, AtomicReference<String> result, boolean ready, long wait, CountDownLatch latch, ExecutorService pool, Condition signal) throws Exception {\n    long deadline = 0;\n    " + tt.sleep + "\n    " + tt.assertion + "\n  }\n}\n"
			out, n, err := ed.Template(src, "await-condition", 12)
			if err != nil || n != tt.n {
				t.Fatalf("changed %d, err %v; want %d", n, err, tt.n)
			}
			removed, added := lineChanges(src, out)
			wantRemoved := "" // a wait inserted before an assertion replaces nothing
			if strings.Contains(tt.added, "while") {
				wantRemoved = tt.sleep // the poll replaces the sleep
			}
			if strings.TrimSpace(removed) != wantRemoved {
				t.Errorf("removed %q, want %q", removed, wantRemoved)
			}
			if got := addedStatements(added); got != tt.added {
				t.Errorf("added %q, want %q", got, tt.added)
			}
		})
	}
}

func TestEditorSplit(t *testing.T) {
	e := startEditor(t)
	src := `package p;

import org.junit.Test;

/** A test. */
public class T extends Base {
    static int x = 1;

    @Test
    public void a() {
        // a comment does not count
        Runnable r = new Runnable() { public void run() {} };
        r.run();
    }

    int help(int n) { return n; }

    T() {}

    static { x = 2; }

    static class In {
        void m() {}
    }
}
`
	pkg, ms, err := e.Split(src)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Class+" "+m.Kind+" "+m.Signature)
	}
	want := []string{"T header header", "T field field x", "T method a()", "T method help(int)", "T constructor <init>()", "T initializer initializer 1", "T$In header header", "T$In method m()"}
	if pkg != "p" || !slices.Equal(got, want) {
		t.Fatalf("package %q, members %q; want p, %q", pkg, got, want)
	}
	if ms[2].BeginLine != 9 || ms[2].EndLine != 14 || !slices.Contains(ms[2].Annotations, "Test") {
		t.Errorf("method a: %+v", ms[2])
	}
	// Comments and layout do not change a member's hash; code does.
	_, again, err := e.Split(strings.Replace(src, "// a comment does not count", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	_, changed, err := e.Split(strings.Replace(src, "return n;", "return n + 1;", 1))
	if err != nil {
		t.Fatal(err)
	}
	if again[2].Hash != ms[2].Hash || changed[3].Hash == ms[3].Hash || changed[2].Hash != ms[2].Hash {
		t.Errorf("hashes: a %s/%s, help %s/%s", ms[2].Hash, again[2].Hash, ms[3].Hash, changed[3].Hash)
	}
}

// TestPrestart checks that StartEditor takes the editor Prestart started for
// the same java, ready to answer, and leaves none behind; and that a
// prestart that failed (java does not exist) leaves StartEditor to fail on
// its own start.
func TestPrestart(t *testing.T) {
	java := javaOnPath(t)
	ctx := context.Background()
	Prestart(java)
	v, ok := prestarted.Load(java)
	if !ok {
		t.Fatal("Prestart kept no editor")
	}
	ed, err := StartEditor(ctx, java)
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	if w := v.(*warming); w.e != ed {
		t.Error("StartEditor did not take the prestarted editor")
	}
	if _, ok := prestarted.Load(java); ok {
		t.Error("the prestarted editor is still there after StartEditor took it")
	}
	info, err := ed.Info("class A { void m() {} }", "A")
	if err != nil || info.Method("m") == nil {
		t.Fatalf("the prestarted editor answered %+v, %v; want method m", info, err)
	}

	missing := filepath.Join(t.TempDir(), "no-java")
	Prestart(missing)
	if _, err := StartEditor(ctx, missing); err == nil {
		t.Error("StartEditor with a java that does not exist succeeded")
	}
}

// TestBindSites checks which socket binds the bytecode scan reports: those
// whose port may be fixed (a constant other than 0, a field, a parameter),
// and not those traced to port 0 or to no address, through locals and
// InetSocketAddress constructors alike.
func TestBindSites(t *testing.T) {
	java := javaOnPath(t)
	javac, err := exec.LookPath("javac")
	if err != nil {
		t.Fatal("javac not on PATH")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "Servers.java")
	os.WriteFile(src, []byte(`package p;
import java.net.*;
import java.nio.channels.*;
import com.sun.net.httpserver.HttpServer;
public class Servers {
  static final int PORT = 8192;
  int port = 9000;
  void ephemeral() throws Exception {
    new ServerSocket(0).close();
    new ServerSocket(0, 1, InetAddress.getLoopbackAddress()).close();
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    int zero = 0;
    InetSocketAddress a = new InetSocketAddress(zero);
    s.bind(a);
    ServerSocketChannel.open().bind(null);
    HttpServer.create(new InetSocketAddress(0), 0);
    new DatagramSocket(null);
  }
  void constant() throws Exception {
    new ServerSocket(PORT).close();
  }
  void field() throws Exception {
    new ServerSocket().bind(new InetSocketAddress("localhost", port));
  }
  void parameter(int p) throws Exception {
    DatagramSocket d = new DatagramSocket(null);
    d.bind(new InetSocketAddress(p));
  }
  void channel() throws Exception {
    ServerSocketChannel.open().bind(new InetSocketAddress(8080), 50);
  }
  void client() throws Exception {
    new Socket().connect(new InetSocketAddress(8080));
  }
}
`), 0o644)
	out := filepath.Join(dir, "classes")
	if b, err := exec.Command(javac, "-g", "-d", out, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, b)
	}
	var sites []BindSite
	if err := Lend(java, func(e *Editor) (err error) {
		sites, err = e.BindSites([]string{out, filepath.Join(dir, "missing")})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sites {
		got = append(got, s.String())
	}
	want := []string{
		"p.Servers.constant (line 21) binds port 8192 with java.net.ServerSocket#<init>",
		"p.Servers.field (line 24) binds a port that is not a constant with java.net.ServerSocket#bind",
		"p.Servers.parameter (line 28) binds a port that is not a constant with java.net.DatagramSocket#bind",
		"p.Servers.channel (line 31) binds port 8080 with java.nio.channels.ServerSocketChannel#bind",
	}
	if !slices.Equal(got, want) {
		t.Errorf("sites:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The editor lent is kept for the next StartEditor.
	if _, ok := prestarted.Load(java); !ok {
		t.Error("the lent editor was not kept")
	}
	ed, err := StartEditor(context.Background(), java)
	if err != nil {
		t.Fatal(err)
	}
	ed.Close()
}
