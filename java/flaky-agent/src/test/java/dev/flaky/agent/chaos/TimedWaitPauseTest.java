package dev.flaky.agent.chaos;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Under TIME_INCREMENT a timed wait pauses before it starts, as a reading of the clock does, within the test's
 * budget; the wait itself takes real time, as the clock does, so the clock shows the pause and the wait together.
 */
public class TimedWaitPauseTest {
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

    private static void nextTest() {
        Map<String, Object> end = new HashMap<>();
        end.put("type", "test-end");
        dev.flaky.agent.Channel.send(end);
    }

    @Test
    public void aTimedWaitPausesFirstAndTheClockShowsIt() throws InterruptedException {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", "TIME_INCREMENT");
        FakeRealClock real = new FakeRealClock();
        PerceivedClock previous = TimeApi.configured();
        TimeApi.configure(new PerceivedClock(Strategy.TIME_INCREMENT, ChaosConfig.parse(o), real));
        int site = Sites.register(Strategy.TIME_INCREMENT, "java.util.concurrent.CountDownLatch#await(long,TimeUnit)",
                "TimedWaitPauseTest", "site", "TimedWaitPauseTest.java", 1);
        int read = Sites.register(Strategy.TIME_INCREMENT, "java.lang.System#nanoTime()", "TimedWaitPauseTest",
                "site", "TimedWaitPauseTest.java", 2);
        try (RecordedPauses pauses = new RecordedPauses(real)) {
            checkPauses(site, read, real, pauses);
        } finally {
            TimeApi.configure(previous);
        }
    }

    private static void checkPauses(int site, int read, FakeRealClock real, RecordedPauses pauses)
            throws InterruptedException {
        {
            nextTest();
            CountDownLatch done = new CountDownLatch(1);
            done.countDown();
            assertTrue(TimeApi.await(done, 1, TimeUnit.SECONDS, site));
            long start = TimeApi.nanoTime(read);
            assertTrue(TimeApi.await(done, 1, TimeUnit.SECONDS, site));
            assertEquals("the wait's pause, then the reading's: the budget is spent", Arrays.asList("300", "300"),
                    pauses.millis());
            assertEquals(real.nanoTime(), TimeApi.nanoTime(read));
            assertEquals(0, TimeApi.nanoTime(read) - start);
            synchronized (EVENTS) {
                assertTrue("the wait that paused is reported", EVENTS.stream().anyMatch(e -> e.toString().contains("CountDownLatch")));
            }
        }
    }

    private static List<Targets.Target> waitTargets(String strategies) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", strategies);
        return Targets.of(ChaosConfig.parse(o)).lookup("poll", "(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;");
    }

    @Test
    public void timedWaitsPauseUnderTheLoadedMachineAndTheSlowCpuUnlessAnotherStrategyWrapsThem() {
        for (String time : new String[] {"TIME_INCREMENT", "TIME_SLOW"}) {
            List<Targets.Target> alone = waitTargets(time);
            assertEquals(time, 1, alone.size());
            assertEquals(Targets.TIME_API, alone.get(0).api);
            assertEquals(Strategy.valueOf(time), alone.get(0).strategy);
            // The first target wins at a call site: CONCURRENCY_SHRINK's wrapper keeps the wait.
            assertEquals(Strategy.CONCURRENCY_SHRINK, waitTargets(time + "+CONCURRENCY_SHRINK").get(0).strategy);
        }
        assertTrue("a coarse clock pauses nothing", waitTargets("TIME_ROUNDING").isEmpty());
    }
}
