package dev.flaky.runner;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.Assert.assertEquals;

public class EngineOrderTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private final List<ListedTest> tests = Arrays.asList(
            new ListedTest("p.A", "a", "junit4", "p.A", false),
            new ListedTest("p.B", "b", "jupiter", "p.B", false),
            new ListedTest("p.C", "c", "junit3", "p.C", false),
            new ListedTest("p.D", "d", "jupiter", "p.D", false));

    /** A loader whose class path holds one directory per engine, each with its TestEngine service file. */
    private ClassLoader loader(String... engines) throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String engine : engines) {
            Path dir = tmp.newFolder().toPath();
            Path services = dir.resolve("META-INF/services/org.junit.platform.engine.TestEngine");
            Files.createDirectories(services.getParent());
            Files.write(services, ("# engine\n" + engine + "\n").getBytes(StandardCharsets.UTF_8));
            urls.add(dir.toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), null);
    }

    private static List<String> ids(List<ListedTest> tests) {
        List<String> ids = new ArrayList<>();
        for (ListedTest t : tests) {
            ids.add(t.id);
        }
        return ids;
    }

    @Test
    public void runsEngineByEngineInClassPathOrderWhenVintageRunsJUnit4() throws Exception {
        assertEquals(Arrays.asList("p.B#b", "p.D#d", "p.A#a", "p.C#c"), ids(EngineOrder.of(loader(
                "org.junit.jupiter.engine.JupiterTestEngine", "org.junit.vintage.engine.VintageTestEngine"))
                .apply(tests)));
        assertEquals(Arrays.asList("p.A#a", "p.C#c", "p.B#b", "p.D#d"), ids(EngineOrder.of(loader(
                "org.junit.vintage.engine.VintageTestEngine", "org.junit.jupiter.engine.JupiterTestEngine"))
                .apply(tests)));
    }

    @Test
    public void keepsSurefiresClassOrderWithoutVintage() throws Exception {
        assertEquals(ids(tests), ids(EngineOrder.of(loader("org.junit.jupiter.engine.JupiterTestEngine"))
                .apply(tests)));
        assertEquals(ids(tests), ids(EngineOrder.of(new URLClassLoader(new URL[0], null)).apply(tests)));
    }
}
