package e2e

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"
	openai "github.com/sashabaranov/go-openai"

	"github.com/flakyhq/flaky/internal/engine/launcher"
	"github.com/flakyhq/flaky/internal/report"
)

// scriptedLLM is an OpenAI-compatible chat endpoint that answers the prompts
// for each test with the next of its scripted answers and keeps the prompts.
type scriptedLLM struct {
	mu      sync.Mutex
	answers map[string][]string // test -> answers in order
	prompts map[string][]string // test -> prompts received
	stray   []string            // paths of requests other than chat completions
}

var promptTest = regexp.MustCompile("Repair the flaky test `([^`]+)`")

func (s *scriptedLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req openai.ChatCompletionRequest
	if r.URL.Path != "/v1/chat/completions" {
		s.mu.Lock()
		s.stray = append(s.stray, r.URL.Path)
		s.mu.Unlock()
	}
	if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) == 0 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	prompt := req.Messages[len(req.Messages)-1].Content
	m := promptTest.FindStringSubmatch(prompt)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m == nil || len(s.answers[m[1]]) <= len(s.prompts[m[1]]) {
		http.Error(w, "unscripted prompt", http.StatusBadRequest)
		return
	}
	answer := s.answers[m[1]][len(s.prompts[m[1]])]
	s.prompts[m[1]] = append(s.prompts[m[1]], prompt)
	json.NewEncoder(w).Encode(openai.ChatCompletionResponse{
		ID: "scripted", Object: "chat.completion", Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: answer}, FinishReason: openai.FinishReasonStop}},
	})
}

// needsSandbox skips a test whose LLM patches need the sandbox for
// model-written code where the machine has none, or fails it where
// FLAKY_NEED_SANDBOX is set (CI).
func needsSandbox(t *testing.T) {
	t.Helper()
	if err := launcher.ConfinementAvailable(); err != nil {
		if os.Getenv("FLAKY_NEED_SANDBOX") != "" {
			t.Fatalf("FLAKY_NEED_SANDBOX is set: %v", err)
		}
		t.Skipf("the LLM's patches need a sandbox: %v", err)
	}
}

