package dev.flaky.agent;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Protocol framing: a big-endian uint32 length followed by that many bytes of UTF-8 JSON holding one object. */
final class Frames {
    /** Largest frame either side may send. */
    static final int MAX_FRAME = 16 * 1024 * 1024;

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    private Frames() {
    }

    /**
     * Writes one message as a frame (without flushing). A message larger than {@link #MAX_FRAME} is refused with
     * an {@link IllegalArgumentException} before anything is written.
     */
    static void write(DataOutputStream out, Map<String, Object> message) throws IOException {
        out.write(encode(message));
    }

    /**
     * Returns one message as the bytes of its frame. A message larger than {@link #MAX_FRAME} is refused with an
     * {@link IllegalArgumentException}.
     */
    static byte[] encode(Map<String, Object> message) {
        byte[] body = GSON.toJson(message).getBytes(StandardCharsets.UTF_8);
        if (body.length > MAX_FRAME) {
            throw new IllegalArgumentException("a " + message.get("type") + " message of " + body.length
                    + " bytes exceeds the protocol's frame limit of " + MAX_FRAME);
        }
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    /**
     * Reads the frame of {@code message} back from memory, so that the classes reading a frame takes are loaded
     * (and, in a JVM whose other agents transform classes, transformed) before a peer waits for this side.
     */
    static void prepareReading(Map<String, Object> message) throws IOException {
        string(read(new DataInputStream(new ByteArrayInputStream(encode(message)))), "type");
    }

    /** Reads one frame and returns its JSON object; fails on a bad length or a body that is no JSON object. */
    static JsonObject read(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 1 || length > MAX_FRAME) {
            throw new IOException("frame length " + (length & 0xffffffffL) + " is outside 1 .. " + MAX_FRAME);
        }
        byte[] body = new byte[length];
        in.readFully(body);
        try {
            JsonElement element = JsonParser.parseString(new String(body, StandardCharsets.UTF_8));
            if (!element.isJsonObject()) {
                throw new IOException("frame holds no JSON object");
            }
            return element.getAsJsonObject();
        } catch (JsonParseException e) {
            throw new IOException("frame holds invalid JSON: " + e.getMessage(), e);
        }
    }

    /** Returns the string member {@code name} of {@code message}, or "" when it is missing or no string. */
    static String string(JsonObject message, String name) {
        JsonElement value = message.get(name);
        if (value == null || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
            return "";
        }
        return value.getAsString();
    }
}
