package dev.flaky.agent.chaos;

import java.net.Socket;
import java.net.SocketException;
import java.net.URLConnection;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

/**
 * The wrappers of the blocking network timeouts that NETWORK_DELAY shortens as a slow network would make them
 * expire: {@code URLConnection.setConnectTimeout}/{@code setReadTimeout} and {@code Socket.setSoTimeout} keep
 * {@code chaos.network.timeout} of their value (at least 1 ms; 0, "no timeout", stays 0). A timeout that is tight
 * for the exchange it guards fires; a generous one (a 30 s read timeout on a 50 ms local exchange) does not.
 * A slow network leaves the settings as they were made, so the project's getters ({@code getConnectTimeout},
 * {@code getReadTimeout}, {@code getSoTimeout}, and {@code connectTimeout()}/{@code timeout()} of
 * {@code java.net.http}) read back the timeout the project set, not the shortened one.
 * Public because project classes call it.
 */
public final class NetApi {
    private static double factor = 1;

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
    static void keep(Duration given, Duration shortened) {
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
