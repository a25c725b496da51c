package dev.flaky.agent;

import org.junit.Test;
import testfixture.construction.Log;

import java.util.Arrays;

import static org.junit.Assert.assertEquals;

public class ConstructionTest {
    static {
        Channel.onBoundary(new Recorder());
    }

    /** Records the boundary calls in the fixture's log. */
    private static final class Recorder implements Channel.Boundary {
        @Override
        public void testStarting(String test, int index) {
            Log.add("start " + test + " " + index);
        }

        @Override
        public void testEnded(String test, int index) {
            Log.add("end " + test + " " + index);
        }
    }

    @Test
    public void runsTheUpcomingTestsStartHooksBeforeItsInstanceIsBuiltOnce() throws Exception {
        Class<?> built = new RewritingLoader("testfixture.construction.B", Construction::rewrite)
                .loadClass("testfixture.construction.Built");
        Log.EVENTS.clear();

        Channel.upcoming(built, "p.T#a", 4);
        built.getConstructor().newInstance();
        // The upcoming test's hooks ran: a second instance leaves them alone.
        built.getConstructor().newInstance();

        assertEquals(Arrays.asList("start p.T#a 4", "base field", "field", "constructor",
                "base field", "field", "constructor"), Log.EVENTS);
    }

    @Test
    public void runsNoHooksWhenAnotherClassIsBuilt() throws Exception {
        Class<?> built = new RewritingLoader("testfixture.construction.B", Construction::rewrite)
                .loadClass("testfixture.construction.Built");
        Log.EVENTS.clear();

        Channel.upcoming(String.class, "p.S#a", 1);
        built.getConstructor().newInstance();
        Channel.upcoming(null, null, -1);

        assertEquals(Arrays.asList("base field", "field", "constructor"), Log.EVENTS);
    }
}
