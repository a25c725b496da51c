package dev.flaky.agent;

import org.junit.Test;

import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

public class AgentTest {
    @Test
    public void parsesEmptyValuesAndUnknownKeys() {
        Map<String, String> options = Agent.parseOptions("port=,token=,later=x,flag");
        assertEquals("", options.get("port"));
        assertEquals("", options.get("token"));
        assertEquals("x", options.get("later"));
        assertEquals("", options.get("flag"));
    }

    @Test
    public void emptyPortAndTokenDoNotConnect() {
        // Would halt the JVM with status 86 if the agent tried to connect.
        Agent.premain("port=,token=", null);
        Agent.premain(null, null);
        assertFalse(Channel.connected());
    }
}
