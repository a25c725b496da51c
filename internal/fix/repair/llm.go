package repair

import (
	"archive/zip"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flakyhq/flaky/internal/base/testid"
	"github.com/flakyhq/flaky/internal/fix/editor"

	openai "github.com/sashabaranov/go-openai"

	"github.com/flakyhq/flaky/internal/report"
)

// DefaultLLMIterations bounds the LLM loop per finding.
const DefaultLLMIterations = 5

// LLMConfig names an OpenAI-compatible chat endpoint (a hosted model or a
// local Ollama, vLLM or llama.cpp server).
type LLMConfig struct {
	URL        string // the API base, e.g. http://localhost:11434/v1
	Model      string
	APIKey     string        // optional
	Iterations int           // 0 means DefaultLLMIterations
	Timeout    time.Duration // one request's; 0 means DefaultLLMTimeout
	// Unconfined lets the model's patches run in the sandbox's JVMs
	// unconfined where the machine has no sandbox for them
	// (--unconfined-llm-validation, FLAKY_LLM_UNCONFINED_VALIDATION=1);
	// without it the loop is off there.
	Unconfined bool
}

// UnconfinedEnv set to 1 is --unconfined-llm-validation for the LLM loop
// that reads its endpoint from the environment (LLMFromEnv).
const UnconfinedEnv = "FLAKY_LLM_UNCONFINED_VALIDATION"

// LLMFromEnv reads FLAKY_LLM_URL, FLAKY_LLM_MODEL, FLAKY_LLM_API_KEY,
// FLAKY_LLM_TIMEOUT (a duration) and UnconfinedEnv; nil and the reason when
// the loop cannot run.
func LLMFromEnv(getenv func(string) string) (*LLMConfig, string) {
	url, model := getenv("FLAKY_LLM_URL"), getenv("FLAKY_LLM_MODEL")
	if url == "" || model == "" {
		return nil, "LLM loop skipped: set FLAKY_LLM_URL and FLAKY_LLM_MODEL (and FLAKY_LLM_API_KEY if the endpoint needs one) to use it"
	}
	cfg := &LLMConfig{URL: url, Model: model, APIKey: getenv("FLAKY_LLM_API_KEY"), Unconfined: getenv(UnconfinedEnv) == "1"}
	if v := getenv("FLAKY_LLM_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, fmt.Sprintf("LLM loop skipped: FLAKY_LLM_TIMEOUT=%q is not a positive duration such as 5m", v)
		}
		cfg.Timeout = d
	}
	return cfg, ""
}

