package dev.flaky.agent.chaos;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/** SLEEP_INCREASE lengthens only the first {@code chaos.sleep.limit} sleeps per call site and JVM. */
public class SleepLimitTest {
    private static int sites;
    private static Consumer<Map<String, Object>> previousSink;
    private static final List<Map<String, Object>> EVENTS = new ArrayList<>();

    @BeforeClass
    public static void recordEvents() {
        previousSink = Sites.sink;
        Sites.sink = e -> {
            synchronized (EVENTS) {
                EVENTS.add(e);
            }
        };
    }

    @AfterClass
    public static void restore() {
        Sites.sink = previousSink;
    }

    @After
    public void unconfigure() {
        Api.configure(ChaosConfig.parse(options("LOCALE")));
    }

    private static Map<String, String> options(String strategy, String... more) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", strategy);
        for (int i = 0; i < more.length; i += 2) {
            o.put(more[i], more[i + 1]);
        }
        return o;
    }

    /** Configures Api with {@code strategy} and a 300 ms delta; returns a new call site. */
    private static int configure(String strategy, String... more) {
        Map<String, String> o = options(strategy, more);
        o.put("chaos.sleep", "300");
        Api.configure(ChaosConfig.parse(o));
        return Sites.register(Strategy.valueOf(strategy), "java.lang.Thread#sleep(long)", "SleepLimitTest", "site",
                "SleepLimitTest.java", 1000 + ++sites);
    }

    private static long timedSleep(int site) throws InterruptedException {
        long start = System.nanoTime();
        Api.sleep(1, site);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static long timedSleepUnit(int site) throws InterruptedException {
        long start = System.nanoTime();
        Api.sleepUnit(TimeUnit.MILLISECONDS, 1, site);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    public void theFirstSleepsPerSiteAreLengthenedThenRealOnes() throws InterruptedException {
        int site = configure("SLEEP_INCREASE", "chaos.sleep.limit", "2");
        int other = Sites.register(Strategy.SLEEP_INCREASE, "java.util.concurrent.TimeUnit#sleep(long)", "SleepLimitTest",
                "other", "SleepLimitTest.java", 1000 + ++sites);
        assertTrue(timedSleep(site) >= 300);
        assertTrue(timedSleepUnit(site) >= 300); // both sleep APIs count towards the site's limit
        for (int i = 0; i < 5; i++) {
            assertTrue("a sleep after the limit is real", timedSleep(site) < 200);
        }
        assertTrue("another site has its own limit", timedSleepUnit(other) >= 300);
    }

    @Test
    public void limitZeroLengthensEverySleep() throws InterruptedException {
        int site = configure("SLEEP_INCREASE", "chaos.sleep.limit", "0");
        for (int i = 0; i < 5; i++) {
            assertTrue(timedSleep(site) >= 300);
        }
    }

    @Test
    public void theDefaultLimitIsThree() throws InterruptedException {
        int site = configure("SLEEP_INCREASE");
        synchronized (EVENTS) {
            EVENTS.clear();
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(timedSleep(site) >= 300);
        }
        assertTrue(timedSleep(site) < 200);
        synchronized (EVENTS) {
            assertEquals("the site is reported once", 1, EVENTS.size());
        }
    }

    @Test
    public void sleepDecreaseIsNotLimited() throws InterruptedException {
        int site = configure("SLEEP_DECREASE", "chaos.sleep.limit", "1");
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            Api.sleep(300, site);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 200);
        }
    }
}
