package dev.flaky.maven;

import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.Properties;

import org.apache.maven.execution.MavenSession;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.descriptor.PluginDescriptor;
import org.apache.maven.plugins.annotations.Component;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.project.MavenProject;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactRequest;
import org.eclipse.aether.resolution.ArtifactResolutionException;

/**
 * What the plugin's goals share: the module's project and session, and the flaky binary they run (see
 * {@link #binary}).
 */
abstract class FlakyMojo extends AbstractMojo {
    /** The project property that carries the binary the first goal picked to the module's later goals. */
    static final String EXE_PROPERTY = "flaky.exe";

    @Parameter(defaultValue = "${project}", readonly = true)
    MavenProject project;

    @Parameter(defaultValue = "${session}", readonly = true)
    MavenSession session;

    @Parameter(defaultValue = "${plugin}", readonly = true)
    PluginDescriptor plugin;

    @Parameter(defaultValue = "${repositorySystemSession}", readonly = true)
    RepositorySystemSession repoSession;

    @Parameter(defaultValue = "${project.remoteProjectRepositories}", readonly = true)
    List<RemoteRepository> repositories;

    @Component
    RepositorySystem repoSystem;

    /** The flaky binary to run; empty: flaky on the PATH, else the one Maven resolves. */
    @Parameter(property = "flaky.bin", defaultValue = "")
    String bin;

    /**
     * The binary to run, checked to start (see {@link Binary#select}), remembered in the project property
     * {@link #EXE_PROPERTY} for the module's later goals.
     */
    String binary() throws MojoExecutionException {
        String known = project.getProperties().getProperty(EXE_PROPERTY);
        if (known != null && (bin == null || bin.isEmpty() || bin.equals(known))) {
            return known;
        }
        Properties sys = session.getSystemProperties();
        String path = sys.getProperty("env.PATH", System.getenv("PATH"));
        String exe;
        try {
            exe = Binary.select(bin, path, System.getProperty("os.name"), System.getProperty("os.arch"),
                    new File(project.getBuild().getDirectory()), this::resolve);
            Binary.checkRuns(exe);
        } catch (IOException e) {
            throw new MojoExecutionException(e.getMessage()); // the message says it all (see Binary)
        }
        project.getProperties().setProperty(EXE_PROPERTY, exe);
        return exe;
    }

    /** The flaky binary of this plugin's version for the platform classifier, as Maven resolves it. */
    private File resolve(String classifier) throws IOException {
        DefaultArtifact a = new DefaultArtifact("dev.flaky", "flaky", classifier, "exe", plugin.getVersion());
        try {
            return repoSystem.resolveArtifact(repoSession, new ArtifactRequest(a, repositories, null)).getArtifact()
                    .getFile();
        } catch (ArtifactResolutionException e) {
            throw new IOException("flaky: Maven cannot get the flaky binary " + a + " (" + e.getMessage() + "): "
                    + Binary.REMEDY);
        }
    }
}
