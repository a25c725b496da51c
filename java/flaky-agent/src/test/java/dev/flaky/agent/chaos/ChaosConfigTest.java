package dev.flaky.agent.chaos;

import dev.flaky.agent.Agent;
import org.junit.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class ChaosConfigTest {
    private static ChaosConfig parse(String... pairs) {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            o.put(pairs[i], pairs[i + 1]);
        }
        return ChaosConfig.parse(o);
    }

    @Test
    public void absentOrEmptyChaosMeansNoInstrumentation() {
        assertNull(parse());
        assertNull(parse("chaos", ""));
        // Would throw on a null Instrumentation if it tried to install anything.
        Agent.premain("port=,token=,chaos=", null);
    }

    @Test
    public void defaultsFollowTheStudy() {
        ChaosConfig c = parse("chaos", "RANDOM_MAX+time_increment");
        assertTrue(c.enabled(Strategy.RANDOM_MAX) && c.enabled(Strategy.TIME_INCREMENT));
        assertEquals(ChaosConfig.RandomMode.MAX, c.randomMode);
        assertEquals(300, c.timeIncrementMs);
        assertEquals(600, c.timeBudgetMs);
        assertEquals(16, c.timeGranularityMs);
        assertEquals(10, c.timeSlow, 0);
        assertEquals(32503680000000L, c.dateMillis);
        assertEquals(new Locale("tr", "TR"), c.locale);
        assertEquals(2000, c.sleepMs);
        assertEquals(0.2, c.concurrencyFactor, 0);
        assertEquals(0.01, c.networkFactor, 0);
        assertEquals(1000, c.resolveDelayMs);
        assertEquals(1000, c.asyncDelayMs);
        assertEquals("Pacific/Chatham", c.timezone.getId());
        assertEquals(2000, c.dateMarginMs);
        assertEquals(3, c.randomLimit);
        assertEquals(3, c.sleepLimit);
        assertEquals(3, c.asyncLimit);
        assertFalse(c.iterationAll);
        assertFalse(c.explain);
    }

    @Test
    public void timeFastIsTheRateClockOfTimeIncrement() {
        ChaosConfig c = parse("chaos", "time_fast", "chaos.time.fast", "2.5");
        assertTrue(c.enabled(Strategy.TIME_INCREMENT));
        assertEquals(1500, c.timeIncrementMs);
        assertEquals(3000, parse("chaos", "TIME_FAST", "chaos.time.fast", "2", "chaos.time.increment", "3000").timeIncrementMs);
    }

    @Test
    public void secondGenerationParameters() {
        ChaosConfig c = parse("chaos", "ASYNC_DELAY+TIMEZONE+ITERATION_ORDER+DATE_DST", "chaos.async.delay", "250",
                "chaos.timezone", "Asia/Kathmandu", "chaos.iteration.scope", "all", "chaos.random.limit", "5",
                "chaos.explain", "true", "chaos.date.zone", "Europe/Berlin");
        assertEquals(250, c.asyncDelayMs);
        assertEquals("Asia/Kathmandu", c.timezone.getId());
        assertTrue(c.iterationAll);
        assertEquals(5, c.randomLimit);
        assertEquals(0, parse("chaos", "SLEEP_INCREASE", "chaos.sleep.limit", "0").sleepLimit);
        assertEquals(7, parse("chaos", "SLEEP_INCREASE", "chaos.sleep.limit", "7").sleepLimit);
        assertTrue(c.explain);
        assertEquals("Europe/Berlin", c.dstZone);
        assertEquals("LOCALE", Strategy.TIMEZONE.group);
    }

    @Test
    public void parametersAreConfigurable() {
        ChaosConfig c = parse("chaos", "RANDOM_MAX", "chaos.random", "17", "chaos.locale", "de-CH",
                "chaos.date", "2038-01-19T03:14:08Z", "chaos.seed", "99", "chaos.include", "a.*+b.**");
        assertEquals(ChaosConfig.RandomMode.VALUE, c.randomMode);
        assertEquals(17, c.randomValue, 0);
        assertEquals(new Locale("de", "CH"), c.locale);
        assertEquals(2147483648000L, c.dateMillis);
        assertEquals(99, c.seed);
        assertEquals(Arrays.asList("a.*", "b.**"), c.include);
    }

    @Test
    public void rejectsUnknownStrategiesTwoPerGroupAndBadValues() {
        String[][] bad = {
            {"chaos", "RANDOM_MAX+NOPE"},
            {"chaos", "TIME_FAST+TIME_SLOW"},
            {"chaos", "TIME_FAST+TIME_INCREMENT", "chaos.time.fast", "0.5"},
            {"chaos", "SLEEP_INCREASE", "chaos.sleep", "-1"},
            {"chaos", "SLEEP_INCREASE", "chaos.sleep.limit", "-1"},
            {"chaos", "CONCURRENCY_SHRINK", "chaos.concurrency", "2"},
            {"chaos", "TIME_FAST", "chaos.time.fast", "0.5"},
            {"chaos", "DATE_FIXED", "chaos.date", "tomorrow"},
            {"chaos", "LOCALE+TIMEZONE"},
            {"chaos", "DATE_FIXED+DATE_YEAR_END"},
            {"chaos", "TIMEZONE", "chaos.timezone", "Mars/Olympus"},
            {"chaos", "ITERATION_ORDER", "chaos.iteration.scope", "libraries"},
            {"chaos", "ASYNC_DELAY", "chaos.async.delay", "-5"},
            {"chaos", "ASYNC_DELAY", "chaos.async.limit", "-1"},
        };
        for (String[] b : bad) {
            try {
                parse(b);
                fail("accepted " + Arrays.toString(b));
            } catch (IllegalArgumentException expected) {
                // Reported by the agent as a clear failure.
            }
        }
    }

    @Test
    public void selectsRootClassesAndPatternsButNeverTheAgent() throws Exception {
        Path root = Files.createTempDirectory("chaos-roots");
        Path pkg = Files.createDirectories(root.resolve("com/acme"));
        Files.write(pkg.resolve("Thing.class"), new byte[0]);
        Files.write(pkg.resolve("Thing$Inner.class"), new byte[0]);
        ClassSelection roots = new ClassSelection(Collections.singletonList(root.toString()),
                Collections.<String>emptyList(), Collections.singletonList("com.acme.Thing$*"));
        assertTrue(roots.selects("com.acme.Thing", null));
        assertFalse(roots.selects("com.acme.Thing$Inner", null));
        assertFalse(roots.selects("com.acme.Other", null));
        ClassSelection patterns = new ClassSelection(Collections.<String>emptyList(),
                Arrays.asList("fixture.chaos.*", "com.acme.**", "dev.flaky.**"), Collections.<String>emptyList());
        assertTrue(patterns.selects("fixture.chaos.Dice", null));
        assertFalse(patterns.selects("fixture.chaos.sub.Dice", null));
        assertTrue(patterns.selects("com.acme.a.b.C", null));
        assertFalse(patterns.selects("dev.flaky.agent.Agent", null));
        assertFalse(patterns.selects("com.acme.Thing$MockitoMock$123", null));
        for (File f : new File[] {pkg.resolve("Thing.class").toFile(), pkg.resolve("Thing$Inner.class").toFile(),
            pkg.toFile(), pkg.getParent().toFile(), root.toFile()}) {
            assertTrue(f.delete());
        }
    }
}
