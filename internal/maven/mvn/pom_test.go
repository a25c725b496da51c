package mvn

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFiles creates files (relative path -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func pom(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
` + body + `
</project>`
}

const parentPom = `
  <groupId>org.example</groupId>
  <artifactId>parent</artifactId>
  <version>2.0</version>
  <packaging>pom</packaging>
  <properties>
    <heap>512m</heap>
    <shared>from-parent</shared>
  </properties>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <artifactId>maven-surefire-plugin</artifactId>
          <configuration>
            <argLine>-Xmx${heap} -Dshared=${shared}</argLine>
            <excludes><exclude>**/Slow*.java</exclude></excludes>
          </configuration>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>`

func TestSurefireSetup(t *testing.T) {
	t.Setenv("FLAKY_TEST_ENV", "from-env")
	tests := []struct {
		name         string
		files        map[string]string
		module       string
		wantIncludes []string
		wantExcludes []string
		wantArgLine  []string
		wantSysProps map[string]string // besides basedir
		wantLog      []string
	}{
		{
			name: "no surefire configuration",
			files: map[string]string{"pom.xml": pom(`
  <groupId>g</groupId><artifactId>a</artifactId><version>1</version>`)},
		},
		{
			name: "module configuration with interpolation",
			files: map[string]string{"pom.xml": pom(`
  <groupId>g</groupId><artifactId>a</artifactId><version>1.5</version>
  <properties>
    <mem>256m</mem>
    <agent.opts>-Dx=${mem}</agent.opts>
    <it.pattern>**/*IT.java</it.pattern>
  </properties>
  <build><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId>
    <artifactId>maven-surefire-plugin</artifactId>
    <version>3.5.4</version>
    <configuration>
      <includes>
        <include>**/*Test.java</include>
        <include> ${it.pattern} </include>
      </includes>
      <excludes><exclude>**/*$*</exclude></excludes>
      <argLine>-Xmx${mem} ${agent.opts} "-Dwith space=a b" -Dv=${project.version} ${undefined.prop}</argLine>
      <systemPropertyVariables>
        <fixture.dir>${project.build.directory}/fx</fixture.dir>
        <env.value>${env.FLAKY_TEST_ENV}</env.value>
        <plain>text</plain>
      </systemPropertyVariables>
    </configuration>
  </plugin></plugins></build>`)},
			wantIncludes: []string{"**/*Test.java", "**/*IT.java"},
			wantExcludes: []string{"**/*$*"},
			wantArgLine:  []string{"-Xmx256m", "-Dx=256m", "-Dwith space=a b", "-Dv=1.5", "${undefined.prop}"},
			wantSysProps: map[string]string{"fixture.dir": "{dir}/target/fx", "env.value": "from-env", "plain": "text"},
			wantLog:      []string{"unknown properties left as they are: ${undefined.prop}"},
		},
		{
			name: "argLine property and late references",
			files: map[string]string{"pom.xml": pom(`
  <groupId>g</groupId><artifactId>a</artifactId><version>1</version>
  <properties>
    <opens>--add-opens=java.base/java.lang=ALL-UNNAMED</opens>
    <argLine>@{jacocoArgLine} @{opens} -ea</argLine>
  </properties>`)},
			wantArgLine: []string{"--add-opens=java.base/java.lang=ALL-UNNAMED", "-ea"},
			wantLog:     []string{"@{jacocoArgLine} is set by another plugin"},
		},
		{
			name: "argLine reference that JaCoCo sets at build time",
			files: map[string]string{"pom.xml": pom(`
  <groupId>g</groupId><artifactId>a</artifactId><version>1</version>
  <build><plugins><plugin>
    <artifactId>maven-surefire-plugin</artifactId>
    <configuration><argLine>${argLine} -ea</argLine></configuration>
  </plugin></plugins></build>`)},
			wantArgLine: []string{"-ea"},
			wantLog:     []string{"${argLine} is set by another plugin"},
		},
		{
			name: "parent chain on disk",
			files: map[string]string{
				"pom.xml": pom(parentPom),
				"child/pom.xml": pom(`
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>2.0</version></parent>
  <artifactId>child</artifactId>
  <properties><shared>from-child</shared></properties>
  <build><plugins><plugin>
    <artifactId>maven-surefire-plugin</artifactId>
    <configuration><includes><include>**/*Spec.java</include></includes></configuration>
  </plugin></plugins></build>`),
			},
			module:       "child",
			wantIncludes: []string{"**/*Spec.java"},
			wantExcludes: []string{"**/Slow*.java"},
			wantArgLine:  []string{"-Xmx512m", "-Dshared=from-child"},
		},
		{
			name: "parent with explicit relativePath directory",
			files: map[string]string{
				"build/parent/pom.xml": pom(parentPom),
				"mod/pom.xml": pom(`
  <parent><groupId>org.example</groupId><artifactId>parent</artifactId><version>2.0</version>
    <relativePath>../build/parent</relativePath></parent>
  <artifactId>mod</artifactId>`),
			},
			module:       "mod",
			wantExcludes: []string{"**/Slow*.java"},
			wantArgLine:  []string{"-Xmx512m", "-Dshared=from-parent"},
		},
		{
			name: "parent not on disk",
			files: map[string]string{
				"pom.xml": pom(`<groupId>other</groupId><artifactId>unrelated</artifactId><version>1</version>`),
				"mod/pom.xml": pom(`
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.0.0</version></parent>
  <artifactId>mod</artifactId>`),
			},
			module:  "mod",
			wantLog: []string{"parent org.springframework.boot:spring-boot-starter-parent is not on disk"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, tt.files)
			dir := filepath.Join(root, tt.module)
			var log strings.Builder
			logf := func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }
			chain, err := loadPomChain(dir, logf)
			if err != nil {
				t.Fatal(err)
			}
			in := newInterpolator(properties(chain, nil))
			buildDirs(chain, in)
			setup, err := surefireSetup(chain, in, logf)
			if err != nil {
				t.Fatal(err)
			}
			if names := in.unknownNames(); len(names) > 0 {
				logf("unknown properties left as they are: ${%s}", strings.Join(names, "}, ${"))
			}
			if !reflect.DeepEqual(setup.Includes, tt.wantIncludes) {
				t.Errorf("Includes = %q, want %q", setup.Includes, tt.wantIncludes)
			}
			if !reflect.DeepEqual(setup.Excludes, tt.wantExcludes) {
				t.Errorf("Excludes = %q, want %q", setup.Excludes, tt.wantExcludes)
			}
			if !reflect.DeepEqual(setup.ArgLine, tt.wantArgLine) {
				t.Errorf("ArgLine = %q, want %q", setup.ArgLine, tt.wantArgLine)
			}
			want := map[string]string{"basedir": dir}
			for k, v := range tt.wantSysProps {
				want[k] = strings.ReplaceAll(v, "{dir}", dir)
			}
			if !reflect.DeepEqual(setup.SysProps, want) {
				t.Errorf("SysProps = %v, want %v", setup.SysProps, want)
			}
			for _, w := range tt.wantLog {
				if !strings.Contains(log.String(), w) {
					t.Errorf("log lacks %q:\n%s", w, log.String())
				}
			}
			if len(tt.wantLog) == 0 && log.Len() > 0 {
				t.Errorf("unexpected log:\n%s", log.String())
			}
		})
	}
}

