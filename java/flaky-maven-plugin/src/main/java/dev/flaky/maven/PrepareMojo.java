package dev.flaky.maven;

import java.io.File;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;

/**
 * Readies a module for the flaky profile's Surefire run, before its tests: gets the flaky binary (see
 * {@link Binary}), has it install flaky's Surefire provider and agent into the local repository, and gives the
 * properties the profile's Surefire configuration names their defaults when the build sets none: flaky.version
 * (this plugin's), flaky.port and flaky.token (empty: the agent stays unconnected), flaky.testFailureIgnore
 * (true) and argLine (empty, for {@code @{argLine}} in builds without JaCoCo). Maven reads them when Surefire
 * runs, after this goal.
 */
@Mojo(name = "prepare", defaultPhase = LifecyclePhase.TEST_COMPILE, threadSafe = true)
public final class PrepareMojo extends AbstractMojo {
    /** The project property that carries the binary this goal picked to the verify goal. */
    static final String EXE_PROPERTY = "flaky.exe";

    @Parameter(defaultValue = "${project}", readonly = true)
    private MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true)
    private MavenSession session;

    @Parameter(defaultValue = "${plugin}", readonly = true)
    private PluginDescriptor plugin;

    @Parameter(defaultValue = "${repositorySystemSession}", readonly = true)
    private RepositorySystemSession repoSession;

    @Parameter(defaultValue = "${project.remoteProjectRepositories}", readonly = true)
    private List<RemoteRepository> repositories;

    @Component
    private RepositorySystem repoSystem;

    /** The flaky binary to run; empty: flaky on the PATH, else the one Maven resolves. */
    @Parameter(property = "flaky.bin", defaultValue = "")
    private String bin;

    @Override
    public void execute() throws MojoExecutionException {
        defaults();
        String exe = binary(project, session, plugin, bin, repoSystem, repoSession, repositories);
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

    /**
     * The binary to run, checked to start (see {@link Binary#select}), remembered in the project property
     * {@link #EXE_PROPERTY} for the module's later goals.
     */
    static String binary(MavenProject project, MavenSession session, PluginDescriptor plugin, String bin,
            RepositorySystem system, RepositorySystemSession repoSession, List<RemoteRepository> repositories)
            throws MojoExecutionException {
        String known = project.getProperties().getProperty(EXE_PROPERTY);
        if (known != null && (bin == null || bin.isEmpty() || bin.equals(known))) {
            return known;
        }
        Properties sys = session.getSystemProperties();
        String path = sys.getProperty("env.PATH", System.getenv("PATH"));
        String exe;
        try {
            exe = Binary.select(bin, path, System.getProperty("os.name"), System.getProperty("os.arch"),
                    new File(project.getBuild().getDirectory()), classifier -> {
                        DefaultArtifact a = new DefaultArtifact("dev.flaky", "flaky", classifier, "exe",
                                plugin.getVersion());
                        try {
                            return system.resolveArtifact(repoSession, new ArtifactRequest(a, repositories, null))
                                    .getArtifact().getFile();
                        } catch (ArtifactResolutionException e) {
                            throw new IOException("flaky: Maven cannot get the flaky binary " + a + " (" + e.getMessage()
                                    + "): " + Binary.REMEDY);
                        }
                    });
            Binary.checkRuns(exe);
        } catch (IOException e) {
            throw new MojoExecutionException(e.getMessage()); // the message says it all (see Binary)
        }
        project.getProperties().setProperty(EXE_PROPERTY, exe);
        return exe;
    }
}
