package dev.flaky.agent;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.After;
import org.junit.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

public class ChannelTest {
    @After
    public void removeHandler() {
        Channel.onHandoff(null);
    }

    private static JsonObject command(String json) {
        return JsonParser.parseString(json).getAsJsonObject();
    }

    private static Map<String, Object> handoffAt(int at) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "handoff-at");
        m.put("at", at);
        return m;
    }

    @Test
    public void refusesAHandoffWhenNoRunnerAcceptsThem() {
        assertEquals(handoffAt(-1), Channel.answer(command("{\"type\":\"handoff\",\"index\":3}")));
    }

    @Test
    public void answersAHandoffWithWhatTheHandlerCommitted() {
        List<Integer> asked = new ArrayList<>();
        Channel.onHandoff(n -> {
            asked.add(n);
            return n + 2;
        });
        assertEquals(handoffAt(5), Channel.answer(command("{\"type\":\"handoff\",\"index\":3,\"extra\":true}")));
        assertEquals(handoffAt(2), Channel.answer(command("{\"type\":\"handoff\",\"index\":0.0}")));
        assertEquals(Arrays.asList(3, 0), asked);
    }

    @Test
    public void refusesAHandoffWithoutAValidIndexWithoutAskingTheHandler() {
        List<Integer> asked = new ArrayList<>();
        Channel.onHandoff(n -> {
            asked.add(n);
            return n;
        });
        for (String index : new String[] {"", ",\"index\":-1", ",\"index\":1.5", ",\"index\":\"2\"",
                ",\"index\":4294967296", ",\"index\":null"}) {
            assertEquals(index, handoffAt(-1), Channel.answer(command("{\"type\":\"handoff\"" + index + "}")));
        }
        assertEquals(new ArrayList<Integer>(), asked);
    }

    @Test
    public void refusesAHandoffWhoseHandlerFails() {
        Channel.onHandoff(n -> {
            throw new IllegalStateException("broken");
        });
        assertEquals(handoffAt(-1), Channel.answer(command("{\"type\":\"handoff\",\"index\":1}")));
    }

    @Test
    public void ignoresOtherCommands() {
        Channel.onHandoff(n -> n);
        assertNull(Channel.answer(command("{\"type\":\"welcome\",\"protocol\":1}")));
        assertNull(Channel.answer(command("{\"type\":\"handoff-at\",\"at\":1}")));
        assertNull(Channel.answer(command("{\"index\":1}")));
    }
}
