package launcher

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/flakyhq/flaky/internal/engine/agent"
)

const jacocoRuntime = "/m2/org/jacoco/org.jacoco.agent/0.8.15/org.jacoco.agent-0.8.15-runtime.jar"

func TestJacocoAgentArg(t *testing.T) {
	tests := []struct {
		name, arg, want string
	}{
		{
			name: "prepare-agent's destfile and the build's excludes",
			arg:  "-javaagent:" + jacocoRuntime + "=destfile=/p/target/jacoco.exec,excludes=com.acme.Gen*:*Test",
			want: "-javaagent:" + jacocoRuntime + "=excludes=com.acme.Gen*:*Test:dev.flaky.*,output=none",
		},
		{
			name: "no options",
			arg:  "-javaagent:/opt/jacoco/lib/jacocoagent.jar",
			want: "-javaagent:/opt/jacoco/lib/jacocoagent.jar=excludes=dev.flaky.*,output=none",
		},
		{
			name: "every output option goes, the others stay in their order",
			arg: "-javaagent:" + jacocoRuntime + "=includes=com.*,append=false,output=tcpclient,address=cov.example,port=6300," +
				"sessionid=s1,dumponexit=true,classdumpdir=/p/dump,inclbootstrapclasses=false,jmx=true",
			want: "-javaagent:" + jacocoRuntime + "=includes=com.*,inclbootstrapclasses=false,jmx=true,excludes=dev.flaky.*,output=none",
		},
		{
			name: "a value with commas (JaCoCo splits before key= only)",
			arg:  "-javaagent:" + jacocoRuntime + "=destfile=/p/a,b/jacoco.exec,excludes=x.*",
			want: "-javaagent:" + jacocoRuntime + "=excludes=x.*:dev.flaky.*,output=none",
		},
		{
			name: "flaky's classes already excluded",
			arg:  "-javaagent:" + jacocoRuntime + "=excludes=dev.flaky.*,output=none",
			want: "-javaagent:" + jacocoRuntime + "=excludes=dev.flaky.*,output=none",
		},
		{
			name: "another agent",
			arg:  "-javaagent:/m2/org/aspectj/aspectjweaver-1.9.22.jar=destfile=x",
			want: "-javaagent:/m2/org/aspectj/aspectjweaver-1.9.22.jar=destfile=x",
		},
		{
			name: "a jar that only names JaCoCo in its folder",
			arg:  "-javaagent:/jacoco/other.jar=destfile=x",
			want: "-javaagent:/jacoco/other.jar=destfile=x",
		},
		{
			name: "not an agent",
			arg:  "-Djacoco.destfile=/p/target/jacoco.exec",
			want: "-Djacoco.destfile=/p/target/jacoco.exec",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jacocoAgentArg(tt.arg); got != tt.want {
				t.Errorf("jacocoAgentArg(%q)\n = %q\nwant %q", tt.arg, got, tt.want)
			}
		})
	}
}

// Offline instrumentation: the JaCoCo runtime on the class path writes
// nothing in flaky's JVMs, whatever the build's properties say; without it
// the system properties are the build's.
func TestCoexistOffline(t *testing.T) {
	build := map[string]string{"jacoco-agent.destfile": "/p/target/jacoco.exec", "basedir": "/p"}
	offline := coexist(Env{Classpath: []string{"/p/target/classes", jacocoRuntime}, SysProps: build})
	if offline.SysProps[jacocoOfflineOutput] != "none" || offline.SysProps["basedir"] != "/p" {
		t.Errorf("offline: system properties %v, want the build's and %s=none", offline.SysProps, jacocoOfflineOutput)
	}
	if _, set := build[jacocoOfflineOutput]; set {
		t.Error("coexist changed the caller's map")
	}
	plain := coexist(Env{Classpath: []string{"/p/target/classes", "/m2/junit-4.13.2.jar"}, SysProps: build})
	if _, set := plain.SysProps[jacocoOfflineOutput]; set {
		t.Errorf("without JaCoCo's runtime: system properties %v", plain.SysProps)
	}
	if got := coexist(Env{Classpath: []string{jacocoRuntime}}); got.SysProps[jacocoOfflineOutput] != "none" {
		t.Errorf("no system properties of the build: %v", got.SysProps)
	}
}

// The launcher's JVMs start JaCoCo as coexist sets it up, before flaky's agent.
func TestCommandRewritesJacoco(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "run")
	l, err := New(Env{Java: exe, Classpath: []string{"/nonexistent/test-classes"},
		JVMArgs: []string{"-javaagent:" + jacocoRuntime + "=destfile=/p/target/jacoco.exec", "-ea"}},
		agent.Jars{Agent: "/x/agent.jar", Runner: "/x/runner.jar"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	args, err := l.command(1, agent.Options{}, []string{"run"}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	jacoco := slices.Index(args, "-javaagent:"+jacocoRuntime+"=excludes=dev.flaky.*,output=none")
	flaky := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "-javaagent:/x/agent.jar") })
	if jacoco < 0 || flaky < jacoco || !slices.Contains(args, "-ea") || strings.Contains(strings.Join(args, " "), "jacoco.exec") {
		t.Errorf("command %q: want JaCoCo without output and excluding flaky's classes, before flaky's agent", args)
	}
}

func TestAgentHint(t *testing.T) {
	if got := agentHint([]string{"-Xmx1g", "-Dx=y"}); got != "" {
		t.Errorf("no agents: hint %q", got)
	}
	got := agentHint([]string{"-javaagent:" + jacocoRuntime + "=excludes=dev.flaky.*,output=none", "-ea",
		"-agentpath:/opt/yourkit/libyjpagent.so=port=1", "-agentlib:jdwp=transport=dt_socket"})
	for _, want := range []string{"org.jacoco.agent-0.8.15-runtime.jar, -agentpath:libyjpagent.so, -agentlib:jdwp before flaky's", "dev.flaky.*", "--workers"} {
		if !strings.Contains(got, want) {
			t.Errorf("hint %q lacks %q", got, want)
		}
	}
}

// A JVM that never connects is an error that names the build's agents it
// started with.
func TestNotConnectedNamesAgents(t *testing.T) {
	countAttempts(t, nil)
	t.Setenv(fakeEnv, "no-connect")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(Env{Java: exe, Classpath: []string{"/nonexistent/test-classes"}, JVMArgs: []string{"-javaagent:/x/slow-agent.jar"}},
		agent.Jars{Agent: "/x/agent.jar", Runner: "/x/runner.jar"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = l.Run(context.Background(), []string{"p.A#a"})
	if !errors.Is(err, errNotConnected) || !strings.Contains(err.Error(), "agent(s) slow-agent.jar before flaky's") {
		t.Errorf("err = %v, want errNotConnected naming slow-agent.jar", err)
	}
}
