package repair

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/fix/editor"
)

// meaningJUnit4 is a JUnit 4 test class: a plain assertion, an expected
// exception, a timeout and a Locale-sensitive and an order-sensitive
// assertion that the API templates rewrite.
const meaningJUnit4 = `package fixture;

import org.junit.Test;

import java.util.HashSet;
import java.util.List;

import static org.junit.Assert.assertEquals;

public class IdTest {
    private List<String> names;

    @Test
    public void firstIdIsOne() {
        assertEquals(1, Ids.next());
    }

    @Test(expected = IllegalStateException.class)
    public void refusesNegative() {
        Ids.take(-1);
    }

    @Test(timeout = 1000)
    public void nextIsFast() {
        Ids.next();
    }

    @Test
    public void shoutsTitle() {
        assertEquals("TITLE", Names.title().toUpperCase());
        assertEquals("[a, b]", new HashSet<>(names).toString());
    }
}
`

// meaningJupiter is a Jupiter test class with a timeout annotation.
const meaningJupiter = `package fixture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ModeTest {
    @Test
    @Timeout(5)
    void defaultModeIsSafe() {
        assertEquals("safe", Mode.current());
    }

    @Test
    void refusesUnknown() {
        assertThrows(IllegalArgumentException.class, () -> Mode.set("x"));
    }
}
`

// meaningTestNG is a TestNG test class with expected exceptions.
const meaningTestNG = `package fixture;

import org.testng.annotations.Test;

import static org.testng.Assert.assertTrue;

public class FlagsTest {
    @Test(expectedExceptions = IllegalStateException.class, timeOut = 2000)
    public void refusesTwice() {
        Flags.lock();
        Flags.lock();
    }

    @Test
    public void quietByDefault() {
        assertTrue(!Flags.verbose());
    }
}
`

