package dev.flaky.agent;

import com.google.gson.JsonObject;
import org.junit.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

public class FramesTest {
    @Test
    public void roundTripsAFrame() throws Exception {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "test-end");
        m.put("message", "<ü>");
        m.put("index", 3);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Frames.write(new DataOutputStream(bytes), m);
        byte[] b = bytes.toByteArray();
        assertEquals(b.length - 4, ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff));
        JsonObject read = Frames.read(new DataInputStream(new ByteArrayInputStream(b)));
        assertEquals("test-end", Frames.string(read, "type"));
        assertEquals("<ü>", Frames.string(read, "message"));
        assertEquals(3, read.get("index").getAsInt());
        assertEquals("", Frames.string(read, "index"));
    }

    @Test
    public void encodesWhatWriteWrites() throws Exception {
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("type", "hello");
        hello.put("token", "t");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Frames.write(new DataOutputStream(bytes), hello);
        assertArrayEquals(bytes.toByteArray(), Frames.encode(hello));
        Frames.prepareReading(hello);
    }

    @Test
    public void rejectsOversizedAndNonObjectFrames() {
        byte[][] frames = {
            {0x01, 0x00, 0x00, 0x01},
            {0, 0, 0, 2, '[', ']'},
            {0, 0, 0, 0},
        };
        for (byte[] frame : frames) {
            try {
                Frames.read(new DataInputStream(new ByteArrayInputStream(frame)));
                fail("accepted an invalid frame");
            } catch (IOException expected) {
                // Protocol error.
            }
        }
    }

    @Test
    public void parsesAgentOptions() {
        Map<String, String> o = Agent.parseOptions("port=123,token=a=b,,flag,unknown=x");
        assertEquals("123", o.get("port"));
        assertEquals("a=b", o.get("token"));
        assertEquals("", o.get("flag"));
        assertEquals(0, Agent.parseOptions(null).size());
    }
}
