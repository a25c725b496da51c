package dev.flaky.agent;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import dev.flaky.agent.chaos.Chaos;
import dev.flaky.agent.invariants.Tracer;
import dev.flaky.agent.dataflow.Dataflow;
import dev.flaky.agent.state.Capture;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.HashMap;
import java.util.LinkedHashMap;
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

    private static final int PROTOCOL = 1;
    /**
     * How long the handshake may take in all, from when the agent is ready to send its hello: a safety net, far
     * above the driver's own bounds on its answer (see {@code agent/server.go}).
     */
    private static final int HANDSHAKE_TIMEOUT_MS = 60_000;
    private static final long FIRST_RETRY_PAUSE_MS = 20;
    private static final long MAX_RETRY_PAUSE_MS = 1_000;
    /** Attempts to connect, about 2.3 s of pauses in all: a driver that is gone refuses every one. */
    private static final int MAX_ATTEMPTS = 8;

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
        connect(options);
        try {
            Chaos.install(options, inst);
        } catch (IllegalArgumentException e) {
            fail("invalid chaos options: " + e.getMessage());
        }
        try {
            Capture.install(options, inst);
        } catch (IllegalArgumentException e) {
            fail("invalid state options: " + e.getMessage());
        }
        try {
            Tracer.install(options, inst);
        } catch (IllegalArgumentException e) {
            fail("invalid invariants options: " + e.getMessage());
        }
        Dataflow.install(options, inst);
        if (Channel.hasBoundaries()) {
            Construction.install(inst);
        }
    }

    /** Returns what {@code options} parse to as JSON (see {@value #DUMP_PROPERTY}); halts on invalid options. */
    static String dump(Map<String, String> options) {
        Map<String, Object> parsed = new LinkedHashMap<>();
        parsed.put("port", options.get("port"));
        parsed.put("token", options.get("token"));
        try {
            parsed.put("chaos", Chaos.describe(options));
        } catch (IllegalArgumentException e) {
            fail("invalid chaos options: " + e.getMessage());
        }
        try {
            parsed.put("state", Capture.describe(options));
        } catch (IllegalArgumentException e) {
            fail("invalid state options: " + e.getMessage());
        }
        try {
            parsed.put("invariants", Tracer.describe(options));
        } catch (IllegalArgumentException e) {
            fail("invalid invariants options: " + e.getMessage());
        }
        parsed.put("dataflow", Dataflow.enabled(options));
        return new GsonBuilder().disableHtmlEscaping().create().toJson(parsed);
    }

    /** Connects to the driver that the {@code port} and {@code token} options name, if any. */
    private static void connect(Map<String, String> options) {
        String port = options.get("port");
        if (port == null || port.isEmpty()) {
            return;
        }
        int portNumber;
        try {
            portNumber = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            fail("invalid port option " + port);
            return;
        }
        String token = options.getOrDefault("token", "");
        if (token.isEmpty()) {
            String fromEnv = System.getenv(TOKEN_ENV);
            token = fromEnv == null ? "" : fromEnv;
        }
        handshake(portNumber, token);
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

    /**
     * Connects and performs the handshake; halts the JVM with {@link #FAILURE_STATUS} on a reject, or when no
     * attempt got an answer within {@link #HANDSHAKE_TIMEOUT_MS} in all. A connection that is refused or closed
     * before the answer (the driver makes room for new connections under a flood of idle ones by closing the
     * oldest) is tried again after a pause that starts at 20 ms and doubles each time, up to
     * {@link #MAX_ATTEMPTS} attempts.
     *
     * <p>The driver gives a new connection a few seconds to send its hello. Everything that loads classes (the
     * hello's JSON and the reading of an answer) is done before the first connection, so that the driver's clock
     * and this one start only when flaky's code is ready: in a JVM whose other agents started first, or that
     * instrument these classes, loading them can take longer than that on a busy machine. The deadline is a
     * safety net against a driver that accepts and never answers (it answers or closes within its own bounds).
     */
    private static void handshake(int port, String token) {
        String where = "127.0.0.1:" + port;
        byte[] hello;
        InetSocketAddress address;
        try {
            hello = Frames.encode(hello(token));
            Map<String, Object> welcome = new LinkedHashMap<>();
            welcome.put("type", "welcome");
            Frames.prepareReading(welcome);
            address = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
        } catch (IOException e) {
            fail("cannot prepare the handshake with the flaky driver at " + where + ": " + e);
            return;
        }
        long deadline = System.nanoTime() + HANDSHAKE_TIMEOUT_MS * 1_000_000L;
        long pause = FIRST_RETRY_PAUSE_MS;
        int attempts = 0;
        while (true) {
            attempts++;
            Socket socket = new Socket();
            try {
                int left = remainingMillis(deadline);
                socket.setTcpNoDelay(true);
                socket.connect(address, left);
                socket.setSoTimeout(Math.max(1, remainingMillis(deadline)));
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
                out.write(hello);
                out.flush();
                JsonObject answer = Frames.read(in);
                String type = Frames.string(answer, "type");
                if ("reject".equals(type)) {
                    fail("the flaky driver at " + where + " rejected this JVM: " + Frames.string(answer, "reason"));
                } else if (!"welcome".equals(type)) {
                    fail("unexpected answer \"" + type + "\" from the flaky driver at " + where);
                }
                socket.setSoTimeout(0);
                Channel.open(socket, in, out);
                return;
            } catch (IOException e) {
                closeQuietly(socket);
                long sleep = Math.min(pause, remainingMillis(deadline));
                if (e instanceof SocketTimeoutException || sleep <= 0 || attempts == MAX_ATTEMPTS) {
                    fail("cannot connect to the flaky driver at " + where + " (" + attempts
                            + (attempts == 1 ? " attempt" : " attempts") + "): " + e);
                }
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    fail("interrupted while connecting to the flaky driver at " + where);
                }
                pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
            }
        }
    }

    /** Returns the milliseconds left until {@code deadline} (a {@link System#nanoTime} value), at least 0. */
    private static int remainingMillis(long deadline) {
        return (int) Math.max(0, (deadline - System.nanoTime()) / 1_000_000L);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing was sent on it that matters.
        }
    }

    private static Map<String, Object> hello(String token) {
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("type", "hello");
        hello.put("protocol", PROTOCOL);
        hello.put("token", token);
        hello.put("pid", pid());
        hello.put("javaVersion", System.getProperty("java.version"));
        String version = Agent.class.getPackage().getImplementationVersion();
        hello.put("agentVersion", version == null ? "dev" : version);
        return hello;
    }

    /** Returns this JVM's process id: ProcessHandle on Java 9+, the runtime MXBean's name on Java 8. */
    private static long pid() {
        try {
            Class<?> handle = Class.forName("java.lang.ProcessHandle");
            Object current = handle.getMethod("current").invoke(null);
            return (Long) handle.getMethod("pid").invoke(current);
        } catch (ReflectiveOperationException e) {
            String name = ManagementFactory.getRuntimeMXBean().getName();
            try {
                return Long.parseLong(name.substring(0, name.indexOf('@')));
            } catch (RuntimeException notANumber) {
                return -1;
            }
        }
    }

    /** Prints one {@code [flaky]} line to standard error and halts the JVM with {@link #FAILURE_STATUS}. */
    static void fail(String message) {
        System.err.println("[flaky] " + message);
        System.err.flush();
        Runtime.getRuntime().halt(FAILURE_STATUS);
    }
}