// TestWeakening runs the meaning check with the real source editor on
// patches of three test classes: every patch that loses an assertion, a
// test, an expected exception or a timeout, or adds a disabling
// annotation, an assumption, a swallowing catch, an early return or a
// shadowing assertion method is rejected with the reason; the legitimate
// fixes (a new tear-down reset, a statement before the assertion, the API
// templates' Locale.ROOT, ordered collection and sorted copy inside an
// assertion's actual value, a poll before an assertion, a try/finally, a
// rethrowing catch, reformatting, a new timeout) are accepted; a rewritten
// expected literal and a poll that takes the assertion into its loop are
// not.
func TestWeakening(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the source editor's JVM: skipped with -short")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Fatal("java not on PATH")
	}
	ed, err := editor.StartEditor(context.Background(), java)
	if err != nil {
		t.Fatal(err)
	}
	defer ed.Close()
	files := map[string]string{
		"src/test/java/fixture/IdTest.java":    meaningJUnit4,
		"src/test/java/fixture/ModeTest.java":  meaningJupiter,
		"src/test/java/fixture/FlagsTest.java": meaningTestNG,
	}
	dir := t.TempDir()
	for rel, src := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &run{cfg: Config{Module: Module{Dir: dir}}, ed: ed}

	const (
		first = "        assertEquals(1, Ids.next());\n"
		ids   = "src/test/java/fixture/IdTest.java"
		mode  = "src/test/java/fixture/ModeTest.java"
		flags = "src/test/java/fixture/FlagsTest.java"
	)
	tests := []struct {
		name     string
		file     string
		old, new string // the patch: old replaced by new in the file
		want     string // the first reason; empty: accepted
	}{
		// Rejected.
		{"removed assertion", ids, first, "        Ids.next();\n",
			"removes or changes the assertion `assertEquals(1, Ids.next())` in IdTest#firstIdIsOne()"},
		{"changed expected value", ids, first, "        assertEquals(Ids.peek() + 1, Ids.next());\n",
			"removes or changes the assertion `assertEquals(1, Ids.next())` in IdTest#firstIdIsOne()"},
		{"assertion under a condition", ids, first, "        if (Ids.peek() == 0) {\n    " + first + "        }\n",
			"removes or changes the assertion `assertEquals(1, Ids.next())` in IdTest#firstIdIsOne()"},
		{"assertion moved to a helper", ids, first + "    }\n", "        check();\n    }\n\n    private void check() {\n" + first + "    }\n",
			"removes or changes the assertion `assertEquals(1, Ids.next())` in IdTest#firstIdIsOne()"},
		{"added @Ignore", ids, "    @Test\n    public void firstIdIsOne", "    @org.junit.Ignore\n    @Test\n    public void firstIdIsOne",
			"disables IdTest#firstIdIsOne() with `@org.junit.Ignore`"},
		{"assumeTrue(false)", ids, first, "        org.junit.Assume.assumeTrue(false);\n" + first,
			"adds the assumption `org.junit.Assume.assumeTrue(false)` to IdTest#firstIdIsOne(), which skips the test instead of failing it"},
		{"thrown assumption", ids, first, "        if (Ids.peek() > 0) throw new org.junit.AssumptionViolatedException(\"polluted\");\n" + first,
			"adds the assumption `throw new org.junit.AssumptionViolatedException(\"polluted\");` to IdTest#firstIdIsOne()"},
		{"catch that swallows the assertion", ids, first, "        try {\n    " + first + "        } catch (AssertionError e) {\n        }\n",
			"adds a `catch (AssertionError)` in IdTest#firstIdIsOne() that swallows the failure"},
		{"catch Throwable around the body", ids, "        Ids.next();\n    }\n\n    @Test\n    public void shoutsTitle",
			"        try {\n            Ids.next();\n        } catch (Throwable t) {\n            t.printStackTrace();\n        }\n    }\n\n    @Test\n    public void shoutsTitle",
			"adds a `catch (Throwable)` in IdTest#nextIsFast() that swallows the failure"},
		{"changed expected exception", ids, "expected = IllegalStateException.class", "expected = RuntimeException.class",
			"removes or changes the expected exception `expected = IllegalStateException.class` of IdTest#refusesNegative()"},
		{"removed expected exception", ids, "@Test(expected = IllegalStateException.class)", "@Test",
			"removes or changes the expected exception `expected = IllegalStateException.class` of IdTest#refusesNegative()"},
		{"added expected exception", ids, "    @Test\n    public void firstIdIsOne", "    @Test(expected = AssertionError.class)\n    public void firstIdIsOne",
			"adds the expected exception `expected = AssertionError.class` to IdTest#firstIdIsOne()"},
		{"changed timeout", ids, "timeout = 1000", "timeout = 100000",
			"removes or changes the timeout `timeout = 1000` of IdTest#nextIsFast()"},
		{"removed @Test", ids, "    @Test\n    public void firstIdIsOne", "    public void firstIdIsOne",
			"removes the test IdTest#firstIdIsOne() or its test annotation"},
		{"early return", ids, first, "        if (Ids.peek() > 0) {\n            return;\n        }\n" + first,
			"adds `return;` to IdTest#firstIdIsOne(), which can end the test before its assertions"},
		{"shadowing assertEquals", ids, "    @Test\n    public void firstIdIsOne", "    static void assertEquals(long a, long b) {\n    }\n\n    @Test\n    public void firstIdIsOne",
			"declares its own assertEquals (IdTest#assertEquals(long, long)), which can shadow the assertion the test calls"},
		{"Jupiter @Disabled", mode, "    @Test\n    void refusesUnknown", "    @org.junit.jupiter.api.Disabled(\"flaky\")\n    @Test\n    void refusesUnknown",
			"disables ModeTest#refusesUnknown() with `@org.junit.jupiter.api.Disabled(\"flaky\")`"},
		{"Jupiter @Timeout removed", mode, "    @Timeout(5)\n", "",
			"removes or changes the timeout `@Timeout(5)` of ModeTest#defaultModeIsSafe()"},
		{"Jupiter assumption", mode, "        assertEquals(\"safe\"", "        org.junit.jupiter.api.Assumptions.assumeTrue(Mode.current() != null);\n        assertEquals(\"safe\"",
			"adds the assumption `org.junit.jupiter.api.Assumptions.assumeTrue(Mode.current() != null)` to ModeTest#defaultModeIsSafe()"},
		{"Jupiter assertThrows weakened", mode, "assertThrows(IllegalArgumentException.class", "assertThrows(RuntimeException.class",
			"removes or changes the assertion `assertThrows(IllegalArgumentException.class, () -> Mode.set(\"x\"))` in ModeTest#refusesUnknown()"},
		{"TestNG expectedExceptions changed", flags, "expectedExceptions = IllegalStateException.class", "expectedExceptions = Exception.class",
			"removes or changes the expected exception `expectedExceptions = IllegalStateException.class` of FlagsTest#refusesTwice()"},
		{"TestNG timeOut removed", flags, ", timeOut = 2000", "",
			"removes or changes the timeout `timeOut = 2000` of FlagsTest#refusesTwice()"},
		{"TestNG enabled = false", flags, "    @Test\n    public void quietByDefault", "    @Test(enabled = false)\n    public void quietByDefault",
			"disables FlagsTest#quietByDefault() with `enabled = false`"},
		{"TestNG negated condition", flags, "assertTrue(!Flags.verbose())", "assertTrue(Flags.verbose() || !Flags.verbose())",
			"removes or changes the assertion `assertTrue(!Flags.verbose())` in FlagsTest#quietByDefault()"},

		// Accepted.
		{"tear-down reset", ids, "import org.junit.Test;\n", "import org.junit.After;\nimport org.junit.Test;\n", ""},
		{"reset before the assertion", ids, first, "        Ids.reset();\n" + first, ""},
		{"Locale.ROOT in the actual value", ids, "Names.title().toUpperCase()", "Names.title().toUpperCase(java.util.Locale.ROOT)", ""},
		{"ordered collection in the actual value", ids, "new HashSet<>(names)", "new java.util.LinkedHashSet<>(names)", ""},
		{"sorted copy in the actual value", ids, "new HashSet<>(names).toString()", "new HashSet<>(names).stream().sorted().collect(java.util.stream.Collectors.toList()).toString()", ""},
		{"the expected literal rewritten as a list", ids, `assertEquals("[a, b]", new HashSet<>(names).toString())`,
			`assertEquals(java.util.Arrays.asList("a").stream().sorted().collect(java.util.stream.Collectors.toList()), names.stream().sorted().collect(java.util.stream.Collectors.toList()))`,
			"removes or changes the assertion `assertEquals(\"[a, b]\", new HashSet<>(names).toString())` in IdTest#shoutsTitle()"},
		{"a poll before the assertion", flags, "        assertTrue(!Flags.verbose());\n",
			"        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);\n        while (Flags.verbose() && System.nanoTime() - deadline < 0) {\n            Thread.yield();\n        }\n        assertTrue(!Flags.verbose());\n", ""},
		{"the poll takes the assertion in", flags, "        assertTrue(!Flags.verbose());\n",
			"        while (Flags.verbose()) {\n            assertTrue(!Flags.verbose());\n        }\n",
			"removes or changes the assertion `assertTrue(!Flags.verbose())` in FlagsTest#quietByDefault()"},
		{"try/finally around the body", ids, first, "        try {\n    " + first + "        } finally {\n            Ids.reset();\n        }\n", ""},
		{"rethrowing catch", ids, "        Ids.take(-1);\n", "        try {\n            Ids.take(-1);\n        } catch (Exception e) {\n            throw new IllegalStateException(e);\n        }\n", ""},
		{"reformatted with a comment", ids, first, "        // the sequence starts at one\n        assertEquals(1,\n                Ids.next());\n", ""},
		{"timeout added", ids, "    @Test\n    public void firstIdIsOne", "    @Test(timeout = 5000)\n    public void firstIdIsOne", ""},
		{"Jupiter set-up added", mode, "class ModeTest {\n", "class ModeTest {\n    @org.junit.jupiter.api.BeforeEach\n    void resetMode() {\n        Mode.set(\"safe\");\n    }\n\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := files[tt.file]
			if !strings.Contains(before, tt.old) {
				t.Fatalf("%s holds no %q", tt.file, tt.old)
			}
			after := strings.Replace(before, tt.old, tt.new, 1)
			if tt.name == "tear-down reset" {
				after = strings.Replace(after, "    private List<String> names;\n", "    private List<String> names;\n\n    @After\n    public void restoreSharedState() {\n        Ids.reset();\n    }\n", 1)
			}
			reasons, evidence, err := r.weakening(map[string][]byte{tt.file: []byte(after)})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want == "" && len(reasons) > 0:
				t.Errorf("rejected: %q, want accepted", reasons)
			case tt.want == "" && !strings.HasPrefix(evidence, "test meaning kept"):
				t.Errorf("evidence %q, want what the check compared", evidence)
			case tt.want != "" && len(reasons) == 0:
				t.Errorf("accepted, want rejected: %s", tt.want)
			case tt.want != "" && !strings.HasPrefix(reasons[0], tt.want):
				t.Errorf("reason %q, want %q", reasons, tt.want)
			}
		})
	}
}
