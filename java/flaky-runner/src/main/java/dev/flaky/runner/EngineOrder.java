package dev.flaky.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;

/**
 * The order in which the JUnit Platform runs its engines. When JUnit 4 tests run through the Vintage engine,
 * Surefire runs all classes in one launcher request and the platform runs them engine by engine (in the order the
 * engines are found on the class path, usually Jupiter first), so the module's default order is engine by engine,
 * each in Surefire's class order.
 */
public final class EngineOrder {
    private static final String SERVICES = "META-INF/services/org.junit.platform.engine.TestEngine";
    private static final String JUPITER = "org.junit.jupiter.engine.JupiterTestEngine";
    private static final String VINTAGE = "org.junit.vintage.engine.VintageTestEngine";

    private final int jupiterRank;
    private final int vintageRank;

    private EngineOrder(int jupiterRank, int vintageRank) {
        this.jupiterRank = jupiterRank;
        this.vintageRank = vintageRank;
    }

    /** The engine order of the test class path, from the TestEngine service files in class path order. */
    public static EngineOrder of(ClassLoader loader) {
        List<String> engines = new ArrayList<>();
        try {
            Enumeration<URL> files = loader.getResources(SERVICES);
            while (files.hasMoreElements()) {
                engines.addAll(read(files.nextElement()));
            }
        } catch (IOException e) {
            return new EngineOrder(-1, -1);
        }
        return new EngineOrder(engines.indexOf(JUPITER), engines.indexOf(VINTAGE));
    }

    /** Orders {@code tests} (in class order) engine by engine when the Vintage engine runs JUnit 4 tests. */
    public List<ListedTest> apply(List<ListedTest> tests) {
        if (vintageRank < 0) {
            return tests;
        }
        List<ListedTest> ordered = new ArrayList<>(tests);
        // Stable: keeps Surefire's class order and JUnit's method order within each engine.
        ordered.sort(Comparator.comparingInt(t -> "jupiter".equals(t.engine) ? jupiterRank : vintageRank));
        return Collections.unmodifiableList(ordered);
    }

    private static List<String> read(URL file) throws IOException {
        List<String> names = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(file.openStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                int comment = line.indexOf('#');
                String name = (comment >= 0 ? line.substring(0, comment) : line).trim();
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        }
        return names;
    }
}
