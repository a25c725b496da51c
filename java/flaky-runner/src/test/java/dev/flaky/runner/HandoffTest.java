package dev.flaky.runner;

import org.junit.BeforeClass;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

public class HandoffTest {
    /** What the fixture classes below did, in order. */
    static final List<String> ran = new ArrayList<>();
    /** The handoff state of the running order, for {@link Handing}. */
    static Handoff live;
    /** The answers to the handoffs {@link Handing} asked for. */
    static final List<Integer> answers = new ArrayList<>();

    /** A JUnit 4 class with class fixtures (nested, so the build's own Surefire skips it). */
    public static class First {
        @BeforeClass
        public static void setUpClass() {
            ran.add("First.setUpClass");
        }

        @Test
        public void a() {
            ran.add("First.a");
        }

        @Test
        public void b() {
            ran.add("First.b");
        }
    }

    /** A second class with class fixtures. */
    public static class Second {
        @BeforeClass
        public static void setUpClass() {
            ran.add("Second.setUpClass");
        }

        @Test
        public void x() {
            ran.add("Second.x");
        }
    }

    /** A test during which the driver asks for a handoff at entry 0, answered on another thread as the agent does. */
    public static class Handing {
        @Test
        public void handsOff() throws InterruptedException {
            ran.add("Handing.handsOff");
            Thread reader = new Thread(() -> answers.add(live.handoff(0)), "reader");
            reader.start();
            reader.join();
        }
    }

    /** What the exit after a handoff throws in these tests, instead of ending the JVM. */
    private static final class Exited extends Error {
        Exited() {
            super("exited");
        }
    }

    private static List<OrderEntry> order(String... ids) {
        List<OrderEntry> order = new ArrayList<>();
        for (String id : ids) {
            order.add(new OrderEntry(order.size(), id));
        }
        return order;
    }

    /** A row of the choice's table: the class runs' starts, CUR, STOP, N and the M expected. */
    private static void assertChoice(int[] starts, int begun, int stop, int index, int expected) {
        assertEquals("starts " + Arrays.toString(starts) + " CUR " + begun + " STOP " + stop + " N " + index, expected,
                Handoff.choose(starts, begun, stop, index));
    }

    @Test
    public void choosesTheFirstClassRunAtOrAfterTheIndexElseTheLastOne() {
        int[] starts = {0, 2, 5, 7}; // an order of 9 entries in 4 class runs
        assertChoice(starts, -1, 9, 0, 2); // 0 is never a handoff point
        assertChoice(starts, -1, 9, 2, 2);
        assertChoice(starts, -1, 9, 3, 5);
        assertChoice(starts, -1, 9, 7, 7);
        assertChoice(starts, -1, 9, 8, 7); // beyond the last start: the last one
        assertChoice(starts, -1, 9, 100, 7);
        assertChoice(starts, 0, 9, 1, 2);
        assertChoice(starts, 2, 9, 0, 5); // the running class run cannot be handed off
        assertChoice(starts, 5, 9, 3, 7);
        assertChoice(starts, 7, 9, 0, -1); // the last class run has begun: refused
        assertChoice(starts, -1, 7, 8, 5); // a committed stop bounds the candidates
        assertChoice(starts, -1, 5, 5, 2);
        assertChoice(starts, -1, 2, 0, -1);
        assertChoice(starts, 2, 5, 0, -1);
        assertChoice(new int[] {0}, -1, 3, 0, -1); // one class run: nothing to hand off
        assertChoice(new int[0], -1, 0, 0, -1);
    }

    @Test
    public void commitsEachAnswerSoThatLaterHandoffsStopEarlierOrAreRefused() {
        // Class runs A 0-1, B 2, A 3 (a class repeated after another), C 4-5, A 6.
        Handoff h = new Handoff(order("p.A#a", "p.A#b", "p.B#x", "p.A#c", "p.C#y", "p.C#z", "p.A#d"));
        assertEquals(7, h.stop());
        assertEquals(-1, h.begun());
        assertEquals(4, h.handoff(4));
        assertEquals(4, h.stop());
        assertEquals(3, h.handoff(4)); // the stop itself is no candidate any more: the last one before it
        assertEquals(3, h.stop());
        assertEquals(2, h.handoff(6));
        assertEquals(2, h.stop());
        assertEquals(-1, h.handoff(0)); // refused: nothing changes
        assertEquals(2, h.stop());
        assertEquals(-1, h.begun());
    }

    @Test
    public void aClassRunBeginsWithItsFirstClassStartNotWithTheScopesItIsSplitInto() {
        // Class runs A 0-1, B 2, A 3-4.
        Handoff h = new Handoff(order("p.A#a", "p.A#a", "p.B#x", "p.A#b", "p.A#a"));
        assertTrue(h.classStart("p.A"));
        assertEquals(0, h.begun());
        assertTrue(h.entry(0));
        assertTrue(h.entry(0));
        assertTrue(h.classStart("p.A")); // a second scope of the same class run (a repeat Jupiter cannot keep)
        assertEquals(0, h.begun());
        assertEquals(2, h.handoff(0));
        assertTrue(h.entry(1));
        assertFalse(h.classStart("p.B"));
        assertEquals(0, h.begun());
        assertFalse(h.entry(2));
        assertFalse(h.entry(3));
    }