// TestRepairApply runs `flaky repair --apply` on the repair fixture with its
// findings as the report (plus a constructed polluted state) and a scripted
// LLM endpoint, then checks every finding's validated patch, that the files
// changed only in the patched lines (classes the files import named
// simply), and that the failing orders pass with flaky run-order and with
// plain Maven. The LLM's answers try what a model's patch must not get
// away with: one writes files outside the sandbox (in the module itself
// and elsewhere) and calls the endpoint, none of which happens, the
// sandbox being confined; one deletes the assertion, which the meaning
// check rejects with the reason before it runs.
func TestRepairApply(t *testing.T) {
	t.Parallel()
	needsTools(t)
	needsSandbox(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "repair")
	e := readExpected(t, dir)

	const (
		idTest    = "fixture.repair.IdTest#firstIdIsOne"
		modeTest  = "fixture.repair.ModeTest#defaultModeIsSafe"
		flagsTest = "fixture.repair.FlagsTest#quietByDefault"
		// Victims whose reset-method only the bytecode search finds: in
		// another class, on an instance singleton, and a 2-call sequence
		// with the polluter's literals.
		cacheTest   = "fixture.repair.CacheColdTest#startsCold"
		sessionTest = "fixture.repair.SessionTest#startsAnonymous"
		pluginsTest = "fixture.repair.PluginsTest#noneLoaded"
	)
	// The report: the expected findings with the polluted states the
	// root-cause analysis records, except that the flags victim has no
	// state but the return-value modifier the invariant analysis reports,
	// and the id victim gets the state detect cannot name (Ids is first
	// initialised by the victim in its passing order), which no
	// reset-method and no reflective restore reaches.
	rep := report.Report{Version: report.Version, Module: "repair"}
	for _, f := range e.Findings {
		rep.Findings = append(rep.Findings, report.Finding{Test: f.Test, Kind: report.Kind(f.Kind), Polluters: f.Polluters, Setters: f.Setters, Cleaners: f.Cleaners, PollutedState: f.PollutedState})
		switch last := &rep.Findings[len(rep.Findings)-1]; {
		case f.Test == flagsTest:
			last.PollutedState = nil
			last.ReturnValueModifiers = []report.MethodCandidate{{Method: "fixture.repair.Flags.setVerbose(boolean)",
				Test: "fixture.repair.VerboseTest#turnsVerboseOn", Variable: "fixture.repair.Flags.verbose()", Restores: true}}
		case f.Test == idTest && f.Kind == string(report.ODVictim):
			last.PollutedState = []report.StateItem{{Kind: "static-field", Root: "fixture.repair.Ids.LAST", Path: ".value", Passing: "0", Failing: "1"}}
		}
	}
	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	os.MkdirAll(filepath.Dir(reportPath), 0o755)
	if err := report.Write(reportPath, &rep); err != nil {
		t.Fatal(err)
	}

	// The LLM: a patch that compiles but fixes nothing and tries to leave
	// the sandbox (it calls the endpoint, then writes a file in the module
	// itself and one in another folder), one that deletes the assertion
	// (it would pass), one that does not compile, then one that needs two
	// imports and its public modifier and @Test annotation back.
	llm := &scriptedLLM{prompts: map[string][]string{}}
	srv := httptest.NewServer(llm)
	defer srv.Close()
	elsewhere := filepath.Join(t.TempDir(), "escaped.txt")
	inModule := filepath.Join(dir, "ESCAPED.txt")
	llm.answers = map[string][]string{idTest: {
		"Here is the fix:\n```java\n@Test\npublic void firstIdIsOne() throws Exception {\n" +
			"    try {\n        new java.net.URL(\"" + srv.URL + "/leak\").openStream().close();\n    } catch (java.io.IOException e) {\n    }\n" +
			"    java.nio.file.Files.write(java.nio.file.Paths.get(\"" + inModule + "\"), \"x\".getBytes());\n" +
			"    java.nio.file.Files.write(java.nio.file.Paths.get(\"" + elsewhere + "\"), \"x\".getBytes());\n" +
			"    // ids start at one\n    assertEquals(1, Ids.next());\n}\n```\n",
		"```java\n@Test\npublic void firstIdIsOne() {\n    Ids.next();\n}\n```",
		"```java\n@Test\npublic void firstIdIsOne() {\n    Ids.reset();\n    assertEquals(1, Ids.next());\n}\n```",
		"```java\nvoid firstIdIsOne() throws Exception {\n    Field last = Ids.class.getDeclaredField(\"LAST\");\n    last.setAccessible(true);\n" +
			"    ((AtomicLong) last.get(null)).set(0);\n    assertEquals(1, Ids.next());\n}\n```",
	}}

	// The fixture as a Git repository, as a user's tree would be (build
	// output ignored).
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("/target/\n"), 0o644)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=e2e", "-c", "user.email=e2e@localhost", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "fixture")

	originals := map[string][]byte{}
	src := filepath.Join(dir, "src", "test", "java", "fixture", "repair")
	files, _ := filepath.Glob(filepath.Join(src, "*.java"))
	for _, f := range files {
		originals[f], _ = os.ReadFile(f)
	}

	// The failing orders of all findings in one order file: every victim
	// after its polluter, the NIO test twice, the brittle without its setter.
	order := []string{"fixture.repair.IdUserTest#allocatesId", idTest, idTest,
		"fixture.repair.RegistryWriterTest#registersPlugin", "fixture.repair.RegistryReaderTest#startsEmpty",
		"fixture.repair.RegistryReaderTest#listsNoPdf", "fixture.repair.RegistryViewTest#rendersEmpty",
		"fixture.repair.GreeterTest#greetsInConfiguredLanguage", "fixture.repair.SwitchModeTest#switchesToFast", modeTest,
		"fixture.repair.VerboseTest#turnsVerboseOn", flagsTest,
		"fixture.repair.CacheWarmTest#cachesPage", cacheTest, "fixture.repair.SignInTest#signsIn", sessionTest,
		"fixture.repair.PluginsUserTest#loadsPdfAndCsv", pluginsTest,
		"fixture.repair.GermanTest#switchesLocale", "fixture.repair.DecimalTest#usesPoint",
		"fixture.repair.TravelTest#movesToChatham", "fixture.repair.ClockTest#keepsZone",
		"fixture.repair.LockTest#takesLock", "fixture.repair.LockFreeTest#noLockHeld",
		"fixture.repair.NightModeTest#darkens", "fixture.repair.AppearanceTest#startsLight"}
	orderFile := filepath.Join(dir, "failing-order.txt")
	os.WriteFile(orderFile, []byte(strings.Join(order, "\n")+"\n"), 0o644)

	cmd := exec.Command(bin, "repair", "--module", dir, "--apply", "--allow-reflection")
	cmd.Env = append(os.Environ(), "FLAKY_LLM_URL="+srv.URL+"/v1", "FLAKY_LLM_MODEL=scripted")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("flaky repair: %v\n%s", err, out)
	}
	t.Logf("flaky repair --apply: %s\n%s", time.Since(start).Round(time.Second), out)
	got, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	wantKind := map[string]string{
		"fixture.repair.GreeterTest#greetsInConfiguredLanguage": report.RepairSetter,
		"fixture.repair.RegistryReaderTest#startsEmpty":         report.RepairCleaner,
		"fixture.repair.RegistryReaderTest#listsNoPdf":          report.RepairCleaner,
		"fixture.repair.RegistryViewTest#rendersEmpty":          report.RepairCleaner,
		modeTest:                                    report.RepairReset,
		flagsTest:                                   report.RepairReset,
		"fixture.repair.DecimalTest#usesPoint":      report.RepairReset,
		"fixture.repair.ClockTest#keepsZone":        report.RepairReset,
		"fixture.repair.LockFreeTest#noLockHeld":    report.RepairReset,
		"fixture.repair.AppearanceTest#startsLight": report.RepairReset,
		cacheTest:   report.RepairReset,
		sessionTest: report.RepairReset,
		pluginsTest: report.RepairReset,
		idTest:      report.RepairLLM,
	}
	for _, f := range got.Findings {
		r := f.Repair
		if r == nil || !r.Validated || r.Kind != wantKind[f.Test] || r.Patch == "" || len(r.Evidence) == 0 {
			t.Errorf("%s %s: repair %+v, want a validated %s patch", f.Kind, f.Test, r, wantKind[f.Test])
			continue
		}
		if f.Test == idTest && f.Kind == report.ODVictim && r.Evidence[0] != "not repaired symbolically: no cleaner; static field fixture.repair.Ids.LAST: no reset-method in the module's bytecode; its state differs inside its object (.value), which no reflective restore of the field reaches" {
			t.Errorf("%s: evidence %q, want the reason it was not repaired symbolically first", f.Test, r.Evidence)
		}
		if ev := strings.Join(r.Evidence, "\n"); !strings.Contains(ev, "test meaning kept (compared on the parsed sources)") && !strings.HasPrefix(ev, "fixed by the patch for") {
			t.Errorf("%s: evidence %q, want the meaning check's", f.Test, r.Evidence)
		}
		if ev := strings.Join(r.Evidence, "\n"); f.Test == idTest && f.Kind == report.ODVictim && !strings.Contains(ev, "the model's code ran confined: no network") {
			t.Errorf("%s: evidence %q, want the LLM patch's sandbox", f.Test, r.Evidence)
		}
		if _, err := os.Stat(r.Patch); err != nil {
			t.Errorf("%s: patch file: %v", f.Test, err)
		}
	}

	// Every format was written from the repaired report: the summary shows the proposed fixes.
	checkRepublished(t, filepath.Dir(reportPath), nil)
	if md, _ := os.ReadFile(filepath.Join(filepath.Dir(reportPath), "summary.md")); !strings.Contains(string(md), "Proposed fix (") {
		t.Errorf("summary.md shows no proposed fix after flaky repair:\n%s", md)
	}

	// git diff shows the patched files only (target/ is ignored), and in
	// them only the patched lines.
	gotFiles := strings.Fields(git("diff", "--name-only"))
	var wantFiles []string
	for _, f := range []string{"CacheWarmTest", "GermanTest", "GreeterTest", "IdTest", "LockTest", "NightModeTest", "PluginsUserTest", "RegistryWriterTest", "SignInTest", "SwitchModeTest", "TravelTest", "VerboseTest"} {
		wantFiles = append(wantFiles, "src/test/java/fixture/repair/"+f+".java")
	}
	if !slices.Equal(gotFiles, wantFiles) {
		t.Errorf("git diff --name-only: %q, want %q", gotFiles, wantFiles)
	}
	changes := map[string][2]string{}
	for f, before := range originals {
		after, _ := os.ReadFile(f)
		removed, added := "", ""
		for _, ed := range udiff.Lines(string(before), string(after)) {
			removed += string(before)[ed.Start:ed.End]
			added += ed.New
		}
		if removed != "" || added != "" {
			changes[filepath.Base(f)] = [2]string{removed, added}
		}
	}
	want := map[string][2]string{
		"GreeterTest.java":        {"", "import org.junit.Before;\r\n\r\n\t@Before\r\n\tpublic void resetSharedState() {\r\n\t\tConfig.load(\"en\");\r\n\t}\r\n"},
		"RegistryWriterTest.java": {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        emptyRegistry();\n    }\n\n    }\n\n    private static void emptyRegistry() {\n        Registry.clear();\n"},
		"SwitchModeTest.java":     {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        System.clearProperty(\"fixture.mode\");\n    }\n\n"},
		"VerboseTest.java":        {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        Flags.setVerbose(false);\n    }\n\n"},
		"CacheWarmTest.java":      {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        CacheAdmin.purge();\n    }\n\n"},
		"SignInTest.java":         {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        Session.getInstance().invalidate();\n    }\n\n"},
		"PluginsUserTest.java":    {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n        Plugins.unload(\"pdf\");\n        Plugins.unload(\"csv\");\n    }\n\n"},
		"GermanTest.java": {"", "import org.junit.After;\n" +
			"    private static final Locale INITIAL_FORMAT_LOCALE = Locale.getDefault(Locale.Category.FORMAT);\n\n" +
			"    @After\n    public void restoreSharedState() {\n" +
			"        Locale.setDefault(Locale.Category.FORMAT, INITIAL_FORMAT_LOCALE);\n    }\n\n"},
		"TravelTest.java": {"", "import org.junit.After;\n" +
			"    private static final TimeZone INITIAL_TIME_ZONE = TimeZone.getDefault();\n\n" +
			"    @After\n    public void restoreSharedState() {\n        TimeZone.setDefault(INITIAL_TIME_ZONE);\n    }\n\n"},
		"LockTest.java": {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() {\n" +
			"        new File(System.getProperty(\"java.io.tmpdir\"), \"fixture-repair.lock\").delete();\n    }\n\n"},
		"NightModeTest.java": {"", "import org.junit.After;\n    @After\n    public void restoreSharedState() throws Exception {\n" +
			"        java.lang.reflect.Field themeField = Class.forName(\"fixture.repair.Appearance\").getDeclaredField(\"theme\");\n" +
			"        themeField.setAccessible(true);\n" +
			"        themeField.set(null, Enum.valueOf((Class) themeField.getType(), \"LIGHT\"));\n    }\n\n"},
		"IdTest.java": {"    public void firstIdIsOne() {\n", "import java.lang.reflect.Field;\nimport java.util.concurrent.atomic.AtomicLong;\n" +
			"    public void firstIdIsOne() throws Exception {\n        Field last = Ids.class.getDeclaredField(\"LAST\");\n        last.setAccessible(true);\n" +
			"        ((AtomicLong) last.get(null)).set(0);\n"},
	}
	for name, w := range want {
		if changes[name] != w {
			t.Errorf("%s: removed %q added %q\nwant removed %q added %q", name, changes[name][0], changes[name][1], w[0], w[1])
		}
	}
	if len(changes) != len(want) {
		t.Errorf("changed files %v, want %d", changes, len(want))
	}

	// The LLM loop: four prompts, each after the first with the feedback on
	// the attempt before: the escape failed on the read-only file system,
	// the deleted assertion was refused with its reason.
	prompts := llm.prompts[idTest]
	if len(prompts) != 4 {
		t.Fatalf("%d prompts for %s, want 4", len(prompts), idTest)
	}
	for _, p := range []struct {
		prompt int
		want   string
	}{{0, "fixture.repair.IdUserTest#allocatesId"}, {0, "expected:<1> but was:<2>"},
		{1, "does not fix the test"}, {1, "Read-only file system"},
		{2, "the patch weakens the test: removes or changes the assertion `assertEquals(1, Ids.next())` in IdTest#firstIdIsOne()"},
		{3, "cannot find symbol"}} {
		if !strings.Contains(prompts[p.prompt], p.want) {
			t.Errorf("prompt %d lacks %q:\n%s", p.prompt+1, p.want, prompts[p.prompt])
		}
	}
	if logs, _ := filepath.Glob(filepath.Join(dir, "target", "flaky", "repair", "llm", "*")); len(logs) != 8 {
		t.Errorf("LLM log files %v, want 4 prompts and 4 answers", logs)
	}
	for _, f := range []string{inModule, elsewhere} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("the model's patch wrote %s outside the sandbox", f)
		}
	}
	if len(llm.stray) > 0 {
		t.Errorf("the model's patch reached the endpoint from the sandbox: %q", llm.stray)
	}

	// The failing orders pass: with flaky run-order and with plain Maven.
	if out, err := exec.Command(bin, "run-order", "--module", dir, "--order", orderFile).CombinedOutput(); err != nil {
		t.Errorf("flaky run-order after repair: %v\n%s", err, out)
	}
	start = time.Now()
	flakyInit(t, dir)
	defer func() { t.Logf("run-order and Maven: %s", time.Since(start).Round(time.Second)) }()
	if out, code := mvnRun(t, dir, "-Pflaky", "test", "-Dflaky.testFailureIgnore=false", "-Dflaky.order="+orderFile); code != 0 {
		t.Errorf("plain Maven with the failing orders after repair failed:\n%s", tail(out))
	}
}

