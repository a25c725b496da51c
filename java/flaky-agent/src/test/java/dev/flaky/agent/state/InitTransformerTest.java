package dev.flaky.agent.state;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.flaky.agent.RewritingLoader;
import org.junit.Test;

public class InitTransformerTest {
    /** Loads the sample classes from rewritten bytes; everything else from the parent. */
    private static ClassLoader rewriting() {
        return new RewritingLoader("sample.state.", InitTransformer::rewrite);
    }

    @Test
    public void initialisersReportTheirClassOnceTheyComplete() throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("state", "all");
        Constructor<Capture> make = Capture.class.getDeclaredConstructor(StateConfig.class,
                java.lang.instrument.Instrumentation.class);
        make.setAccessible(true);
        Capture capture = make.newInstance(StateConfig.parse(options), null);
        Field active = Capture.class.getDeclaredField("active");
        active.setAccessible(true);
        active.set(null, capture);
        try {
            ClassLoader loader = rewriting();
            Class<?> holder = Class.forName("sample.state.Holder", true, loader);
            Class<?> bare = Class.forName("sample.state.Bare", true, loader);
            List<String> names = new ArrayList<>();
            for (Class<?> c : capture.initialisedClasses()) {
                names.add(c.getName());
            }
            assertEquals(java.util.Arrays.asList("sample.state.Holder", "sample.state.Bare"), names);
            assertTrue(capture.initialisedClasses().contains(holder) && capture.initialisedClasses().contains(bare));
            // The initialiser ran in full before the hook.
            assertEquals("[first]", String.valueOf(holder.getField("NAMES").get(null)));
            Map<String, com.google.gson.JsonObject> roots = new java.util.TreeMap<>();
            capture.staticRoots(holder, roots);
            assertEquals(java.util.Arrays.asList(Capture.key(Capture.STATIC, "sample.state.Holder.NAMES"),
                    Capture.key(Capture.STATIC, "sample.state.Holder.plain")), new ArrayList<>(roots.keySet()));
        } finally {
            active.set(null, null);
        }
    }

    @Test
    public void interfacesAreLeftAlone() throws Exception {
        assertNull(InitTransformer.rewrite(RewritingLoader.bytes("sample.state.Named")));
    }
}