// llm is FlakyDoctor's loop: a prompt built from the localised evidence, the
// answer's methods stitched into the sources (modifiers, return types and
// annotations restored, missing imports found on the classpath and in the
// JDK), validated, and on failure asked again with concise feedback.
func (r *run) llm(ctx context.Context, f report.Finding) (*candidate, []string, string, error) {
	cfg := r.cfg.LLM
	iterations := cfg.Iterations
	if iterations <= 0 {
		iterations = DefaultLLMIterations
	}
	client := newLLMClient(cfg)

	p, err := r.problem(ctx, f)
	if err != nil {
		return nil, nil, "", err
	}
	logDir := filepath.Join(r.cfg.OutDir, "llm")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, nil, "", fmt.Errorf("create %s: %w", logDir, err)
	}
	var history []attempt
	sameCompile := 0
	for i := 1; i <= iterations; i++ {
		prompt := p.prompt(history)
		base := filepath.Join(logDir, fmt.Sprintf("%s.%d", fileName(f.Test), i))
		if err := writeLLMLog(base+".prompt.md", prompt); err != nil {
			return nil, nil, "", fmt.Errorf("log prompt: %w", err)
		}
		resp, err := client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model:       cfg.Model,
			Temperature: 0.2,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: systemPrompt},
				{Role: openai.ChatMessageRoleUser, Content: prompt},
			},
		})
		if err != nil {
			return nil, nil, fmt.Sprintf("the endpoint failed in iteration %d: %s", i, endpointFailure(err, cfg)), nil
		}
		if len(resp.Choices) == 0 {
			return nil, nil, fmt.Sprintf("the endpoint returned no answer in iteration %d", i), nil
		}
		answer := resp.Choices[0].Message.Content
		if err := writeLLMLog(base+".answer.md", answer); err != nil {
			return nil, nil, "", fmt.Errorf("log answer: %w", err)
		}
		c, stitched, fb, err := r.stitch(ctx, p, answer)
		if err != nil {
			return nil, nil, "", err
		}
		if fb == "" {
			c.notes = append([]string{fmt.Sprintf("LLM patch, iteration %d of %d", i, iterations), r.llmSandbox}, stitched...)
			ev, vfb, err := r.validate(ctx, f, c)
			if err != nil {
				return nil, nil, "", err
			}
			switch {
			case vfb == "":
				return c, ev, "", nil
			case strings.HasPrefix(vfb, weakensPrefix):
				fb = vfb
			default:
				fb = "the patch compiles but does not fix the test: " + vfb
			}
		}
		if len(history) > 0 && strings.HasPrefix(fb, "does not compile") && history[len(history)-1].feedback == fb {
			sameCompile++
		} else {
			sameCompile = 0
		}
		history = append(history, attempt{answer: codeBlock(answer), feedback: fb})
		if sameCompile >= 2 {
			return nil, nil, fmt.Sprintf("the same compile error three times in a row, after %d iterations: %s", i, firstLines(fb, 3)), nil
		}
	}
	return nil, nil, fmt.Sprintf("no validated patch in %d iterations; last feedback: %s", iterations, firstLines(history[len(history)-1].feedback, 3)), nil
}

// systemPrompt sets the model's role.
const systemPrompt = "You are a software testing expert who repairs flaky Java tests with minimal changes."

// attempt is one earlier answer and what was wrong with it.
type attempt struct {
	answer   string
	feedback string
}

// problem is the localised evidence of one finding (FlakyDoctor's inspector).
type problem struct {
	f          report.Finding
	class      string // the test's class (binary name)
	rel        string // its source file
	inFile     string
	failure    string   // the failing assertion's message
	line       string   // the failing line of the test, as written
	related    []string // code: the test, its polluters or setters, fields and fixtures of its class
	state      []string // polluted state: root, passing and failing values
	sites      []string // perturbed call sites (api findings)
	polluters  []string
	partnerCls []string // classes of polluters and setters, whose methods an answer may change too
}

var stackFrame = regexp.MustCompile(`at ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.java):(\d+)\)`)

// problem runs the failing order once to localise the failure and gathers
// the related code.
func (r *run) problem(ctx context.Context, f report.Finding) (*problem, error) {
	class, method := testid.ClassMethod(f.Test)
	rel, inFile, err := r.src.classFile(class)
	if err != nil {
		return nil, err
	}
	p := &problem{f: f, class: class, rel: rel, inFile: inFile}
	if _, err := r.apply(ctx, nil); err != nil {
		return nil, err
	}
	res, err := r.sb.Run(ctx, failingOrder(f), r.agentOptions(f))
	if err != nil {
		return nil, err
	}
	src, err := r.src.read(rel)
	if err != nil {
		return nil, err
	}
	for _, t := range res.Tests {
		if t.Test != f.Test || !t.Outcome.Failed() {
			continue
		}
		p.failure = strings.TrimSpace(firstLines(t.FailureType+": "+t.Message, 3))
		for _, m := range stackFrame.FindAllStringSubmatch(t.Stack, -1) {
			if m[1] == class {
				n, _ := strconv.Atoi(m[4])
				if lines := strings.Split(src, "\n"); n >= 1 && n <= len(lines) {
					p.line = fmt.Sprintf("%s:%d: %s", filepath.Base(rel), n, strings.TrimSpace(lines[n-1]))
				}
				break
			}
		}
	}
	info, err := r.ed.Info(src, inFile)
	if err != nil {
		return nil, err
	}
	if m := info.Method(method); m != nil {
		p.related = append(p.related, m.Text)
	}
	for _, fd := range info.Fields {
		p.related = append(p.related, fd.Text)
	}
	for _, lm := range info.Lifecycle("Before", "BeforeEach", "After", "AfterEach", "BeforeClass", "AfterClass", "BeforeAll", "AfterAll") {
		p.related = append(p.related, lm.Text)
	}
	for _, t := range partners(f) {
		pc, pm := testid.ClassMethod(t)
		prel, pin, err := r.src.classFile(pc)
		if err != nil {
			continue
		}
		psrc, err := r.src.read(prel)
		if err != nil {
			return nil, err
		}
		pinfo, err := r.ed.Info(psrc, pin)
		if err != nil {
			return nil, err
		}
		if m := pinfo.Method(pm); m != nil {
			p.related = append(p.related, "// "+t+"\n"+m.Text)
		}
		p.polluters = append(p.polluters, t)
		if !slices.Contains(p.partnerCls, pc) && pc != class {
			p.partnerCls = append(p.partnerCls, pc)
		}
	}
	for _, s := range r.cfg.States[f.Test] {
		p.state = append(p.state, fmt.Sprintf("%s %s%s: %q when the test passes, %q when it fails", s.Kind, s.Root, s.Path, s.Passing, s.Failing))
	}
	for _, s := range f.CallSites {
		p.sites = append(p.sites, fmt.Sprintf("%s:%d (%s.%s) calls %s", s.File, s.Line, s.Class, s.Method, s.API))
	}
	return p, nil
}

