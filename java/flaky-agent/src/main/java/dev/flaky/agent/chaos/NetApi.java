package dev.flaky.agent.chaos;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.URLConnection;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The wrappers of NETWORK_DELAY, which makes the network slow within the APIs' specifications (ChaosAPI's Network
 * Delay strategy). {@code Socket.connect(SocketAddress, int)} waits (timeout - shrunk timeout), then connects with
 * the shrunk timeout ({@code chaos.network} of it), so the connect takes at most the timeout it was given, as its
 * specification promises; {@code HttpClient.Builder.connectTimeout} and {@code HttpRequest.Builder.timeout} get the
 * shrunk duration. A host name's resolution, which comes before the connect and outside its timeout, waits the
 * name-resolution delay ({@code chaos.resolve}) where it happens: the first resolution of a name in the JVM (see
 * {@link #resolving}), never a connect to an address. The blocking network timeouts,
 * {@code URLConnection.setConnectTimeout}/{@code setReadTimeout} and {@code Socket.setSoTimeout}, keep
 * {@code chaos.network.timeout} of their value (at least 1 ms; 0, "no timeout", stays 0): a timeout that is tight
 * for the exchange it guards fires; a generous one (a 30 s read timeout on a 50 ms local exchange) does not. A slow
 * network leaves the settings as they were made, so the project's getters ({@code getConnectTimeout},
 * {@code getReadTimeout}, {@code getSoTimeout}, and {@code connectTimeout()}/{@code timeout()} of
 * {@code java.net.http}) read back the timeout the project set, not the shortened one. Public because project
 * classes call it.
 */
public final class NetApi {
    private static double factor = 1;
    private static double connectFactor = 1;
    private static long resolveDelayMs;

    /** The host names resolved so far in this JVM, lower-cased (see {@link #resolving}). */
    private static final Set<String> RESOLVED = Collections.synchronizedSet(new HashSet<String>());

    /** The connect timeouts given of the connections holding shortened ones: {given, shortened}. */
    private static final Map<Object, int[]> CONNECT = Collections.synchronizedMap(new WeakHashMap<Object, int[]>());
    /** The read timeouts given of the connections and sockets holding shortened ones: {given, shortened}. */
    private static final Map<Object, int[]> READ = Collections.synchronizedMap(new WeakHashMap<Object, int[]>());
    /**
     * The java.net.http timeouts given, by the shortened Duration passed on instead. Keyed by value (a Duration
     * has no identity worth relying on): a project getter reading an equal Duration that a library set
     * unperturbed reads the given one too (a rare mix-up: it needs that Duration to equal a shortened one).
     */
    private static final Map<Duration, Duration> DURATIONS =
            Collections.synchronizedMap(new WeakHashMap<Duration, Duration>());

    private NetApi() {
    }

    static void configure(ChaosConfig c) {
        factor = c.networkTimeoutFactor;
        connectFactor = c.networkFactor;
        resolveDelayMs = c.resolveDelayMs;
    }

    /**
     * {@code Socket.connect(SocketAddress, int)}: a pre-delay of (timeout - shrunk timeout), then the connect with
     * the shrunk timeout, so the connect's budget stays the original. No timeout (0) has nothing to shrink: the
     * connect is made as it is, and so is one with a negative timeout (the JDK rejects it).
     */
    public static void connect(Socket socket, SocketAddress address, int timeout, int site) throws IOException {
        if (timeout <= 0) {
            socket.connect(address, timeout);
            return;
        }
        Sites.hit(site);
        int perturbed = (int) Math.max(1, (long) (timeout * connectFactor));
        pause(timeout - perturbed);
        socket.connect(address, perturbed);
    }

    /**
     * Host-name resolution at a project call site ({@code InetAddress.getByName}/{@code getAllByName},
     * {@code new InetSocketAddress(String, int)}, {@code new Socket(String, int)}): the first resolution of a host
     * name in the JVM waits the name-resolution delay first, as a slow resolver would make it. An address literal,
     * null or "" (the loopback address) is not resolved; "localhost" and its subdomains are answered locally
     * (RFC 6761: resolvers return the loopback address without asking DNS); and the JDK caches a name it resolved
     * ({@code networkaddress.cache.ttl}, 30 s by default): none of these waits. Returns {@code host} for the call.
     * Interrupted, it returns at once with the thread's interrupt status set.
     */
    public static String resolving(String host, int site) {
        if (resolveDelayMs <= 0 || host == null || host.isEmpty() || isAddressLiteral(host)) {
            return host;
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        if (name.equals("localhost") || name.endsWith(".localhost") || !RESOLVED.add(name)) {
            return host;
        }
        Sites.hit(site);
        try {
            Pauses.millis(resolveDelayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return host;
    }

    /**
     * Reports whether {@code host} is an IP address literal, which {@code InetAddress} parses without a resolver:
     * IPv6 (a host name holds no colon) or digits and dots.
     */
    static boolean isAddressLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return true;
    }

    /** {@code HttpClient.Builder.connectTimeout(Duration)} (JDK 11+) with the timeout shrunk (at least 1 ms). */
    public static Object httpConnectTimeout(Object builder, Object duration, int site) {
        return Jdk.call("java.net.http.HttpClient$Builder", "connectTimeout", builder, shrinkDuration(duration, site));
    }

    /** {@code HttpRequest.Builder.timeout(Duration)} (JDK 11+) with the timeout shrunk (at least 1 ms). */
    public static Object httpRequestTimeout(Object builder, Object duration, int site) {
        return Jdk.call("java.net.http.HttpRequest$Builder", "timeout", builder, shrinkDuration(duration, site));
    }

    private static Duration shrinkDuration(Object duration, int site) {
        Duration d = (Duration) duration;
        if (d == null || d.isNegative() || d.isZero()) {
            return d;
        }
        Sites.hit(site);
        long nanos = d.getSeconds() >= Long.MAX_VALUE / 2_000_000_000L ? Long.MAX_VALUE / 2 : d.toNanos();
        Duration shrunk = Duration.ofNanos(Math.max(1_000_000L, (long) (nanos * connectFactor)));
        if (Explain.on) {
            Explain.log(site, d, shrunk);
        }
        keep(d, shrunk);
        return shrunk;
    }

    private static void pause(long millis) throws InterruptedIOException {
        if (millis <= 0) {
            return;
        }
        try {
            Pauses.millis(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while connecting");
        }
    }

    /** {@code URLConnection.setConnectTimeout(int)}. */
    public static void setConnectTimeout(URLConnection connection, int timeout, int site) {
        int shrunk = shrink(timeout, site);
        connection.setConnectTimeout(shrunk);
        keep(CONNECT, connection, timeout, shrunk);
    }

    /** {@code URLConnection.setReadTimeout(int)}. */
    public static void setReadTimeout(URLConnection connection, int timeout, int site) {
        int shrunk = shrink(timeout, site);
        connection.setReadTimeout(shrunk);
        keep(READ, connection, timeout, shrunk);
    }

    /** {@code Socket.setSoTimeout(int)}. */
    public static void setSoTimeout(Socket socket, int timeout, int site) throws SocketException {
        int shrunk = shrink(timeout, site);
        socket.setSoTimeout(shrunk);
        keep(READ, socket, timeout, shrunk);
    }

    /** {@code URLConnection.getConnectTimeout()}: the timeout the project set. */
    public static int getConnectTimeout(URLConnection connection) {
        return given(CONNECT, connection, connection.getConnectTimeout());
    }

    /** {@code URLConnection.getReadTimeout()}: the timeout the project set. */
    public static int getReadTimeout(URLConnection connection) {
        return given(READ, connection, connection.getReadTimeout());
    }

    /** {@code Socket.getSoTimeout()}: the timeout the project set. */
    public static int getSoTimeout(Socket socket) throws SocketException {
        return given(READ, socket, socket.getSoTimeout());
    }

    /** {@code HttpClient.connectTimeout()} (JDK 11+): the timeout the project set. */
    public static Optional<?> givenConnectTimeout(Object client) {
        return given((Optional<?>) Jdk.call("java.net.http.HttpClient", "connectTimeout", client));
    }

    /** {@code HttpRequest.timeout()} (JDK 11+): the timeout the project set. */
    public static Optional<?> givenTimeout(Object request) {
        return given((Optional<?>) Jdk.call("java.net.http.HttpRequest", "timeout", request));
    }

    /** Records that {@code shortened} was passed on for the java.net.http timeout {@code given}. */
    private static void keep(Duration given, Duration shortened) {
        if (shortened != null && !shortened.equals(given)) {
            DURATIONS.put(shortened, given);
        }
    }

    private static Optional<?> given(Optional<?> timeout) {
        if (timeout == null || !timeout.isPresent()) {
            return timeout;
        }
        Duration given = DURATIONS.get(timeout.get());
        return given == null ? timeout : Optional.of(given);
    }

    private static void keep(Map<Object, int[]> timeouts, Object holder, int given, int shrunk) {
        if (given == shrunk) {
            timeouts.remove(holder);
        } else {
            timeouts.put(holder, new int[] {given, shrunk});
        }
    }

    /** The timeout given for holder when {@code actual} is still the shortened one, else {@code actual}. */
    private static int given(Map<Object, int[]> timeouts, Object holder, int actual) {
        int[] kept = timeouts.get(holder);
        return kept != null && kept[1] == actual ? kept[0] : actual;
    }

    /** The shortened timeout; 0 (none) and negative values (rejected by the callee) pass unchanged. */
    static int shrink(int timeout, int site) {
        if (timeout <= 0) {
            return timeout;
        }
        Sites.hit(site);
        int shrunk = (int) Math.max(1, (long) (timeout * factor));
        if (Explain.on) {
            Explain.log(site, timeout + " ms", shrunk + " ms");
        }
        return shrunk;
    }
}
