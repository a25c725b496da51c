package dev.flaky.agent.chaos;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
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

    @Test
    public void aLengthenedSleepSleepsTheLongerTime() throws InterruptedException {
        int site = configure("SLEEP_INCREASE", "chaos.sleep.limit", "1");
        long start = System.nanoTime();
        Api.sleep(1, site);
        // A lower bound only: a busy machine makes a sleep longer, never shorter.
        assertTrue("slept the 300 ms longer", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) >= 300);
    }

    @Test
    public void theFirstSleepsPerSiteAreLengthenedThenRealOnes() throws InterruptedException {
        int site = configure("SLEEP_INCREASE", "chaos.sleep.limit", "2");
        int other = Sites.register(Strategy.SLEEP_INCREASE, "java.util.concurrent.TimeUnit#sleep(long)", "SleepLimitTest",
                "other", "SleepLimitTest.java", 1000 + ++sites);
        try (RecordedPauses p = new RecordedPauses()) {
            Api.sleep(1, site);
            Api.sleepUnit(TimeUnit.MILLISECONDS, 1, site); // both sleep APIs count towards the site's limit
            assertEquals(Arrays.asList("301", "301"), p.millis());
            for (int i = 0; i < 5; i++) {
                Api.sleep(1, site);
            }
            assertEquals("a sleep after the limit is real", Arrays.asList("301", "301", "1", "1", "1", "1", "1"),
                    p.millis());
            Api.sleepUnit(TimeUnit.MICROSECONDS, 1500, other);
            assertEquals("another site has its own limit (and keeps its nanoseconds)", "301+500000",
                    p.millis().get(7));
        }
    }

    @Test
    public void limitZeroLengthensEverySleep() throws InterruptedException {
        int site = configure("SLEEP_INCREASE", "chaos.sleep.limit", "0");
        try (RecordedPauses p = new RecordedPauses()) {
            for (int i = 0; i < 5; i++) {
                Api.sleep(1, site);
            }
            assertEquals(Collections.nCopies(5, "301"), p.millis());
        }
    }

    @Test
    public void theDefaultLimitIsThree() throws InterruptedException {
        int site = configure("SLEEP_INCREASE");
        synchronized (EVENTS) {
            EVENTS.clear();
        }
        try (RecordedPauses p = new RecordedPauses()) {
            for (int i = 0; i < 4; i++) {
                Api.sleep(1, site);
            }
            assertEquals(Arrays.asList("301", "301", "301", "1"), p.millis());
        }
        synchronized (EVENTS) {
            assertEquals("the site is reported once", 1, EVENTS.size());
        }
    }

    @Test
    public void sleepDecreaseIsNotLimited() throws InterruptedException {
        int site = configure("SLEEP_DECREASE", "chaos.sleep.limit", "1");
        try (RecordedPauses p = new RecordedPauses()) {
            for (int i = 0; i < 5; i++) {
                Api.sleep(300, site);
            }
            assertEquals("300 ms less, every time", Collections.nCopies(5, "0"), p.millis());
        }
    }
}