func TestBuildDirs(t *testing.T) {
	tests := []struct {
		name                        string
		build                       string
		wantTarget, wantC, wantTest string
	}{
		{"defaults", "", "target", "target/classes", "target/test-classes"},
		{"custom directory", "<build><directory>${basedir}/out</directory></build>", "out", "out/classes", "out/test-classes"},
		{"custom outputs", "<build><outputDirectory>bin/main</outputDirectory><testOutputDirectory>${project.build.directory}/tc</testOutputDirectory></build>", "target", "bin/main", "target/tc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"pom.xml": pom("<groupId>g</groupId><artifactId>a</artifactId><version>1</version>" + tt.build)})
			chain, err := loadPomChain(dir, func(string, ...any) {})
			if err != nil {
				t.Fatal(err)
			}
			target, classes, testClasses := buildDirs(chain, newInterpolator(properties(chain, nil)))
			got := []string{target, classes, testClasses}
			want := []string{filepath.Join(dir, tt.wantTarget), filepath.Join(dir, tt.wantC), filepath.Join(dir, tt.wantTest)}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("dirs = %q, want %q", got, want)
			}
		})
	}
}

func TestInterpolateCycle(t *testing.T) {
	in := newInterpolator(map[string]string{"a": "${b}", "b": "${a}"})
	if got := in.expand("x${a}"); !strings.Contains(got, "${") {
		t.Errorf("cycle expanded to %q", got)
	}
}

func TestLoadPomChainErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no pom", map[string]string{"README": "x"}, "no pom.xml in"},
		{"broken xml", map[string]string{"pom.xml": "<project><build>"}, "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			_, err := loadPomChain(dir, func(string, ...any) {})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}
