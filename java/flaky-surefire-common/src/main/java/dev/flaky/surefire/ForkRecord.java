package dev.flaky.surefire;

import dev.flaky.runner.Json;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The fork record ({@code flaky/fork.json}, or {@code flaky/fork-<pid>.json} for per-class forks): how this
 * Surefire fork was launched (java, JVM arguments, the system properties Surefire set, the environment variables
 * Surefire set and those that shape a JVM, working directory, the real test class path) and which tests it ran in
 * which order with which outcomes, so that the flaky driver can launch the same tests itself. The rest of the
 * environment (CI secrets among it) is never recorded: the driver's JVMs inherit it from the build, as the fork did.
 */
final class ForkRecord {
    /** Version of the record format. */
    static final int VERSION = 1;

    /** System properties that belong to the JVM rather than to Surefire's configuration. */
    private static final String[] JVM_PROPERTY_PREFIXES = {"java.", "sun.", "os.", "user.", "file.", "jdk."};
    private static final String[] JVM_PROPERTIES = {
        "line.separator", "path.separator", "native.encoding", "stdout.encoding", "stderr.encoding", "awt.toolkit",
    };
    private static final String LAUNCHER_CLASS = "org.junit.platform.launcher.core.LauncherFactory";
    /** Environment variables that shape a JVM and its tests' locale and time zone, recorded as the fork had them. */
    private static final List<String> JVM_ENVIRONMENT = Arrays.asList(
            "JAVA_HOME", "PATH", "HOME", "USER", "TZ", "LANG", "LANGUAGE");
    private static final String LOCALE_ENVIRONMENT_PREFIX = "LC_";
    /** The JVM's command line: Surefire's booter main class (or jar) and its arguments. */
    private static final String COMMAND_PROPERTY = "sun.java.command";
    /** How many ancestors to look through for the JVM that forked this one. */
    private static final int MAX_ANCESTORS = 4;

    private final Map<String, Object> fields = new LinkedHashMap<>();
    private final List<Map<String, Object>> tests = new ArrayList<>();
    private final List<String> testClasses = new ArrayList<>();
    private OrderChoice order;

    private ForkRecord() {
    }