// prompt is FlakyDoctor's prompt for the finding, with the earlier attempts
// and their concise feedback.
func (p *problem) prompt(history []attempt) string {
	var b strings.Builder
	kind := map[report.Kind]string{
		report.ODVictim:  "an order-dependent victim: it passes alone but fails when run after " + strings.Join(p.polluters, ", ") + ", which pollute(s) shared state",
		report.ODBrittle: "an order-dependent brittle test: it fails alone and passes only after " + strings.Join(p.polluters, ", ") + ", which set(s) up state it needs",
		report.NIO:       "non-idempotent: it passes once and fails when run again in the same JVM",
		report.API:       "implementation-dependent: it fails when " + p.f.Strategy + " perturbs a JDK API within its specification",
		report.NOD:       "non-deterministic",
	}[p.f.Kind]
	fmt.Fprintf(&b, "## Instruction\nRepair the flaky test `%s`. It is %s. Fix the test code (the test, its class's fixtures, or the polluter), not the code under test.\n\n", p.f.Test, kind)
	b.WriteString("## Failure location\n")
	if p.failure != "" {
		fmt.Fprintf(&b, "Failure: %s\n", p.failure)
	}
	if p.line != "" {
		fmt.Fprintf(&b, "Failing line: %s\n", p.line)
	}
	for _, s := range p.state {
		fmt.Fprintf(&b, "Polluted state: %s\n", s)
	}
	for _, s := range p.sites {
		fmt.Fprintf(&b, "Perturbed call site: %s\n", s)
	}
	b.WriteString("\n## Related code\n```java\n")
	b.WriteString(strings.Join(p.related, "\n\n"))
	b.WriteString("\n```\n")
	for i, a := range history {
		fmt.Fprintf(&b, "\n## Attempt %d\n```java\n%s\n```\nIt did not work: %s\n", i+1, a.answer, a.feedback)
	}
	b.WriteString(`
## Rules
1. Think step by step, but answer only with code.
2. Add the imports the code needs.
3. Write syntactically correct Java that compiles.
4. Make sure all arguments are correct.
5. Use compatible types for all variables.
6. Answer with one ` + "```java" + ` block holding the import lines and the complete changed or new methods and fields of ` + "`" + p.class + "`" + ` (or of a polluter's class), nothing else.
`)
	return b.String()
}

var javaBlock = regexp.MustCompile("(?s)```(?:java)?[ \\t]*\\r?\\n(.*?)```")

// codeBlock extracts the first fenced code block of an answer (the answer
// itself when it has none).
func codeBlock(answer string) string {
	if m := javaBlock.FindStringSubmatch(answer); m != nil {
		return strings.TrimSpace(m[1])
	}
	return strings.TrimSpace(answer)
}

