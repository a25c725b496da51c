package dev.flaky.editor;

import com.google.gson.Gson;
import com.google.gson.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * The source editor of {@code flaky repair}: reads one JSON request per line from stdin and answers each with one
 * JSON line on stdout until stdin ends. A request is {@code {"op": ..., "source": ..., ...}}; the answer holds
 * {@code "source"} (the edited file, every untouched character as it was) and the op's results, or {@code "error"}.
 */
public final class Main {
    private Main() {
    }

    /**
     * Serves requests from stdin until it ends.
     *
     * @param args none
     * @throws IOException when stdin or stdout fail
     */
    public static void main(String[] args) throws IOException {
        Gson gson = new Gson();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().isEmpty()) {
                continue;
            }
            JsonObject answer;
            try {
                answer = Editor.handle(gson.fromJson(line, JsonObject.class));
            } catch (RuntimeException | Error e) {
                answer = new JsonObject();
                answer.addProperty("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.println(gson.toJson(answer));
            out.flush();
        }
    }
}
