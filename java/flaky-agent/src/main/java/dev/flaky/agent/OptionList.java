package dev.flaky.agent;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The one decoder of the agent's option values (see agent/PROTOCOL.md): lists are {@code +}-separated, and the
 * driver escapes each item, path or pattern as {@code %XX} (one byte of UTF-8), so that {@code %}, {@code ,},
 * {@code +} and {@code =} inside it reach the agent intact.
 */
public final class OptionList {
    private OptionList() {
    }

    /**
     * Splits a {@code +}-separated option value, trimming parts and dropping empty ones, and decodes each part
     * (see {@link #decode}); a null value is the empty list.
     */
    public static List<String> list(String value) {
        List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        for (String part : value.split("\\+")) {
            if (!part.trim().isEmpty()) {
                out.add(decode(part.trim()));
            }
        }
        return out;
    }

    /**
     * Decodes {@code %XX} escapes (two hex digits, one byte of UTF-8); other characters, a {@code +} among them,
     * stay as they are, and so does a {@code %} not followed by two hex digits.
     */
    public static String decode(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        byte[] in = value.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '%' && i + 2 < in.length && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
                out.write(hex(in[i + 1]) * 16 + hex(in[i + 2]));
                i += 2;
            } else {
                out.write(in[i]);
            }
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    private static int hex(byte b) {
        return Character.digit((char) b, 16);
    }
}