    /**
     * Records this JVM as it is now, before any test ran: {@code properties} is a copy of the system properties,
     * {@code testLoader} the loader of the test classes (to find the JUnit Platform launcher).
     */
    static ForkRecord snapshot(String surefireVersion, String providerApi, Properties properties,
                               ClassLoader testLoader, String testClassesDirectory) {
        ForkRecord r = new ForkRecord();
        r.fields.put("version", VERSION);
        r.fields.put("surefireVersion", surefireVersion);
        r.fields.put("providerApi", providerApi);
        r.fields.put("java", Paths.get(properties.getProperty("java.home"), "bin", "java").toString());
        r.fields.put("javaVersion", properties.getProperty("java.version"));
        r.fields.put("jvmArgs", jvmArgs(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        r.fields.put("agentAttached", agentAttached());
        r.fields.put("systemProperties",
                surefireProperties(properties, effectiveSystemProperties(properties.getProperty(COMMAND_PROPERTY))));
        r.fields.put("environment", environment(System.getenv(), parentEnvironment()));
        r.fields.put("workingDirectory", properties.getProperty("user.dir"));
        r.fields.put("classpath", classpath(properties, testLoader));
        r.fields.put("testClassesDirectory", testClassesDirectory);
        return r;
    }

    /** Adds Surefire's test classes that ran in this fork, in its order. */
    void testClasses(List<String> classes) {
        for (String c : classes) {
            if (!testClasses.contains(c)) {
                testClasses.add(c);
            }
        }
    }

    /** Records the order's kind and, for a shuffle, its seed. */
    void order(OrderChoice choice) {
        this.order = choice;
    }

    /** Records the per-test timeout the fork applied, in milliseconds (0: none). */
    void testTimeout(long ms) {
        fields.put("testTimeoutMs", ms);
    }

    /** Records a finished test, in executed order. */
    void test(String test, String outcome, long timeMs, String message) {
        Map<String, Object> t = new LinkedHashMap<>();
        t.put("test", test);
        t.put("outcome", outcome);
        t.put("timeMs", timeMs);
        if (message != null) {
            t.put("message", message);
        }
        tests.add(t);
    }

    /** Writes the record to {@code file} atomically (a temporary file in the same directory, then a move). */
    void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Map<String, Object> json = new LinkedHashMap<>(fields);
        json.put("testClasses", testClasses);
        json.put("order", order == null ? OrderChoice.DEFAULT : order.kind);
        if (order != null && OrderChoice.SHUFFLE.equals(order.kind)) {
            json.put("seed", order.seed);
        }
        json.put("tests", tests);
        try {
            Files.write(tmp, (Json.pretty(json) + "\n").getBytes(StandardCharsets.UTF_8));
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** The JVM arguments without the flaky agent, which the driver attaches itself. */
    static List<String> jvmArgs(List<String> inputArguments) {
        List<String> args = new ArrayList<>();
        for (String arg : inputArguments) {
            if (!isFlakyAgent(arg)) {
                args.add(arg);
            }
        }
        return args;
    }

    private static boolean isFlakyAgent(String arg) {
        if (!arg.startsWith("-javaagent:")) {
            return false;
        }
        String jar = arg.substring("-javaagent:".length());
        int options = jar.indexOf('=');
        if (options >= 0) {
            jar = jar.substring(0, options);
        }
        return new File(jar).getName().startsWith("flaky-agent");
    }

    /** Reports whether the flaky agent is attached to this JVM (its jar is on the system class path then). */
    private static boolean agentAttached() {
        try {
            Class.forName("dev.flaky.agent.Agent", false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * The system properties Surefire set for the tests, with their values in {@code properties}: every key of
     * {@code effective} (the properties file Surefire's booter loaded: {@code systemPropertyVariables},
     * {@code systemProperties}, {@code systemPropertiesFile}, Maven's user properties, {@code basedir}, ...) but
     * Surefire's internal and flaky's own; without that file, all properties but the JVM's own.
     */
    static Map<String, String> surefireProperties(Properties properties, Properties effective) {
        Map<String, String> result = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            boolean set = effective != null ? effective.containsKey(key) : !isJvmOwn(key);
            if (set && !key.startsWith("surefire.") && !key.startsWith("flaky.")) {
                result.put(key, properties.getProperty(key));
            }
        }
        return result;
    }

    /**
     * The system properties file Surefire's booter loaded, named by the booter's last two arguments in
     * {@code command} ({@code ... TMPDIR DUMPNAME PROPERTIESFILE EFFECTIVESYSTEMPROPERTIESFILE}); null when the
     * command is not Surefire's booter or the file is gone. The directory may contain spaces, so each split of the
     * command is tried.
     */
    static Properties effectiveSystemProperties(String command) {
        if (command == null) {
            return null;
        }
        String[] words = command.trim().split(" ");
        int n = words.length;
        for (int start = 1; start <= n - 4; start++) {
            String dir = String.join(" ", Arrays.asList(words).subList(start, n - 3));
            Path file = Paths.get(dir).resolve(words[n - 1]);
            if (Files.isRegularFile(file)) {
                Properties p = new Properties();
                try (InputStream in = Files.newInputStream(file)) {
                    p.load(in);
                    return p;
                } catch (IOException | IllegalArgumentException e) {
                    return null;
                }
            }
        }
        return null;
    }

    /**
     * The environment to record: the variables that differ from {@code parent} (the environment of the Maven process
     * that forked this JVM: the differences are Surefire's {@code environmentVariables}), and those that shape a JVM ({@code JAVA_HOME}, {@code PATH},
     * {@code HOME}, {@code USER}, {@code TZ}, {@code LANG}, {@code LANGUAGE}, {@code LC_*}); just the latter when the
     * parent's environment is unknown (null).
     */
    static Map<String, String> environment(Map<String, String> env, Map<String, String> parent) {
        Map<String, String> result = new TreeMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            boolean shapesJvm = JVM_ENVIRONMENT.contains(name) || name.startsWith(LOCALE_ENVIRONMENT_PREFIX);
            if (shapesJvm || parent != null && !e.getValue().equals(parent.get(name))) {
                result.put(name, e.getValue());
            }
        }
        return result;
    }

    /**
     * The environment of the JVM that started this one (Maven, through a shell that Surefire runs the fork with):
     * the nearest ancestor process running {@code java}, where the system shows processes ({@code /proc}); else null.
     */
    private static Map<String, String> parentEnvironment() {
        try {
            Path pid = Paths.get("/proc/self");
            for (int i = 0; i < MAX_ANCESTORS; i++) {
                pid = Paths.get("/proc", parentPid(pid));
                Path exe = pid.resolve("exe").toRealPath();
                if ("java".equals(exe.getFileName().toString())) {
                    return environ(pid.resolve("environ"));
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The parent's pid from {@code /proc/<pid>/stat}: "pid (comm) state ppid ...", comm may hold spaces. */
    private static String parentPid(Path proc) throws IOException {
        String stat = new String(Files.readAllBytes(proc.resolve("stat")), StandardCharsets.UTF_8);
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1];
    }

    private static Map<String, String> environ(Path file) throws IOException {
        Map<String, String> env = new TreeMap<>();
        for (String entry : new String(Files.readAllBytes(file), StandardCharsets.UTF_8).split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) {
                env.put(entry.substring(0, eq), entry.substring(eq + 1));
            }
        }
        return env;
    }

    private static boolean isJvmOwn(String key) {
        for (String prefix : JVM_PROPERTY_PREFIXES) {
            if (key.startsWith(prefix)) {
                return true;
            }
        }
        for (String name : JVM_PROPERTIES) {
            if (key.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The real test class path: Surefire's {@code surefire.test.class.path} (set in every fork that uses a class
     * path, also behind a manifest-only jar), else {@code java.class.path}; without Surefire's and flaky's own
     * jars; plus the JUnit Platform launcher when the fork has it, since the driver must use it too.
     */
    static List<String> classpath(Properties properties, ClassLoader testLoader) {
        String path = properties.getProperty("surefire.test.class.path");
        if (path == null || path.isEmpty()) {
            path = properties.getProperty("java.class.path", "");
        }
        List<String> entries = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && !isSurefireOrFlaky(entry) && !entries.contains(entry)) {
                entries.add(entry);
            }
        }
        String launcher = codeSource(LAUNCHER_CLASS, testLoader);
        if (launcher != null && !entries.contains(launcher)) {
            entries.add(launcher);
        }
        return Collections.unmodifiableList(entries);
    }

    private static boolean isSurefireOrFlaky(String entry) {
        String normalized = entry.replace('\\', '/');
        String name = normalized.substring(normalized.lastIndexOf('/') + 1);
        return normalized.contains("/org/apache/maven/surefire/") || name.startsWith("surefirebooter")
                || name.startsWith("flaky-surefire-provider") || name.startsWith("flaky-agent");
    }

    /** The jar or directory {@code className} is loaded from, or null when it is not there. */
    private static String codeSource(String className, ClassLoader loader) {
        try {
            CodeSource source = Class.forName(className, false, loader).getProtectionDomain().getCodeSource();
            if (source == null || source.getLocation() == null) {
                return null;
            }
            return Paths.get(source.getLocation().toURI()).toString();
        } catch (ClassNotFoundException | LinkageError | URISyntaxException | RuntimeException e) {
            return null;
        }
    }
}
