package dev.flaky.maven;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;

/**
 * Runs {@code flaky verify} on the module after its tests, with the flaky.* properties as its flags, and fails the
 * build when the module fails the gate: verify exits 1 and writes {@link #GATE_FILE}, whose text (the new flaky
 * tests and how to reproduce them) becomes the build's error. Any other exit status but 0 fails the build too.
 */
@Mojo(name = "verify", defaultPhase = LifecyclePhase.VERIFY, threadSafe = true)
public final class VerifyMojo extends FlakyMojo {
    /** The file, relative to the build directory, verify writes when the gate fails (mvn.GateFile in Go). */
    static final String GATE_FILE = "flaky/gate-failed";

    /** The project's root (verify's --root). */
    @Parameter(defaultValue = "${maven.multiModuleProjectDirectory}", readonly = true)
    private String root;

    /** on, off or report (verify's --gate). */
    @Parameter(property = "flaky.gate", defaultValue = "on")
    private String gate;

    @Parameter(property = "flaky.reruns")
    private String reruns;

    @Parameter(property = "flaky.rounds")
    private String rounds;

    @Parameter(property = "flaky.budget")
    private String budget;

    @Parameter(property = "flaky.chaos")
    private String chaos;

    @Parameter(property = "flaky.repair")
    private String repair;

    @Parameter(property = "flaky.strategy")
    private String strategy;

    @Parameter(property = "flaky.seed")
    private String seed;

    @Parameter(property = "flaky.since")
    private String since;

    @Parameter(property = "flaky.knowledge")
    private String knowledge;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        String exe = binary();
        String buildDir = project.getBuild().getDirectory();
        int status = Run.run(command(exe, buildDir), project.getBasedir());
        if (status != 0 && status != 1) {
            throw new MojoExecutionException("flaky verify failed (exit status " + status + ")");
        }
        File gateFile = new File(buildDir, GATE_FILE);
        if (gateFile.isFile()) {
            try {
                throw new MojoFailureException(new String(Files.readAllBytes(gateFile.toPath()), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new MojoExecutionException("read " + gateFile + ": " + e.getMessage(), e);
            }
        }
    }

    /** The verify command line; a flag whose property is not set gets an empty value, verify's default. */
    private List<String> command(String exe, String buildDir) {
        String rootDir = root == null || root.isEmpty() ? session.getExecutionRootDirectory() : root;
        List<String> cmd = new ArrayList<>(Arrays.asList(exe, "verify", "--module", project.getBasedir().getPath(),
                "--build-dir", buildDir, "--root", rootDir, "--gate", gate));
        String[][] flags = {
            {"--reruns", reruns}, {"--rounds", rounds}, {"--budget", budget}, {"--chaos", chaos},
            {"--repair", repair}, {"--strategy", strategy}, {"--seed", seed}, {"--since", since},
            {"--knowledge", knowledge},
        };
        for (String[] f : flags) {
            cmd.add(f[0]);
            cmd.add(f[1] == null ? "" : f[1]);
        }
        return cmd;
    }
}
