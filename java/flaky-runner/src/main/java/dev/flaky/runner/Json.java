package dev.flaky.runner;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;

/** JSON for code that embeds the runner, with the Gson the runner carries (relocated, so it clashes with none). */
public final class Json {
    private static final Gson PRETTY = new GsonBuilder().disableHtmlEscaping().setPrettyPrinting().create();

    private Json() {
    }

    /** Returns {@code value} (maps, lists, strings, numbers, booleans) as indented JSON. */
    public static String pretty(Object value) {
        return PRETTY.toJson(value);
    }
}