// stitch applies an answer's methods and fields to the test's class (or a
// polluter's class that declares the method), restoring the declarations the
// model changed, then compiles; for a missing class it adds the first import
// of that simple name from the module's classpath or the JDK that makes the
// error go away. It returns the candidate, what stitching did, and the
// compile feedback when the result still does not compile.
func (r *run) stitch(ctx context.Context, p *problem, answer string) (*candidate, []string, string, error) {
	files, notes, fb, err := r.stitchMembers(p, answer)
	if err != nil || fb != "" {
		return nil, nil, fb, err
	}
	c := &candidate{kind: report.RepairLLM, files: files}
	imported, fb, err := r.compileImporting(ctx, c)
	if err != nil || fb != "" {
		return nil, nil, fb, err
	}
	return c, append(notes, imported...), "", nil
}

// stitchMembers applies an answer's methods and fields (and its imports)
// to the sources: a method the test's class declares replaces it (the
// declarations the model changed restored), as does one a polluter's class
// declares, and any other member is added to the test's class. It returns
// the files changed and what stitching did, or the feedback for the model
// when the answer does not fit.
func (r *run) stitchMembers(p *problem, answer string) (map[string][]byte, []string, string, error) {
	var members struct {
		Imports []string        `json:"imports"`
		Members []editor.Member `json:"members"`
	}
	if err := r.ed.Call(map[string]any{"op": "parse-members", "text": codeBlock(answer)}, &members); err != nil {
		return nil, nil, "the answer is not Java members: " + strings.TrimPrefix(err.Error(), "source editor: parse-members: "), nil
	}
	if len(members.Members) == 0 {
		return nil, nil, "the answer holds no method or field", nil
	}
	files := map[string][]byte{}
	read := func(rel string) (string, error) {
		if d, ok := files[rel]; ok {
			return string(d), nil
		}
		return r.src.read(rel)
	}
	var notes []string
	for _, m := range members.Members {
		t, err := r.targetOf(p, m, read)
		if err != nil {
			return nil, nil, "", err
		}
		var out string
		if m.Kind == "method" && t.info.Method(m.Name) != nil {
			var restored []string
			out, restored, err = r.ed.ReplaceMethod(t.src, t.inFile, m.Name, m.Text)
			for _, x := range restored {
				notes = append(notes, "stitching restored the "+x+" of "+m.Name)
			}
		} else {
			var added []string
			out, added, err = r.ed.AddMembers(t.src, t.inFile, []string{m.Text})
			if err == nil && len(added) == 0 {
				continue
			}
		}
		if err != nil {
			return nil, nil, "the answer's " + m.Name + " cannot go into " + t.inFile + ": " + err.Error(), nil
		}
		if len(members.Imports) > 0 {
			if out, err = r.ed.AddImports(out, members.Imports); err != nil {
				return nil, nil, "", err
			}
		}
		files[t.rel] = []byte(out)
	}
	return files, notes, "", nil
}

// memberTarget is the class an answer's member goes into: its file, the
// class's name in it, the file's source so far and the class's outline.
type memberTarget struct {
	rel, inFile, src string
	info             *editor.ClassInfo
}

// targetOf returns where m goes: the test's class, unless m is a method
// that class does not declare and a polluter's class does; read reads a
// file as stitching has changed it so far.
func (r *run) targetOf(p *problem, m editor.Member, read func(rel string) (string, error)) (memberTarget, error) {
	src, err := read(p.rel)
	if err != nil {
		return memberTarget{}, err
	}
	info, err := r.ed.Info(src, p.inFile)
	if err != nil {
		return memberTarget{}, err
	}
	t := memberTarget{rel: p.rel, inFile: p.inFile, src: src, info: info}
	if m.Kind != "method" || info.Method(m.Name) != nil {
		return t, nil
	}
	for _, pc := range p.partnerCls {
		prel, pin, err := r.src.classFile(pc)
		if err != nil {
			continue
		}
		psrc, err := read(prel)
		if err != nil {
			return memberTarget{}, err
		}
		if pinfo, err := r.ed.Info(psrc, pin); err == nil && pinfo.Method(m.Name) != nil {
			return memberTarget{rel: prel, inFile: pin, src: psrc, info: pinfo}, nil
		}
	}
	return t, nil
}