    @Test
    public void aClassStartAfterAnotherClassRunBeginsTheClassesNextRun() {
        Handoff h = new Handoff(order("p.A#a", "p.A#b", "p.B#x", "p.A#b", "p.A#a", "p.C#y"));
        assertEquals(3, h.handoff(3));
        assertTrue(h.classStart("p.A"));
        assertTrue(h.entry(1));
        assertTrue(h.entry(0)); // out of order within the class run (TestNG ordering a class itself)
        assertTrue(h.classStart("p.B"));
        assertEquals(2, h.begun());
        assertTrue(h.entry(2));
        assertTrue(h.classStart("p.Other")); // no class of the order ahead: no boundary
        assertEquals(2, h.begun());
        assertFalse(h.classStart("p.A")); // A's second run, which starts at the stop
        assertEquals(2, h.begun());
        assertEquals(-1, h.handoff(0));
    }

    @Test
    public void aClassRunWithoutClassStartBeginsWithItsFirstEvent() {
        // Class runs A 0, gone.Class 1-2 (cannot be loaded: test-end events only), B 3.
        Handoff h = new Handoff(order("p.A#a", "gone.Class#m", "gone.Class#n", "p.B#x"));
        assertTrue(h.beginRun(0));
        assertTrue(h.classStart("p.A"));
        assertTrue(h.entry(0));
        assertTrue(h.entry(1));
        assertEquals(1, h.begun());
        assertEquals(3, h.handoff(0));
        assertTrue(h.entry(2));
        assertFalse(h.beginRun(3));
        assertFalse(h.entry(3));
        assertTrue(h.entry(-1));
        assertTrue(h.entry(99));
    }

    @Test
    public void aJvmStopsBeforeTheHandedOffClassRunWithRunEnd() {
        ran.clear();
        Recorder r = new Recorder('$');
        Events events = new Events(null, r);
        String first = First.class.getName();
        String second = Second.class.getName();
        List<OrderEntry> order = order(first + "#a", first + "#b", second + "#x", "no.such.Class#m", first + "#a");
        Handoff h = events.acceptHandoffs(order, () -> {
            throw new Exited();
        });
        assertEquals(3, h.handoff(3));
        try {
            TestRunner.with(events).run(order);
            fail("the runner did not stop");
        } catch (Exited expected) {
            // The JVM would exit with status 0 here.
        }
        assertEquals(Arrays.asList("run-start 5", "class-start First", "start First#a 0", "end First#a 0 pass",
                "start First#b 1", "end First#b 1 pass", "class-end First", "class-start Second",
                "start Second#x 2", "end Second#x 2 pass", "class-end Second", "run-end 3"), r.events);
        assertEquals(Arrays.asList("First.setUpClass", "First.a", "First.b", "Second.setUpClass", "Second.x"), ran);
    }

    @Test
    public void aHandoffDuringATestStopsAfterTheRunningClassRun() {
        ran.clear();
        answers.clear();
        Recorder r = new Recorder('$');
        Events events = new Events(null, r);
        String handing = Handing.class.getName();
        String first = First.class.getName();
        List<OrderEntry> order = order(handing + "#handsOff", handing + "#handsOff", first + "#a", first + "#b");
        live = events.acceptHandoffs(order, () -> {
            throw new Exited();
        });
        try {
            TestRunner.with(events).run(order);
            fail("the runner did not stop");
        } catch (Exited expected) {
            // The JVM would exit with status 0 here.
        } finally {
            live = null;
        }
        // The first class run had begun: the next one is handed off; then nothing is left before the stop.
        assertEquals(Arrays.asList(2, -1), answers);
        assertEquals(Arrays.asList("run-start 4", "class-start Handing", "start Handing#handsOff 0",
                "end Handing#handsOff 0 pass", "start Handing#handsOff 1", "end Handing#handsOff 1 pass",
                "class-end Handing", "run-end 2"), r.events);
        assertEquals(Arrays.asList("Handing.handsOff", "Handing.handsOff"), ran);
    }

    @Test
    public void aJvmStopsBeforeAClassThatCannotBeLoaded() {
        ran.clear();
        Recorder r = new Recorder('$');
        Events events = new Events(null, r);
        String second = Second.class.getName();
        List<OrderEntry> order = order(second + "#x", "no.such.Class#m", second + "#x");
        Handoff h = events.acceptHandoffs(order, () -> {
            throw new Exited();
        });
        assertEquals(1, h.handoff(0));
        try {
            TestRunner.with(events).run(order);
            fail("the runner did not stop");
        } catch (Exited expected) {
            // The JVM would exit with status 0 here.
        }
        assertEquals(Arrays.asList("run-start 3", "class-start Second", "start Second#x 0", "end Second#x 0 pass",
                "class-end Second", "run-end 1"), r.events);
    }

    @Test
    public void runsTheWholeOrderWithoutAHandoff() {
        ran.clear();
        Recorder r = new Recorder('$');
        Events events = new Events(null, r);
        String second = Second.class.getName();
        List<OrderEntry> order = order(second + "#x", "no.such.Class#m");
        Handoff h = events.acceptHandoffs(order, () -> {
            throw new Exited();
        });
        TestRunner.with(events).run(order);
        assertEquals(Arrays.asList("run-start 2", "class-start Second", "start Second#x 0", "end Second#x 0 pass",
                "class-end Second", "end no.such.Class#m 1 error", "run-end 2"), r.events);
        assertEquals(-1, h.handoff(0));
    }
}
