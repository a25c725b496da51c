package dev.flaky.surefire;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.Properties;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

public class ForkRecordTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void dropsOnlyTheFlakyAgentFromTheJvmArguments() {
        assertEquals(Arrays.asList("-Xmx1g", "-javaagent:/r/jacoco.jar=destfile=x", "-Dk=v"),
                ForkRecord.jvmArgs(Arrays.asList("-Xmx1g", "-javaagent:/r/jacoco.jar=destfile=x",
                        "-javaagent:/r/dev/flaky/flaky-agent/0.1.0/flaky-agent-0.1.0.jar=port=,token=", "-Dk=v")));
    }

    @Test
    public void keepsTheSystemPropertiesSurefireSet() {
        Properties p = new Properties();
        for (String key : new String[] {"java.home", "sun.arch", "os.name", "user.dir", "file.encoding", "jdk.debug",
            "line.separator", "path.separator", "native.encoding", "surefire.test.class.path", "flaky.order",
            "flaky.buildDir"}) {
            p.setProperty(key, "x");
        }
        p.setProperty("basedir", "/m");
        p.setProperty("my.prop", "v");
        Map<String, String> kept = ForkRecord.surefireProperties(p, null);
        assertEquals(2, kept.size());
        assertEquals("/m", kept.get("basedir"));
        assertEquals("v", kept.get("my.prop"));
    }

    @Test
    public void keepsEveryPropertyOfSurefiresEffectivePropertiesFile() throws Exception {
        File dir = tmp.newFolder("target dir", "surefire");
        Properties effective = new Properties();
        effective.setProperty("basedir", "/m");
        effective.setProperty("user.timezone", "UTC");
        effective.setProperty("java.awt.headless", "true");
        effective.setProperty("surefire.real.class.path", "x");
        try (java.io.OutputStream out = Files.newOutputStream(new File(dir, "surefire_7tmp").toPath())) {
            effective.store(out, null);
        }
        String command = dir + "/surefirebooter-2025.jar " + dir + " 2025-11-23T13-10-43_123-jvmRun1 surefire3tmp "
                + "surefire_7tmp";
        Properties loaded = ForkRecord.effectiveSystemProperties(command);
        assertEquals(effective, loaded);
        assertEquals(null, ForkRecord.effectiveSystemProperties("org.example.Main a b c d"));

        Properties fork = new Properties();
        fork.putAll(effective);
        fork.setProperty("java.home", "/jdk");
        fork.setProperty("java.io.tmpdir", "/tmp");
        fork.setProperty("user.timezone", "Europe/Paris"); // a test may change it later; the fork's value counts
        Map<String, String> kept = ForkRecord.surefireProperties(fork, loaded);
        assertEquals("{basedir=/m, java.awt.headless=true, user.timezone=Europe/Paris}", kept.toString());
    }

    @Test
    public void recordsOnlyTheEnvironmentSurefireSetAndWhatShapesTheJvm() {
        Map<String, String> parent = new java.util.TreeMap<>();
        parent.put("CI_TOKEN", "secret");
        parent.put("PATH", "/bin");
        parent.put("REGION", "us");
        Map<String, String> fork = new java.util.TreeMap<>(parent);
        fork.put("REGION", "eu");
        fork.put("FIXTURE", "on");
        fork.put("LC_ALL", "C");
        assertEquals("{FIXTURE=on, LC_ALL=C, PATH=/bin, REGION=eu}", ForkRecord.environment(fork, parent).toString());
        assertEquals("{LC_ALL=C, PATH=/bin}", ForkRecord.environment(fork, null).toString());
    }

    @Test
    public void takesTheTestClassPathWithoutSurefireAndFlakyJars() {
        Properties p = new Properties();
        p.setProperty("java.class.path", "/tmp/surefirebooter123.jar");
        p.setProperty("surefire.test.class.path", String.join(File.pathSeparator, "/m/target/test-classes",
                "/m/target/classes", "/r/junit/junit/4.13.2/junit-4.13.2.jar",
                "/r/org/apache/maven/surefire/surefire-api/3.5.4/surefire-api-3.5.4.jar",
                "/r/dev/flaky/flaky-surefire-provider/0.1.0/flaky-surefire-provider-0.1.0.jar", "",
                "/m/target/classes"));
        assertEquals(Arrays.asList("/m/target/test-classes", "/m/target/classes",
                "/r/junit/junit/4.13.2/junit-4.13.2.jar"),
                ForkRecord.classpath(p, ForkRecordTest.class.getClassLoader()));

        Properties plain = new Properties();
        plain.setProperty("java.class.path", "/m/target/test-classes");
        assertEquals(Collections.singletonList("/m/target/test-classes"),
                ForkRecord.classpath(plain, ForkRecordTest.class.getClassLoader()));
    }

    @Test
    public void writesTheRecordAtomically() throws Exception {
        Properties p = new Properties();
        p.setProperty("java.home", "/jdk");
        p.setProperty("java.version", "17");
        p.setProperty("user.dir", "/m");
        ForkRecord r = ForkRecord.snapshot("2.22.2", "2", p, getClass().getClassLoader(), "/m/target/test-classes");
        r.testClasses(Arrays.asList("p.ATest", "p.BTest", "p.ATest"));
        r.order(OrderChoice.from(seed("7")));
        r.test("p.ATest#m", "fail", 3, "boom");
        Path file = tmp.getRoot().toPath().resolve("flaky/fork.json");
        r.write(file);

        String json = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        assertTrue(json, json.contains("\"version\": 1"));
        assertTrue(json, json.contains("\"providerApi\": \"2\""));
        assertTrue(json, json.contains("\"testClasses\": [\n    \"p.ATest\",\n    \"p.BTest\"\n  ]"));
        assertTrue(json, json.contains("\"order\": \"shuffle\",\n  \"seed\": 7,"));
        assertTrue(json, json.contains("\"test\": \"p.ATest#m\""));
        assertEquals(1, tmp.getRoot().toPath().resolve("flaky").toFile().list().length);
    }

    private static Properties seed(String seed) {
        Properties p = new Properties();
        p.setProperty("flaky.shuffle", seed);
        return p;
    }
}
