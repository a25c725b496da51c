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
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

/** ASYNC_DELAY delays only the first {@code chaos.async.limit} submissions per call site and JVM. */
public class AsyncLimitTest {
    private static int sites;
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

    @After
    public void unconfigure() {
        AsyncApi.configure(ChaosConfig.parse(options()));
    }

    private static Map<String, String> options(String... more) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", "ASYNC_DELAY");
        o.put("chaos.async.delay", "300");
        for (int i = 0; i < more.length; i += 2) {
            o.put(more[i], more[i + 1]);
        }
        return o;
    }

    /** Configures AsyncApi with a 300 ms delay and {@code more}; returns a new call site. */
    private static int configure(String... more) {
        AsyncApi.configure(ChaosConfig.parse(options(more)));
        return Sites.register(Strategy.ASYNC_DELAY, "java.util.concurrent.Executor#execute(Runnable)", "AsyncLimitTest",
                "site", "AsyncLimitTest.java", 1000 + ++sites);
    }

    private static long timedRun(Runnable r) {
        long start = System.nanoTime();
        r.run();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    public void theFirstSubmissionsPerSiteAreDelayedThenStartAtOnce() {
        int site = configure("chaos.async.limit", "2");
        int other = Sites.register(Strategy.ASYNC_DELAY, "java.lang.Thread#<init>(Runnable)", "AsyncLimitTest",
                "other", "AsyncLimitTest.java", 1000 + ++sites);
        Runnable work = () -> { };
        for (int i = 0; i < 2; i++) {
            Runnable r = AsyncApi.delayed(work, site);
            assertNotSame(work, r);
            assertTrue("a delayed submission starts late", timedRun(r) >= 300);
        }
        for (int i = 0; i < 5; i++) {
            assertSame("a submission after the limit is the work itself", work, AsyncApi.delayed(work, site));
        }
        assertNotSame("another site has its own limit", work, AsyncApi.delayed(work, other));
    }

    @Test
    public void limitZeroDelaysEverySubmission() {
        int site = configure("chaos.async.limit", "0");
        Runnable work = () -> { };
        for (int i = 0; i < 5; i++) {
            assertNotSame(work, AsyncApi.delayed(work, site));
        }
    }

    /** A scheduler that records the delay each task is scheduled with. */
    private static final class Recording extends ScheduledThreadPoolExecutor {
        final List<Long> delaysMillis = new ArrayList<>();

        Recording() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            delaysMillis.add(unit.toMillis(delay));
            return super.schedule(command, delay, unit);
        }
    }

    @Test
    public void theDefaultLimitIsThreeAndCoversScheduledWork() {
        int site = configure();
        Recording e = new Recording();
        try {
            for (int i = 0; i < 4; i++) {
                AsyncApi.schedule(e, () -> { }, 10, TimeUnit.SECONDS, site).cancel(false);
            }
        } finally {
            e.shutdownNow();
        }
        assertEquals("three later by the delay, the fourth keeps its own", Arrays.asList(10_300L, 10_300L, 10_300L,
                10_000L), e.delaysMillis);
        assertEquals(3, ChaosConfig.parse(options()).asyncLimit);
    }
}