// compileImporting compiles c, and while javac misses classes (at most
// five rounds), adds for each the first import of that simple name from
// the module's classpath or the JDK that makes the error go away (see
// importFor). It returns the imports added, as notes, and the compile
// feedback when c still does not compile.
func (r *run) compileImporting(ctx context.Context, c *candidate) ([]string, string, error) {
	var notes []string
	for round := 0; round < 5; round++ {
		fb, err := r.apply(ctx, c.files)
		if err != nil {
			return nil, "", err
		}
		if fb == "" {
			return notes, "", nil
		}
		fixed := false
		for _, name := range missingClasses(fb) {
			q, err := r.importFor(ctx, c, name)
			if err != nil {
				return nil, "", err
			}
			if q != "" {
				fixed = true
				notes = append(notes, "stitching imported "+q)
			}
		}
		if !fixed {
			return nil, fb, nil
		}
	}
	fb, err := r.apply(ctx, c.files)
	if err != nil || fb != "" {
		return nil, fb, err
	}
	return notes, "", nil
}

// importFor tries the imports of classes with the simple name name in
// every file of c, one at a time, and keeps the first after which javac
// no longer misses name: it returns that import, "" when none helps.
func (r *run) importFor(ctx context.Context, c *candidate, name string) (string, error) {
	for _, q := range r.classCandidates(name) {
		trial := map[string][]byte{}
		for rel, data := range c.files {
			out, err := r.ed.AddImports(string(data), []string{q})
			if err != nil {
				return "", err
			}
			trial[rel] = []byte(out)
		}
		tfb, err := r.apply(ctx, trial)
		if err != nil {
			return "", err
		}
		if !slices.Contains(missingClasses(tfb), name) {
			c.files = trial
			return q, nil
		}
	}
	return "", nil
}

var missingClass = regexp.MustCompile(`symbol:\s+class (\w+)`)

// missingClasses are the simple names javac reports as unknown classes.
func missingClasses(javacOut string) []string {
	var out []string
	for _, m := range missingClass.FindAllStringSubmatch(javacOut, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// classCandidates are the qualified names of the classes with a simple name
// on the module's classpath, then in the JDK.
func (r *run) classCandidates(simple string) []string {
	if r.cpIndex == nil {
		r.cpIndex = classpathIndex(r.sb.env.Classpath)
	}
	out := slices.Clone(r.cpIndex[simple])
	var jdk struct {
		Classes []string `json:"classes"`
	}
	if err := r.ed.Call(map[string]any{"op": "jdk-classes", "simple": simple}, &jdk); err == nil {
		out = append(out, jdk.Classes...)
	}
	return out
}

// classpathIndex maps simple names of top-level classes to qualified names
// over the classpath's jars and directories.
func classpathIndex(classpath []string) map[string][]string {
	idx := map[string][]string{}
	add := func(entry string) {
		if !strings.HasSuffix(entry, ".class") || strings.Contains(entry, "$") || strings.HasPrefix(entry, "META-INF/") {
			return
		}
		name := strings.ReplaceAll(strings.TrimSuffix(entry, ".class"), "/", ".")
		simple := name[strings.LastIndexByte(name, '.')+1:]
		idx[simple] = append(idx[simple], name)
	}
	for _, e := range classpath {
		fi, err := os.Stat(e)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			_ = filepath.WalkDir(e, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if rel, err := filepath.Rel(e, p); err == nil {
						add(filepath.ToSlash(rel))
					}
				}
				return nil
			})
			continue
		}
		z, err := zip.OpenReader(e)
		if err != nil {
			continue
		}
		for _, f := range z.File {
			add(f.Name)
		}
		z.Close()
	}
	return idx
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "...")
	}
	return strings.Join(lines, "\n")
}
