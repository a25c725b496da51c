package dev.flaky.agent.chaos;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.URL;
import java.net.URLConnection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class NetApiTest {
    private static final int SITE = Sites.register(Strategy.NETWORK_DELAY, "java.net.URLConnection#setReadTimeout(int)",
            "fixture.Client", "fetch", "Client.java", 1);
    private static Consumer<Map<String, Object>> previousSink;
    /** The perturbation events, recorded rather than printed. */
    private static final List<Map<String, Object>> EVENTS = Collections.synchronizedList(new ArrayList<>());

    @BeforeClass
    public static void recordEvents() {
        previousSink = Sites.sink;
        Sites.sink = EVENTS::add;
    }

    @AfterClass
    public static void restore() {
        Sites.sink = previousSink;
    }

    private static void configure(String... keyValues) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", "NETWORK_DELAY");
        for (int i = 0; i < keyValues.length; i += 2) {
            o.put(keyValues[i], keyValues[i + 1]);
        }
        NetApi.configure(ChaosConfig.parse(o));
    }

    @Test
    public void timeoutsKeepATenthByDefault() throws Exception {
        configure();
        URLConnection c = new URL("http://localhost:1/").openConnection();
        NetApi.setConnectTimeout(c, 30_000, SITE);
        NetApi.setReadTimeout(c, 1000, SITE);
        assertEquals(3000, c.getConnectTimeout());
        assertEquals(100, c.getReadTimeout());
        try (Socket s = new Socket()) {
            NetApi.setSoTimeout(s, 5, SITE);
            assertEquals(1, s.getSoTimeout());
            NetApi.setSoTimeout(s, 0, SITE);
            assertEquals("no timeout stays no timeout", 0, s.getSoTimeout());
        }
    }

    @Test
    public void gettersReadBackTheTimeoutsTheProjectSet() throws Exception {
        configure();
        URLConnection c = new URL("http://localhost:1/").openConnection();
        NetApi.setConnectTimeout(c, 50_000, SITE);
        NetApi.setReadTimeout(c, 30_000, SITE);
        assertEquals(50_000, NetApi.getConnectTimeout(c));
        assertEquals(30_000, NetApi.getReadTimeout(c));
        c.setReadTimeout(700); // set where nothing is perturbed (a library's own call): read back as it is
        assertEquals(700, NetApi.getReadTimeout(c));
        URLConnection untouched = new URL("http://localhost:1/").openConnection();
        untouched.setConnectTimeout(3000);
        assertEquals(3000, NetApi.getConnectTimeout(untouched));
        try (Socket s = new Socket()) {
            NetApi.setSoTimeout(s, 2000, SITE);
            assertEquals(200, s.getSoTimeout());
            assertEquals(2000, NetApi.getSoTimeout(s));
        }
    }

    @Test
    public void theFactorIsAParameter() {
        configure("chaos.network.timeout", "0.5");
        assertEquals(500, NetApi.shrink(1000, SITE));
        assertEquals(-3, NetApi.shrink(-3, SITE));
    }

    /** A socket that records the timeout of its connects. */
    private static final class Recording extends Socket {
        final List<Integer> timeouts = new ArrayList<>();

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            timeouts.add(timeout);
            super.connect(endpoint, timeout);
        }
    }

    @Test
    public void aConnectTakesAtMostItsTimeoutWithoutANameToResolve() throws Exception {
        configure("chaos.resolve", "5000", "chaos.network", "0.5");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Recording s = new Recording();
                RecordedPauses p = new RecordedPauses()) {
            NetApi.connect(s, new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 400, SITE);
            assertEquals("waits the timeout less the shrunk one, and no name-resolution delay on a resolved address",
                    Arrays.asList("200"), p.millis());
            assertEquals("connects with the shrunk timeout", Arrays.asList(200), s.timeouts);
            assertTrue(s.isConnected());
        }
    }

    @Test
    public void aNamesFirstResolutionWaitsOnlyOnce() {
        configure("chaos.resolve", "300");
        String name = "first-resolution.invalid";
        try (RecordedPauses p = new RecordedPauses()) {
            assertEquals(name, NetApi.resolving(name, SITE));
            assertEquals("the first resolution waits", Arrays.asList("300"), p.millis());
            NetApi.resolving(name.toUpperCase(java.util.Locale.ROOT), SITE);
            NetApi.resolving("127.0.0.1", SITE);
            NetApi.resolving("::1", SITE);
            NetApi.resolving("", SITE);
            NetApi.resolving(null, SITE);
            NetApi.resolving("localhost", SITE);
            NetApi.resolving("LocalHost.", SITE);
            NetApi.resolving("app.localhost", SITE);
            assertEquals("a resolved name, literals, null, \"\" and localhost names do not wait", Arrays.asList("300"),
                    p.millis());
        }
    }

    @Test
    public void addressLiteralsAreNotResolved() {
        assertTrue(NetApi.isAddressLiteral("10.0.0.1"));
        assertTrue(NetApi.isAddressLiteral("[::1]"));
        assertTrue(NetApi.isAddressLiteral("fe80::1%eth0"));
        assertFalse(NetApi.isAddressLiteral("localhost"));
        assertFalse(NetApi.isAddressLiteral("1.example"));
    }
}
