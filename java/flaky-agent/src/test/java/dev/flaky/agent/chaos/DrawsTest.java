package dev.flaky.agent.chaos;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

public class DrawsTest {
    private static int sites;
    private static Consumer<Map<String, Object>> previousSink;

    @BeforeClass
    public static void muteEvents() {
        previousSink = Sites.sink;
        Sites.sink = e -> { };
    }

    @AfterClass
    public static void restore() {
        Sites.sink = previousSink;
    }

    /** Configures Draws with RANDOM_MAX and {@code options}; returns a new call site. */
    private static int configure(String... options) {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", "RANDOM_MAX");
        for (int i = 0; i < options.length; i += 2) {
            o.put(options[i], options[i + 1]);
        }
        Draws.configure(ChaosConfig.parse(o));
        return Sites.register(Strategy.RANDOM_MAX, "java.util.Random#nextInt(int)", "DrawsTest", "site", "DrawsTest.java",
                ++sites);
    }

    @Test
    public void aNarrowRangeStepsInFromTheBoundaryThenGetsRealValues() {
        int site = configure();
        assertEquals(5, Draws.inRange(0, 5, Draws.extreme(site)));
        assertEquals(4, Draws.inRange(0, 5, Draws.extreme(site)));
        assertEquals(3, Draws.inRange(0, 5, Draws.extreme(site)));
        assertEquals(0, Draws.extreme(site));
        int[] seen = new int[6];
        for (int i = 0; i < 600; i++) {
            seen[Draws.real(site).nextInt(6)]++;
        }
        for (int n : seen) {
            assertTrue(n + " of 600", n > 50);
        }
    }

    @Test
    public void theMinimumStepsUpAndTinyRangesWrap() {
        int site = configure("chaos.random", "min");
        assertEquals(-3, Draws.inRange(-3, -2, Draws.extreme(site)));
        assertEquals(-2, Draws.inRange(-3, -2, Draws.extreme(site)));
        assertEquals(-3, Draws.inRange(-3, -2, Draws.extreme(site)));
    }

    @Test
    public void wideRangeExtremesNeverRepeatDuringATest() {
        int site = configure("chaos.random.limit", "1000");
        int other = configure("chaos.random.limit", "1000");
        assertEquals(Integer.MAX_VALUE, Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, Draws.extreme(site)));
        assertEquals(Integer.MAX_VALUE - 1, Draws.inRange(Integer.MIN_VALUE, Integer.MAX_VALUE, Draws.extreme(other)));
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            double u = Draws.unit();
            assertTrue(u + " < 1 and near it", u < 1.0 && u > 1.0 - 1e-12);
            assertTrue(seen.add(u));
            long l = Draws.inRange(Long.MIN_VALUE, Long.MAX_VALUE, Draws.extreme(site));
            assertTrue(l > Long.MAX_VALUE - 10_000 && seen.add(l));
            double d = Draws.inRange(-1.5, 10.0);
            assertTrue(d + " < 10 and near it", d < 10.0 && d > 10.0 - 1e-9);
            assertTrue(seen.add(d));
        }
    }

    @Test
    public void limitZeroAlwaysGivesTheBoundary() {
        int site = configure("chaos.random.limit", "0");
        for (int i = 0; i < 10; i++) {
            assertEquals(5, Draws.inRange(0, 5, Draws.extreme(site)));
            assertEquals(Math.nextDown(1.0), Draws.unit(), 0.0);
            assertEquals(Math.nextDown(10.0), Draws.inRange(0, 10.0), 0.0);
        }
        configure("chaos.random", "min", "chaos.random.limit", "0");
        assertEquals(0.0, Draws.unit(), 0.0);
        assertEquals(-1.5, Draws.inRange(-1.5, 10.0), 0.0);
    }

    @Test
    public void gaussianAndExponentialExtremesArePlausibleTailValuesThatNeverRepeat() {
        int site = configure("chaos.random.limit", "1000");
        Set<Object> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            double g = Draws.gaussian();
            assertTrue(g + " in the 10^-4 tail", g <= Draws.GAUSSIAN_TAIL && g > 3.7);
            assertTrue(seen.add(g));
            double e = Draws.exponential();
            assertTrue(e + " in the 10^-4 tail", e <= Draws.EXPONENTIAL_TAIL && e > 9.2);
            assertTrue(seen.add(e));
            double scaled = Draws.gaussian(10, 2);
            assertTrue(scaled + " in the tail", scaled <= 10 + 2 * Draws.GAUSSIAN_TAIL && scaled > 17.4);
            assertTrue(seen.add(scaled));
            float f = Draws.inRange(-2f, 0.5f);
            assertTrue(f + " < 0.5 and near it", f < 0.5f && f > 0.49f);
            assertTrue(seen.add(f));
        }
        configure("chaos.random", "min");
        assertEquals(-Draws.GAUSSIAN_TAIL, Draws.gaussian(), 1e-9);
        assertEquals(-2f, Draws.inRange(-2f, 0.5f), 0f);
        assertEquals(0.0, Draws.exponential(), 1e-300);
        SplittableRandom real = Draws.real(site);
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < 10_000; i++) {
            double g = Draws.realGaussian(real);
            sum += g;
            squares += g * g;
        }
        assertEquals(0, sum / 10_000, 0.05);
        assertEquals(1, squares / 10_000, 0.05);
    }

    @Test
    public void byteArraysStepDownFromAllOnesAndDifferWhenWide() {
        int site = configure();
        byte[] a = new byte[3];
        Draws.bytes(a, Draws.extreme(site));
        byte[] b = new byte[3];
        Draws.bytes(b, Draws.extreme(site));
        assertTrue(Arrays.toString(a), Arrays.equals(new byte[] {-1, -1, -1}, a) || a[2] != -1);
        assertFalse(Arrays.equals(a, b));
        byte[] wide = new byte[20];
        Draws.bytes(wide, Draws.extreme(site));
        for (int i = 0; i < 12; i++) {
            assertEquals(-1, wide[i]);
        }
        assertEquals(0, Draws.extreme(site));
        byte[] one = new byte[1];
        int narrow = configure();
        Draws.bytes(one, Draws.extreme(narrow));
        assertEquals(-1, one[0]);
        Draws.bytes(one, Draws.extreme(narrow));
        assertEquals(-2, one[0]);
        configure("chaos.random", "min", "chaos.random.limit", "0");
        Draws.bytes(wide, 1);
        assertArrayEquals(new byte[20], wide);
        byte[] real = new byte[13];
        Draws.realBytes(Draws.real(site), real);
        assertFalse(Arrays.equals(new byte[13], real));
    }
}
