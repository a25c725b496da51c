package dev.flaky.runner.testng;

import dev.flaky.runner.OrderEntry;
import org.junit.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/** Invocation members ({@code m[params](n)}) and which entries one TestNG {@code <class>} runs in order. */
public class InvocationTest {
    @Test
    public void parsesInvocationsAsSurefireNamesThem() {
        Invocation inv = Invocation.parse("formats[5, 5 EUR](2)");
        assertEquals("formats", inv.method);
        assertEquals(2, inv.number);
        assertEquals(1, inv.row());
        assertTrue(inv.isInvocation());
        assertEquals("m", Invocation.parse("m[a#b, (x), [y]](10)").method);
        assertEquals(10, Invocation.parse("m[a#b, (x), [y]](10)").number);
        for (String member : new String[] {"m", "m[0]", "m[x](0)", "m[x](a)", "m[x]2)", "m(3)", "[x](1)"}) {
            Invocation plain = Invocation.parse(member);
            assertFalse(member, plain.isInvocation());
            assertEquals(member, plain.method);
        }
    }

    @Test
    public void namesInvocationsOnOneLine() {
        assertEquals("formats[5, 5 EUR](2)", Invocation.member("formats", new Object[] {5, "5 EUR"}, 2));
        assertEquals("m[a\\nb, null, \\u0007](1)", Invocation.member("m", new Object[] {"a\nb", null, "\u0007"}, 1));
    }

    private static List<OrderEntry> entries(String... members) {
        List<OrderEntry> entries = new ArrayList<>();
        for (String m : members) {
            entries.add(new OrderEntry(entries.size(), "p.C#" + m));
        }
        return entries;
    }

    @Test
    public void oneClassRunsEachMethodOnceAndInvocationsInTheDataProvidersOrder() {
        assertTrue(Block.achievable(entries("a", "m[x](1)", "m[y](3)", "b"), false));
        assertFalse(Block.achievable(entries("m[y](3)", "m[x](1)"), false));
        assertFalse(Block.achievable(entries("m[x](1)", "a", "m[y](3)"), false));
        assertFalse(Block.achievable(entries("m", "m[x](1)"), false));
        assertFalse(Block.achievable(entries("m[x](1)", "m"), false));
        assertFalse(Block.achievable(entries("a", "a"), false));
        // A class whose order TestNG fixes runs whole: only repeats need another run.
        assertTrue(Block.achievable(entries("m[y](3)", "b", "m[x](1)"), true));
        assertFalse(Block.achievable(entries("a", "a"), true));
    }
}
