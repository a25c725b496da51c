package dev.flaky.agent;

import com.google.gson.GsonBuilder;
import dev.flaky.agent.chaos.Chaos;
import dev.flaky.agent.dataflow.Dataflow;
import dev.flaky.agent.invariants.Tracer;
import dev.flaky.agent.state.Capture;

import java.lang.instrument.Instrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Agent entry point. Options are {@code key=value} pairs separated by commas; {@code port} and {@code token} name
 * the driver to connect to, unknown keys are ignored. Without a {@code token} option the token comes from the
 * environment variable {@value #TOKEN_ENV}, which, unlike the command line, only the JVM's owner can read. Without {@code port}, or with an empty one (the flaky Maven
 * profile passes {@code port=,token=} when no driver listens), the agent stays unconnected. {@code chaos} and the
 * {@code chaos.*} options install the API perturbation of {@link dev.flaky.agent.chaos}, {@code state} and
 * {@code state.*} the state capture of {@link dev.flaky.agent.state}, {@code invariants} and {@code invariants.*} the
 * invariant tracer of {@link dev.flaky.agent.invariants}, {@code dataflow=true} the dependency recording of
 * {@link dev.flaky.agent.dataflow}.
 *
 * <p>With the system property {@value #DUMP_PROPERTY} set, {@code premain} only parses the options: it prints what
 * they parse to as one JSON object on standard output ({@code port}, {@code token}, and {@code chaos}, {@code state},
 * {@code invariants} as their packages' {@code describe} returns them, {@code dataflow} as a boolean) and returns
 * without connecting or instrumenting; invalid options halt the JVM as they do otherwise. The driver's tests run
 * {@code java -Dflaky.agent.dump=true -javaagent:flaky-agent.jar=... -version} to check that what the Go side
 * encodes is what this side decodes.
 */
public final class Agent {
    /** Exit status of a JVM whose agent could not connect to the driver. */
    static final int FAILURE_STATUS = 86;

    /** The environment variable that holds the token when no {@code token} option is given. */
    static final String TOKEN_ENV = "FLAKY_AGENT_TOKEN";

    /** The system property that makes {@code premain} print its parsed options instead of starting. */
    static final String DUMP_PROPERTY = "flaky.agent.dump";

    /** The features, in the order they are installed and dumped. */
    private static final List<Feature> FEATURES = Collections.unmodifiableList(Arrays.asList(
            Feature.of("chaos", Chaos::describe, Chaos::install),
            Feature.of("state", Capture::describe, Capture::install),
            Feature.of("invariants", Tracer::describe, Tracer::install),
            Feature.of("dataflow", Dataflow::enabled, Dataflow::install)));

    private Agent() {
    }

    /** Called before {@code main} when the JVM starts with {@code -javaagent}. */
    public static void premain(String args, Instrumentation inst) {
        start(args, inst);
    }

    /** Called when the agent is attached to a running JVM (chaos then reaches only classes loaded afterwards). */
    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst);
    }

    private static synchronized void start(String args, Instrumentation inst) {
        if (Channel.connected()) {
            return;
        }
        Map<String, String> options = parseOptions(args);
        if (System.getProperty(DUMP_PROPERTY) != null) {
            System.out.println(dump(options));
            System.out.flush();
            return;
        }
        JdkAccess.install(inst);
        Handshake.connect(options);
        for (Feature feature : FEATURES) {
            try {
                feature.install(options, inst);
            } catch (IllegalArgumentException e) {
                invalid(feature, e);
            }
        }
        if (Channel.hasBoundaries()) {
            Construction.install(inst);
        }
    }

    /** Returns what {@code options} parse to as JSON (see {@value #DUMP_PROPERTY}); halts on invalid options. */
    static String dump(Map<String, String> options) {
        Map<String, Object> parsed = new LinkedHashMap<>();
        parsed.put("port", options.get("port"));
        parsed.put("token", options.get("token"));
        for (Feature feature : FEATURES) {
            try {
                parsed.put(feature.name(), feature.describe(options));
            } catch (IllegalArgumentException e) {
                invalid(feature, e);
            }
        }
        return new GsonBuilder().disableHtmlEscaping().create().toJson(parsed);
    }

    /** Splits {@code key=value,key=value}; a pair without {@code =} gets an empty value. */
    static Map<String, String> parseOptions(String args) {
        Map<String, String> options = new HashMap<>();
        if (args == null) {
            return options;
        }
        for (String pair : args.split(",")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq < 0) {
                options.put(pair.trim(), "");
            } else {
                options.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return options;
    }

    /** Halts the JVM on {@code feature}'s invalid options. */
    private static void invalid(Feature feature, IllegalArgumentException e) {
        fail("invalid " + feature.name() + " options: " + e.getMessage());
    }

    /** Prints one {@code [flaky]} line to standard error and halts the JVM with {@link #FAILURE_STATUS}. */
    static void fail(String message) {
        System.err.println("[flaky] " + message);
        System.err.flush();
        Runtime.getRuntime().halt(FAILURE_STATUS);
    }
}
