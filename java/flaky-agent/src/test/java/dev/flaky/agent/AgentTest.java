package dev.flaky.agent;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import org.junit.Test;

import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

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

    @Test
    public void dumpDecodesEscapedItems() {
        JsonObject d = new Gson().fromJson(Agent.dump(Agent.parseOptions("port=7,chaos=RANDOM_MAX+locale,"
                + "chaos.roots=a%2Cb%2B%20c%25+%C3%A9%5C,chaos.random.limit=3,state=before:0+after:2,"
                + "state.restore=%2Ftmp%2Fa%2Bb%20c,invariants=on,invariants.watch=p.C%23m+p.C.f,dataflow=true")),
                JsonObject.class);
        assertEquals("7", d.get("port").getAsString());
        JsonObject chaos = d.getAsJsonObject("chaos");
        assertEquals("[\"RANDOM_MAX\",\"LOCALE\"]", chaos.get("chaos").toString());
        assertEquals("[\"a,b+ c%\",\"\u00e9\\\\\"]", chaos.get("roots").toString());
        assertEquals(3, chaos.get("random.limit").getAsInt());
        JsonObject state = d.getAsJsonObject("state");
        assertEquals("{\"all\":false,\"before\":[0],\"after\":[2]}", state.get("state").toString());
        assertEquals("/tmp/a+b c", state.get("restore").getAsString());
        assertEquals("[\"p.C#m\",\"p.C.f\"]", d.getAsJsonObject("invariants").get("watch").toString());
        assertTrue(d.get("dataflow").getAsBoolean());
    }
}
