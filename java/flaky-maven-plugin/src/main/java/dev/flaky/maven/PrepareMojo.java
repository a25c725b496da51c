package dev.flaky.maven;

import java.util.Arrays;
import java.util.Properties;

import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;

/**
 * Readies a module for the flaky profile's Surefire run, before its tests: gets the flaky binary (see
 * {@link Binary}), has it install flaky's Surefire provider and agent into the local repository, and gives the
 * properties the profile's Surefire configuration names their defaults when the build sets none: flaky.version
 * (this plugin's), flaky.port and flaky.token (empty: the agent stays unconnected), flaky.testFailureIgnore
 * (true) and argLine (empty, for {@code @{argLine}} in builds without JaCoCo). Maven reads them when Surefire
 * runs, after this goal.
 */
@Mojo(name = "prepare", defaultPhase = LifecyclePhase.TEST_COMPILE, threadSafe = true)
public final class PrepareMojo extends FlakyMojo {
    @Override
    public void execute() throws MojoExecutionException {
        defaults();
        String exe = binary();
        String repo = repoSession.getLocalRepository().getBasedir().getAbsolutePath();
        int status = Run.run(Arrays.asList(exe, "install-artifacts", "--repo", repo), project.getBasedir());
        if (status != 0) {
            throw new MojoExecutionException("flaky install-artifacts failed (exit status " + status + ")");
        }
    }

    /** Sets the properties of the profile's Surefire configuration that neither the build nor -D set. */
    private void defaults() {
        Properties props = project.getProperties();
        String[][] defaults = {
            {"flaky.version", plugin.getVersion()}, {"flaky.port", ""}, {"flaky.token", ""},
            {"flaky.testFailureIgnore", "true"}, {"argLine", ""},
        };
        for (String[] d : defaults) {
            if (props.getProperty(d[0]) == null && session.getUserProperties().getProperty(d[0]) == null) {
                props.setProperty(d[0], d[1]);
            }
        }
    }
}
