package dev.flaky.surefire;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of the Surefire running the provider, from its surefire-api jar. */
public final class SurefireVersion {
    private static final String POM_PROPERTIES =
            "/META-INF/maven/org.apache.maven.surefire/surefire-api/pom.properties";

    private SurefireVersion() {
    }

    /** Returns the version of the surefire-api jar that {@code apiClass} comes from, or {@code unknown}. */
    public static String of(Class<?> apiClass) {
        try (InputStream in = apiClass.getResourceAsStream(POM_PROPERTIES)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                String version = p.getProperty("version");
                if (version != null) {
                    return version;
                }
            }
        } catch (IOException e) {
            // Fall back to the manifest.
        }
        Package pkg = apiClass.getPackage();
        String version = pkg == null ? null : pkg.getImplementationVersion();
        return version != null ? version : "unknown";
    }
}
