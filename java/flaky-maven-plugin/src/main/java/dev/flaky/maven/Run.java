package dev.flaky.maven;

import java.io.File;
import java.io.IOException;
import java.util.List;

import org.apache.maven.plugin.MojoExecutionException;

/** Runs the flaky binary with Maven's own output and error streams. */
final class Run {
    private Run() {
    }

    /** Runs command in dir and returns its exit status. */
    static int run(List<String> command, File dir) throws MojoExecutionException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            return p.waitFor();
        } catch (IOException e) {
            throw new MojoExecutionException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MojoExecutionException("interrupted while running " + command.get(0), e);
        }
    }
}
