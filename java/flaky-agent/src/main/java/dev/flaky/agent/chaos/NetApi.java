package dev.flaky.agent.chaos;

import java.net.Socket;
import java.net.SocketException;
import java.net.URLConnection;

/**
 * The wrappers of the blocking network timeouts that NETWORK_DELAY shortens as a slow network would make them
 * expire: {@code URLConnection.setConnectTimeout}/{@code setReadTimeout} and {@code Socket.setSoTimeout} keep
 * {@code chaos.network.timeout} of their value (at least 1 ms; 0, "no timeout", stays 0). A timeout that is tight
 * for the exchange it guards fires; a generous one (a 30 s read timeout on a 50 ms local exchange) does not.
 * Public because project classes call it.
 */
public final class NetApi {
    private static double factor = 1;

    private NetApi() {
    }

    static void configure(ChaosConfig c) {
        factor = c.networkTimeoutFactor;
    }

    /** {@code URLConnection.setConnectTimeout(int)}. */
    public static void setConnectTimeout(URLConnection connection, int timeout, int site) {
        connection.setConnectTimeout(shrink(timeout, site));
    }

    /** {@code URLConnection.setReadTimeout(int)}. */
    public static void setReadTimeout(URLConnection connection, int timeout, int site) {
        connection.setReadTimeout(shrink(timeout, site));
    }

    /** {@code Socket.setSoTimeout(int)}. */
    public static void setSoTimeout(Socket socket, int timeout, int site) throws SocketException {
        socket.setSoTimeout(shrink(timeout, site));
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
