package dev.flaky.runner.junit4;

import dev.flaky.runner.OrderEntry;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runners.MethodSorters;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;

public class Junit4EngineTest {
    private static List<OrderEntry> entries(String... ids) {
        List<OrderEntry> entries = new ArrayList<>();
        for (String id : ids) {
            entries.add(new OrderEntry(entries.size(), id));
        }
        return entries;
    }

    /** A Parameterized-like tree: suites [0] and [1], each with a[i] and b[i]. */
    private static Description parameterizedTree() {
        Description root = Description.createSuiteDescription("p.C");
        for (int i = 0; i < 2; i++) {
            Description set = Description.createSuiteDescription("[" + i + "]");
            set.addChild(Description.createTestDescription("p.C", "a[" + i + "]"));
            set.addChild(Description.createTestDescription("p.C", "b[" + i + "]"));
            root.addChild(set);
        }
        return root;
    }

    private static List<Integer> sizes(List<List<OrderEntry>> segments) {
        List<Integer> sizes = new ArrayList<>();
        for (List<OrderEntry> s : segments) {
            sizes.add(s.size());
        }
        return sizes;
    }

    @Test
    public void keepsOneSegmentWhenTheTreeAllowsTheOrder() {
        List<OrderEntry> order = entries("p.C#b[1]", "p.C#a[1]", "p.C#b[0]");
        assertEquals(Arrays.asList(3), sizes(Junit4Engine.segments(parameterizedTree(), order)));
    }

    @Test
    public void splitsWhereParameterSetsWouldReorderOrAnIdRepeats() {
        List<OrderEntry> order = entries("p.C#a[0]", "p.C#a[1]", "p.C#b[0]", "p.C#b[0]");
        assertEquals(Arrays.asList(2, 1, 1), sizes(Junit4Engine.segments(parameterizedTree(), order)));
    }

    @FixMethodOrder(MethodSorters.NAME_ASCENDING)
    private static final class Fixed {
    }

    @Test
    public void splitsWhereAFixMethodOrderClassWouldKeepItsOwnOrder() {
        Description fixed = Description.createSuiteDescription("p.F", Fixed.class.getAnnotation(FixMethodOrder.class));
        for (String m : new String[] {"a", "b", "c"}) {
            fixed.addChild(Description.createTestDescription("p.F", m));
        }
        List<OrderEntry> order = entries("p.F#a", "p.F#c", "p.F#b", "p.F#c");
        // JUnit 4.13 does not sort a @FixMethodOrder class: a, c fit its order; b must start again, then c fits.
        assertEquals(Arrays.asList(2, 2), sizes(Junit4Engine.segments(fixed, order)));
    }

    @Test
    public void keepsRepeatsInOneScopeAndSplitsOnlyWhereAFixedOrderGoesBack() {
        Description fixed = Description.createSuiteDescription("p.F", Fixed.class.getAnnotation(FixMethodOrder.class));
        Description free = Description.createSuiteDescription("p.F");
        for (String m : new String[] {"a", "b", "c"}) {
            fixed.addChild(Description.createTestDescription("p.F", m));
            free.addChild(Description.createTestDescription("p.F", m));
        }
        List<OrderEntry> order = entries("p.F#a", "p.F#a", "p.F#c", "p.F#b", "p.F#b");
        assertEquals(Arrays.asList(5), sizes(Junit4Engine.scopes(free, order)));
        List<Integer> expected = Junit4Engine.SORTER_RESPECTS_FIX_METHOD_ORDER ? Arrays.asList(3, 2) : Arrays.asList(5);
        assertEquals(expected, sizes(Junit4Engine.scopes(fixed, order)));
    }
}
