package dev.flaky.maven;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Which flaky binary the plugin runs: the one {@code -Dflaky.bin} names, else {@code flaky} on the PATH, else the
 * artifact {@code dev.flaky:flaky:<version>:exe:<classifier>} that Maven resolves, copied to {@link #FETCHED} under
 * the module's build directory (a repository keeps no file modes, so the copy is made executable).
 */
final class Binary {
    /** Where a fetched binary goes, relative to the build directory (mvn.FetchedBinary on the Go side). */
    static final String FETCHED = "flaky/bin/flaky";

    /** The remedy every message about a missing binary ends with. */
    static final String REMEDY = "put flaky on the PATH, or give its path with -Dflaky.bin=/path/to/flaky";

    /** Resolves the flaky artifact of a classifier to a file in the local repository. */
    interface Fetcher {
        File fetch(String classifier) throws IOException;
    }

    private Binary() {
    }

    /**
     * The binary to run: {@code bin} when not empty, else {@code flaky} in one of the directories of {@code path},
     * else the fetched artifact of this JVM's platform, copied to {@code buildDir/}{@link #FETCHED}.
     */
    static String select(String bin, String path, String osName, String osArch, File buildDir, Fetcher fetcher)
            throws IOException {
        if (bin != null && !bin.isEmpty()) {
            return bin;
        }
        File onPath = onPath(path);
        if (onPath != null) {
            return onPath.getPath();
        }
        String classifier = classifier(osName, osArch);
        if (classifier == null) {
            throw new IOException("flaky: no flaky binary is published for " + osName + " " + osArch + ": " + REMEDY);
        }
        File fetched = fetcher.fetch(classifier);
        File target = new File(buildDir, FETCHED);
        Files.createDirectories(target.getParentFile().toPath());
        File tmp = new File(target.getParentFile(), "." + target.getName() + ".tmp");
        Files.copy(fetched.toPath(), tmp.toPath(), StandardCopyOption.REPLACE_EXISTING);
        if (!tmp.setExecutable(true, false)) {
            throw new IOException("cannot make " + tmp + " executable");
        }
        Files.move(tmp.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target.getPath();
    }

    /** The file {@code flaky} in the first directory of the PATH list that has one, else null. */
    static File onPath(String path) {
        if (path == null) {
            return null;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            File f = new File(dir, "flaky");
            if (f.isFile()) {
                return f;
            }
        }
        return null;
    }

    /**
     * The classifier of the flaky artifact for a JVM's os.name and os.arch (os-maven-plugin's names:
     * linux-x86_64, osx-aarch_64, ...), or null when flaky publishes none for it.
     */
    static String classifier(String osName, String osArch) {
        String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
        String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
        String o = os.equals("linux") ? "linux" : os.startsWith("mac") ? "osx" : null;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : null;
        return o == null || a == null ? null : o + "-" + a;
    }

    /** Fails with the remedy unless {@code bin version} starts as a process. */
    static void checkRuns(String bin) throws IOException {
        try {
            Process p = new ProcessBuilder(bin, "version").redirectErrorStream(true).start();
            p.getInputStream().close();
            p.waitFor();
        } catch (IOException e) {
            // No cause: Maven would append its message ("Cannot run program ...") to the remedy.
            throw new IOException("flaky: cannot run the flaky binary " + bin + ": " + REMEDY);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + bin, e);
        }
    }
}
