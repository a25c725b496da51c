package dev.flaky.agent;

import com.google.gson.JsonObject;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.LinkedHashMap;
import java.util.Map;

/** Connects the agent to the driver: the hello, the driver's welcome or reject, and the retries (agent/PROTOCOL.md). */
final class Handshake {
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

    private Handshake() {
    }

    /** Connects to the driver that the {@code port} and {@code token} options name, if any. */
    static void connect(Map<String, String> options) {
        String port = options.get("port");
        if (port == null || port.isEmpty()) {
            return;
        }
        int portNumber;
        try {
            portNumber = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            Agent.fail("invalid port option " + port);
            return;
        }
        String token = options.getOrDefault("token", "");
        if (token.isEmpty()) {
            String fromEnv = System.getenv(Agent.TOKEN_ENV);
            token = fromEnv == null ? "" : fromEnv;
        }
        handshake(portNumber, token);
    }

    /**
     * Connects and performs the handshake; halts the JVM with {@link Agent#FAILURE_STATUS} on a reject, or when no
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
            welcome.put("type", MessageTypes.WELCOME);
            Frames.prepareReading(welcome);
            address = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
        } catch (IOException e) {
            Agent.fail("cannot prepare the handshake with the flaky driver at " + where + ": " + e);
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
                if (MessageTypes.REJECT.equals(type)) {
                    Agent.fail("the flaky driver at " + where + " rejected this JVM: " + Frames.string(answer, "reason"));
                } else if (!MessageTypes.WELCOME.equals(type)) {
                    Agent.fail("unexpected answer \"" + type + "\" from the flaky driver at " + where);
                }
                socket.setSoTimeout(0);
                Channel.open(socket, in, out);
                return;
            } catch (IOException e) {
                closeQuietly(socket);
                long sleep = Math.min(pause, remainingMillis(deadline));
                if (e instanceof SocketTimeoutException || sleep <= 0 || attempts == MAX_ATTEMPTS) {
                    Agent.fail("cannot connect to the flaky driver at " + where + " (" + attempts
                            + (attempts == 1 ? " attempt" : " attempts") + "): " + e);
                }
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    Agent.fail("interrupted while connecting to the flaky driver at " + where);
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
        hello.put("type", MessageTypes.HELLO);
        hello.put("protocol", PROTOCOL);
        hello.put("token", token);
        hello.put("pid", pid());
        hello.put("javaVersion", System.getProperty("java.version"));
        String version = Handshake.class.getPackage().getImplementationVersion();
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

}
