package dev.flaky.agent.invariants;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.flaky.agent.chaos.ClassSelection;
import org.junit.Test;
import testfixture.invariants.Flags;
import testfixture.invariants.Reader;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class StaticReadsTest {
    private final StaticReads reads = new StaticReads(new ClassSelection(Collections.<String>emptyList(),
            Collections.singletonList("testfixture.**"), Collections.<String>emptyList()));

    private static List<String> names(List<Field> fields) {
        List<String> out = new ArrayList<>();
        for (Field f : fields) {
            out.add(f.getDeclaringClass().getName() + "." + f.getName());
        }
        return out;
    }

    @Test
    public void fieldsOfOtherProjectClassesReadDirectly() {
        // Not its own static, not the inlined constant, not an enum constant, not a JDK class's field.
        assertEquals(java.util.Arrays.asList("testfixture.invariants.Flags.ready", "testfixture.invariants.Flags.hits"),
                names(reads.of(Reader.class, "reads()Z")));
        assertTrue(reads.of(Reader.class, "none()I").isEmpty());
        assertTrue(reads.of(Reader.class, "missing()V").isEmpty());
    }

    @Test
    public void readFieldsBecomeVariablesOfThePoint() throws Exception {
        Values values = new Values(1, new ClassSelection(Collections.<String>emptyList(),
                Collections.singletonList("testfixture.**"), Collections.<String>emptyList()));
        Point p = new Point("p");
        Map<String, Object> sample = new LinkedHashMap<>();
        Flags.hits = 2;
        for (Field f : reads.of(Reader.class, "reads()Z")) {
            values.staticField(p, sample, f);
        }
        assertEquals(false, sample.get("testfixture.invariants.Flags.ready"));
        assertEquals(2L, sample.get("testfixture.invariants.Flags.hits"));
        assertEquals("int", p.vars.get("testfixture.invariants.Flags.hits"));
    }
}
