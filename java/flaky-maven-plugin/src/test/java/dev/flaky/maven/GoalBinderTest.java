package dev.flaky.maven;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Collections;

import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.junit.Test;

public class GoalBinderTest {
    @Test
    public void bindsBothGoalsWhenThePluginHasNoExecutions() {
        Plugin plugin = new Plugin();
        GoalBinder.bind(plugin);
        assertEquals(1, plugin.getExecutions().size());
        PluginExecution e = plugin.getExecutions().get(0);
        assertEquals("default", e.getId());
        assertEquals(Arrays.asList("prepare", "verify"), e.getGoals());
    }

    @Test
    public void leavesAnEarlierProfilesExecutionsAlone() {
        Plugin plugin = new Plugin();
        PluginExecution own = new PluginExecution();
        own.setGoals(Arrays.asList("prepare", "verify"));
        plugin.addExecution(own);
        GoalBinder.bind(plugin);
        assertEquals(Collections.singletonList(own), plugin.getExecutions());
    }

    @Test
    public void bindsBesideAnExecutionOfOtherGoals() {
        Plugin plugin = new Plugin();
        PluginExecution other = new PluginExecution();
        other.setId("other");
        other.setGoals(Collections.singletonList("help"));
        plugin.addExecution(other);
        GoalBinder.bind(plugin);
        assertEquals(2, plugin.getExecutions().size());
        assertEquals(Arrays.asList("prepare", "verify"), plugin.getExecutions().get(1).getGoals());
    }
}