// TestRepairShared runs `flaky repair --apply` twice on the repair-shared
// fixture with its findings as the report: one reset in a new @After of the
// polluter (its class named simply, as the polluter's file imports it)
// fixes the three victims in three classes, the first although its failing
// order holds an @Ignore'd test, and the other two going from fail to pass
// in the default order; all three point at one diff, every diff applies to
// a clean copy of the fixture on its own, and the second run changes
// nothing.
func TestRepairShared(t *testing.T) {
	t.Parallel()
	needsTools(t)
	bin := flakyBin(t)
	dir := copyFixture(t, "repair-shared")
	clean := copyFixture(t, "repair-shared")
	rep, err := report.Read(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	reportPath := filepath.Join(dir, "target", "flaky", "report.json")
	os.MkdirAll(filepath.Dir(reportPath), 0o755)
	if err := report.Write(reportPath, rep); err != nil {
		t.Fatal(err)
	}
	repair := func() string {
		t.Helper()
		start := time.Now()
		out, err := exec.Command(bin, "repair", "--module", dir, "--apply", "--no-llm").CombinedOutput()
		if err != nil {
			t.Fatalf("flaky repair --apply: %v\n%s", err, out)
		}
		t.Logf("flaky repair --apply: %s\n%s", time.Since(start).Round(time.Second), out)
		return string(out)
	}
	sources := func() map[string]string {
		t.Helper()
		files := map[string]string{}
		err := filepath.WalkDir(filepath.Join(dir, "src"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, err := os.ReadFile(p)
				files[p] = string(data)
				return err
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	original := sources()

	repair()
	got, err := report.Read(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	const polluter = "src/test/java/fixture/shared/a/LoaderTest.java"
	patches := map[string]bool{}
	for _, f := range got.Findings {
		r := f.Repair
		if r == nil || !r.Validated || r.Kind != report.RepairReset || r.Patch == "" || !slices.Equal(r.Files, []string{polluter}) {
			t.Errorf("%s: repair %+v, want a validated reset of %s", f.Test, r, polluter)
			continue
		}
		patches[r.Patch] = true
	}
	if len(patches) != 1 {
		t.Errorf("patches %v, want one diff for all three victims", patches)
	}
	if ev := strings.Join(got.Findings[0].Repair.Evidence, "\n"); !strings.Contains(ev, "2 known victim(s) now pass") {
		t.Errorf("%s: evidence %q, want the two other victims passing in the default order", got.Findings[0].Test, ev)
	}
	diffs, _ := filepath.Glob(filepath.Join(dir, "target", "flaky", "repair", "*.diff"))
	if len(diffs) != 1 {
		t.Errorf("diffs %v, want one", diffs)
	}
	for _, d := range diffs {
		data, _ := os.ReadFile(d)
		if !strings.Contains(string(data), "+        Plugins.reset();\n") || strings.Contains(string(data), "fixture.shared.state.Plugins.reset") {
			t.Errorf("%s: want Plugins.reset() by its simple name in the polluter's tear-down:\n%s", d, data)
		}
		cmd := exec.Command("git", "apply", "--check", d)
		cmd.Dir = clean
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git apply --check %s on a clean copy: %v\n%s", filepath.Base(d), err, out)
		}
	}
	applied := sources()
	for p, content := range applied {
		if changed := content != original[p]; changed != strings.HasSuffix(filepath.ToSlash(p), polluter) {
			t.Errorf("%s: changed %v by --apply", p, changed)
		}
	}

	out := repair()
	if again := sources(); !maps.Equal(again, applied) {
		t.Errorf("the second flaky repair --apply changed the sources")
	}
	if n := strings.Count(out, "unchanged  od-victim"); n != 3 || strings.Contains(out, "patched ") {
		t.Errorf("second run: %d findings unchanged, want 3 and nothing patched:\n%s", n, out)
	}
}
