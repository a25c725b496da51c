package launcher

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The build's own agents in flaky's JVMs. A build's argLine often attaches
// JaCoCo (prepare-agent), and the JVM starts its agents in the order of the
// command line, so they are there before flaky's: JaCoCo would instrument
// flaky's agent, runner and their shaded libraries (slowing the handshake
// down on a busy machine) and write the coverage of flaky's reordered and
// perturbed runs into the build's coverage file. coexist keeps JaCoCo in
// flaky's JVMs (the module's classes stay instrumented as in the build)
// but makes it skip flaky's classes and write nothing.

// flakyClasses is JaCoCo's pattern of flaky's own classes (its shaded
// libraries are under dev.flaky too).
const flakyClasses = "dev.flaky.*"

// jacocoJar matches the file name of JaCoCo's agent: jacocoagent.jar of its
// distribution, or the runtime artifact prepare-agent passes.
var jacocoJar = regexp.MustCompile(`^(jacocoagent|org\.jacoco\.agent-.+-runtime)\.jar$`)

// jacocoOptionStart matches where JaCoCo's agent options split: a comma
// before the next key= (a value may hold other commas).
var jacocoOptionStart = regexp.MustCompile(`,[a-zA-Z0-9_\-]+=`)

// jacocoOutputOptions are JaCoCo's options that say where its data goes,
// which flaky's JVMs replace with output=none (classdumpdir would write
// the classes it sees into the build's folder).
var jacocoOutputOptions = []string{"destfile", "append", "output", "address", "port", "sessionid", "dumponexit", "classdumpdir"}

// jacocoOfflineOutput is the system property that the runtime of classes
// JaCoCo instrumented at build time (offline instrumentation, the runtime
// jar on the class path) reads before its jacoco-agent.properties.
const jacocoOfflineOutput = "jacoco-agent.output"

// coexist returns env with JaCoCo, where the build runs it, set up for
// flaky's JVMs: its agent excludes flaky's classes besides the build's own
// excludes and writes no output; the runtime of offline-instrumented classes
// writes none either. Everything else is env's.
func coexist(env Env) Env {
	out := env
	out.JVMArgs = make([]string, len(env.JVMArgs))
	for i, a := range env.JVMArgs {
		out.JVMArgs[i] = jacocoAgentArg(a)
	}
	if slices.ContainsFunc(env.Classpath, func(e string) bool { return jacocoJar.MatchString(filepath.Base(e)) }) {
		out.SysProps = maps.Clone(env.SysProps)
		if out.SysProps == nil {
			out.SysProps = map[string]string{}
		}
		out.SysProps[jacocoOfflineOutput] = "none"
	}
	return out
}

// jacocoAgentArg returns the JVM argument a with, when it attaches JaCoCo's
// agent, flaky's classes added to its excludes and its output set to none.
func jacocoAgentArg(a string) string {
	jar, options, ok := agentJar(a)
	if !ok || !jacocoJar.MatchString(filepath.Base(jar)) {
		return a
	}
	var kept []string
	excludes := ""
	for _, opt := range splitJacocoOptions(options) {
		key, value, _ := strings.Cut(opt, "=")
		switch {
		case key == "excludes":
			excludes = value
		case !slices.Contains(jacocoOutputOptions, key):
			kept = append(kept, opt)
		}
	}
	if excludes == "" {
		excludes = flakyClasses
	} else if !slices.Contains(strings.Split(excludes, ":"), flakyClasses) {
		excludes += ":" + flakyClasses
	}
	kept = append(kept, "excludes="+excludes, "output=none")
	return "-javaagent:" + jar + "=" + strings.Join(kept, ",")
}

// agentJar splits a -javaagent argument into its jar and options (the JVM
// ends the jar at the first '='); ok is false for other arguments.
func agentJar(a string) (jar, options string, ok bool) {
	rest, ok := strings.CutPrefix(a, "-javaagent:")
	if !ok {
		return "", "", false
	}
	jar, options, _ = strings.Cut(rest, "=")
	return jar, options, true
}

// splitJacocoOptions splits JaCoCo's agent options as JaCoCo does.
func splitJacocoOptions(options string) []string {
	if options == "" {
		return nil
	}
	var out []string
	start := 0
	for _, m := range jacocoOptionStart.FindAllStringIndex(options, -1) {
		out = append(out, options[start:m[0]])
		start = m[0] + 1
	}
	return append(out, options[start:])
}

// buildAgents names the agents the build's JVM arguments attach (their jar
// or library), in order: the ones that start before flaky's.
func buildAgents(jvmArgs []string) []string {
	var agents []string
	for _, a := range jvmArgs {
		if jar, _, ok := agentJar(a); ok {
			agents = append(agents, filepath.Base(jar))
			continue
		}
		for _, prefix := range []string{"-agentpath:", "-agentlib:"} {
			if lib, ok := strings.CutPrefix(a, prefix); ok {
				name, _, _ := strings.Cut(lib, "=")
				agents = append(agents, prefix+filepath.Base(name))
			}
		}
	}
	return agents
}

// agentHint says, for the error of a JVM that did not connect, which of the
// build's agents started before flaky's and what to try; "" without any.
func agentHint(jvmArgs []string) string {
	agents := buildAgents(jvmArgs)
	if len(agents) == 0 {
		return ""
	}
	return fmt.Sprintf("; the JVM started the build's agent(s) %s before flaky's: an agent that is slow to start or "+
		"instruments flaky's own classes can keep it from connecting on a busy machine. flaky excludes its classes (%s) "+
		"from JaCoCo itself; configure other agents to skip them too, or try again with fewer --workers",
		strings.Join(agents, ", "), flakyClasses)
}
