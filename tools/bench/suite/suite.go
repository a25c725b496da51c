// Package suite generates the large Maven module of the data-dependency
// benchmark: JUnit 4 test classes of equal size that run in a
// known order (classes alphabetically, methods by name), among which a few
// planted order dependencies hide — victims whose polluter runs after them
// and brittles whose state-setter runs before them, each on its own static
// field — and many benign shared reads: every test reads a map that its
// class's static initialiser fills (no data dependency), and some classes
// count their tests in a static field that their first test writes and the
// others read without asserting on it (data dependencies that are benign).
package suite

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/flakyhq/flaky/internal/report"
)

// Options shape a generated suite.
type Options struct {
	Classes, Methods int // test classes and test methods per class
	Victims          int // planted victims (each with one polluter)
	Brittles         int // planted brittles (each with one state-setter)
	// Benign is the number of classes whose tests read a counter their first
	// test wrote: Methods-1 benign data dependencies each.
	Benign int
}

// Default is the benchmark's suite: 2,000 tests, 10 victims and 10
// brittles, 190 benign data dependencies.
var Default = Options{Classes: 100, Methods: 20, Victims: 10, Brittles: 10, Benign: 10}

// Planted is one planted order dependency, as a finding.
type Planted struct {
	Test   string      // the victim or brittle
	Kind   report.Kind // od-victim or od-brittle
	Writer string      // its polluter or state-setter
	Root   string      // the static field between them
}

// Package is the Java package of the generated classes.
const Package = "bench.suite"

// Write writes the module into dir (which must exist) and returns its
// planted dependencies.
func Write(dir string, o Options) ([]Planted, error) {
	if o.Classes < 10 || o.Methods < 4 || o.Victims+o.Brittles > o.Classes/2 || o.Benign > o.Classes/10 {
		return nil, fmt.Errorf("suite: %+v: want at least 10 classes of 4 methods, at most one planted dependency per two classes and one benign class per ten", o)
	}
	plan := newPlan(o)
	src := filepath.Join(dir, "src", "test", "java", "bench", "suite")
	main := filepath.Join(dir, "src", "main", "java", "bench", "suite")
	for _, d := range []string{src, main} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	files := map[string]string{filepath.Join(dir, "pom.xml"): pom}
	var err error
	if files[filepath.Join(main, "Planted.java")], err = render(plantedJava, plan); err != nil {
		return nil, err
	}
	for c := range o.Classes {
		cls := plan.class(c)
		if files[filepath.Join(src, cls.Name+".java")], err = render(testJava, cls); err != nil {
			return nil, err
		}
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("suite: %w", err)
		}
	}
	return plan.planted, nil
}

// plan places the planted dependencies: dependency k spans classes 2k' and
// 2k'+Classes/2 (k' spread over the first half), so its two tests are far
// apart in the original order; victims read at the first class, brittles
// at the second.
type plan struct {
	o        Options
	fields   []string          // Planted's fields
	methods  map[string]string // test id to body
	counters map[int]string    // benign class to its counter field
	planted  []Planted
}

func newPlan(o Options) *plan {
	p := &plan{o: o, methods: map[string]string{}, counters: map[int]string{}}
	half := o.Classes / 2
	n := o.Victims + o.Brittles
	for k := range n {
		early, late := k*half/n, k*half/n+half
		em, lm := (k*7+1)%o.Methods, (k*11+2)%o.Methods
		if k < o.Victims {
			field := fmt.Sprintf("victim%d", k)
			p.fields = append(p.fields, "public static final java.util.List<String> "+field+" = new java.util.ArrayList<String>();")
			victim, polluter := p.id(early, em), p.id(late, lm)
			p.methods[victim] = "assertTrue(\"" + field + " is empty\", Planted." + field + ".isEmpty());"
			p.methods[polluter] = "Planted." + field + ".add(\"polluted\");"
			p.planted = append(p.planted, Planted{Test: victim, Kind: report.ODVictim, Writer: polluter, Root: Package + ".Planted." + field})
		} else {
			field := fmt.Sprintf("brittle%d", k-o.Victims)
			p.fields = append(p.fields, "public static String "+field+";")
			setter, brittle := p.id(early, em), p.id(late, lm)
			p.methods[setter] = "Planted." + field + " = \"ready\";"
			p.methods[brittle] = "assertEquals(\"ready\", Planted." + field + ");"
			p.planted = append(p.planted, Planted{Test: brittle, Kind: report.ODBrittle, Writer: setter, Root: Package + ".Planted." + field})
		}
	}
	// Benign classes sit between the planted ones (odd classes).
	for b := range o.Benign {
		c := (b*o.Classes/o.Benign + 1) | 1
		field := fmt.Sprintf("counter%d", b)
		p.fields = append(p.fields, "public static int "+field+";")
		p.counters[c] = field
	}
	return p
}

func (p *plan) id(class, method int) string {
	return fmt.Sprintf("%s.%s#%s", Package, className(class), methodName(method))
}

func className(c int) string  { return fmt.Sprintf("C%03dTest", c) }
func methodName(m int) string { return fmt.Sprintf("t%02d", m) }

// testClass is what testJava renders.
type testClass struct {
	Package, Name string
	Methods       []testMethod
}

type testMethod struct{ Name, Body string }

func (p *plan) class(c int) testClass {
	cls := testClass{Package: Package, Name: className(c)}
	counter := p.counters[c]
	for m := range p.o.Methods {
		var body []string
		if counter != "" {
			if m == 0 {
				body = append(body, "Planted."+counter+" = 1;")
			} else {
				body = append(body, "assertTrue(Planted."+counter+" >= 0);")
			}
		}
		body = append(body, fmt.Sprintf("assertEquals(\"%s\", CONFIG.get(\"name\"));", cls.Name))
		if b, ok := p.methods[p.id(c, m)]; ok {
			body = append(body, b)
		}
		cls.Methods = append(cls.Methods, testMethod{Name: methodName(m), Body: strings.Join(body, "\n        ")})
	}
	return cls
}

func render(t *template.Template, data any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("suite: %w", err)
	}
	return b.String(), nil
}

var plantedJava = template.Must(template.New("Planted").Parse(`package bench.suite;

/** The shared state of the generated suite: planted dependencies and benign counters. */
public final class Planted {
{{- range .Fields}}
    {{.}}
{{- end}}

    private Planted() {
    }
}
`))

// Fields lists Planted's field declarations (for plantedJava).
func (p *plan) Fields() []string { return p.fields }

var testJava = template.Must(template.New("Test").Parse(`package {{.Package}};

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.Map;

import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runners.MethodSorters;

@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class {{.Name}} {
    /** Filled by the static initialiser: reading it is no data dependency. */
    static final Map<String, String> CONFIG = new HashMap<String, String>();

    static {
        CONFIG.put("name", "{{.Name}}");
    }
{{range .Methods}}
    @Test
    public void {{.Name}}() {
        {{.Body}}
    }
{{end -}}
}
`))

const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>

  <!-- Generated by flaky's benchmark (internal/bench/suite): planted order dependencies among benign shared reads. -->
  <groupId>dev.flaky.bench</groupId>
  <artifactId>suite</artifactId>
  <version>1.0-SNAPSHOT</version>
  <packaging>jar</packaging>

  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>8</maven.compiler.release>
    <surefire.runOrder>alphabetical</surefire.runOrder>
  </properties>

  <dependencies>
    <dependency>
      <groupId>junit</groupId>
      <artifactId>junit</artifactId>
      <version>4.13.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>

  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>2.22.2</version>
        <configuration>
          <runOrder>${surefire.runOrder}</runOrder>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
`
