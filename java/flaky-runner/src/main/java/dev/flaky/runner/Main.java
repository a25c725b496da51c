package dev.flaky.runner;

import dev.flaky.runner.warm.Warm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command line of the runner:
 * <pre>
 * Main list --test-classes DIR [--include PATTERN]... [--exclude PATTERN]...
 * Main run --order FILE
 * Main run --standby true
 * Main warm --order FILE [--order FILE]...
 * </pre>
 * All report through {@link Events} and exit the JVM with status 0 when done (2 for bad arguments). {@code warm} runs
 * each order in a fresh class loader of this JVM ({@link Warm}). {@code run --standby true} is a JVM started ahead of
 * its order: it loads the test engines, as every run does before its first test class, then reads the order file's
 * path from a line of standard input (end of input: it exits without running anything). {@code run --order} alone answers the driver's
 * {@code handoff} command, and then stops before the class run it named (see agent/PROTOCOL.md).
 */
public final class Main {
    private static final int USAGE_STATUS = 2;
    private static final int FAILURE_STATUS = 1;

    private Main() {
    }

    /** Runs the {@code list} or {@code run} command; see the class comment. */
    public static void main(String[] args) {
        if (args.length == 0 || !("list".equals(args[0]) || "run".equals(args[0]) || "warm".equals(args[0]))) {
            usage("expected a command, list, run or warm");
        }
        Map<String, List<String>> options = parseOptions(args);
        Events events = Events.open();
        int status = 0;
        try {
            if ("list".equals(args[0])) {
                list(options, events);
            } else if ("warm".equals(args[0])) {
                if (!options.containsKey("--order")) {
                    usage("expected at least one --order");
                }
                Warm.run(options.get("--order"), events);
            } else {
                run(options, events);
            }
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            events.log("error", "flaky runner failed: " + trace);
            status = FAILURE_STATUS;
        }
        events.flush();
        System.out.flush();
        System.err.flush();
        // Exit explicitly so stray non-daemon threads started by tests cannot keep the JVM alive.
        System.exit(status);
    }

    private static void list(Map<String, List<String>> options, Events events) throws Exception {
        Path dir = Paths.get(single(options, "--test-classes"));
        List<ClassPattern> includes = patterns(options.get("--include"), ClassScanner.DEFAULT_INCLUDES);
        List<ClassPattern> excludes = patterns(options.get("--exclude"), ClassScanner.DEFAULT_EXCLUDES);
        List<ListedTest> tests = TestRunner.with(events).list(ClassScanner.scan(dir, includes, excludes));
        // Stable: keeps each engine's method order within a class.
        tests.sort(Comparator.comparing(t -> t.listedClass));
        // As Surefire runs them: with JUnit 4 on the Vintage engine, engine by engine.
        events.tests(EngineOrder.of(Classes.loader()).apply(tests));
    }

    private static void run(Map<String, List<String>> options, Events events) throws Exception {
        boolean standby = options.containsKey("--standby");
        if (standby == options.containsKey("--order")) {
            usage("expected one --order or --standby true");
        }
        TestRunner runner = TestRunner.with(events);
        String orderFile = standby ? readLine() : single(options, "--order");
        if (orderFile == null) {
            return;
        }
        List<OrderEntry> order = OrderFile.read(Paths.get(orderFile));
        if (!standby) {
            // Only a run started with its order takes handoffs: the driver may hand the end of it to another JVM.
            events.acceptHandoffs(order);
        }
        runner.run(order);
    }

    /**
     * Reads one line of standard input byte by byte, so that nothing after it is consumed (a test that reads
     * standard input sees what follows); null at its end.
     */
    private static String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = System.in.read(); b != '\n'; b = System.in.read()) {
            if (b < 0) {
                return null;
            }
            line.write(b);
        }
        return new String(line.toByteArray(), StandardCharsets.UTF_8);
    }

    /**
     * Runs one order file with a runner of its own reporting to the driver: an order of a warm run, called by
     * {@link Warm} in the order's class loader.
     */
    public static void runWarmOrder(String orderFile) throws IOException {
        Events events = Events.open();
        try {
            TestRunner.with(events).run(OrderFile.read(Paths.get(orderFile)));
        } finally {
            events.flush();
        }
    }

    private static Map<String, List<String>> parseOptions(String[] args) {
        Map<String, List<String>> options = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String name = args[i];
            if (!name.startsWith("--") || i + 1 >= args.length) {
                usage("expected --option value, got " + name);
            }
            options.computeIfAbsent(name, k -> new ArrayList<>()).add(args[++i]);
        }
        return options;
    }

    private static String single(Map<String, List<String>> options, String name) {
        List<String> values = options.get(name);
        if (values == null || values.size() != 1) {
            usage("expected exactly one " + name);
        }
        return values.get(0);
    }

    private static List<ClassPattern> patterns(List<String> given, List<String> defaults) {
        List<ClassPattern> patterns = new ArrayList<>();
        for (String option : given != null ? given : defaults) {
            patterns.addAll(ClassPattern.parseAll(option));
        }
        return patterns;
    }

    private static void usage(String problem) {
        System.err.println("flaky runner: " + problem);
        System.err.println("usage: Main list --test-classes DIR [--include PATTERN]... [--exclude PATTERN]...");
        System.err.println("       Main run --order FILE | --standby true");
        System.err.println("       Main warm --order FILE [--order FILE]...");
        System.exit(USAGE_STATUS);
    }
}
