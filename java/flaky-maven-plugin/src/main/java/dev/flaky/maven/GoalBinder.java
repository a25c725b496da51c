package dev.flaky.maven;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import javax.inject.Named;
import javax.inject.Singleton;

import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.project.MavenProject;

/**
 * Binds the plugin's goals in every project that declares the plugin, once Maven has read the projects and before
 * it plans their builds: the flaky profile declares the plugin with {@code <extensions>true</extensions>} (which
 * makes Maven load this class) and no executions, a shorter profile for a pull request to show. A declaration
 * that already runs one of the goals itself, as the profiles of earlier flaky versions do, is left as it is.
 */
@Named("flaky")
@Singleton
public final class GoalBinder extends AbstractMavenLifecycleParticipant {
    /** The plugin's key, groupId:artifactId, as {@link MavenProject#getPlugin} takes it. */
    static final String KEY = "dev.flaky:flaky-maven-plugin";

    /** The goals the profile runs, each in its default phase: prepare in test-compile, verify in verify. */
    static final List<String> GOALS = Collections.unmodifiableList(Arrays.asList("prepare", "verify"));

    @Override
    public void afterProjectsRead(MavenSession session) {
        for (MavenProject project : session.getProjects()) {
            Plugin plugin = project.getPlugin(KEY);
            if (plugin != null) {
                bind(plugin);
            }
        }
    }

    /**
     * Adds an execution of {@link #GOALS} (id "default", as Maven names an execution without an id) unless one of
     * the plugin's executions already runs one of them.
     */
    static void bind(Plugin plugin) {
        for (PluginExecution e : plugin.getExecutions()) {
            if (!Collections.disjoint(e.getGoals(), GOALS)) {
                return;
            }
        }
        PluginExecution e = new PluginExecution();
        e.setId("default");
        e.setGoals(new ArrayList<>(GOALS));
        plugin.addExecution(e);
    }
}
