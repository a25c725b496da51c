package dev.flaky.runner;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Prints events as JSON lines on the process's standard output, for runs without a driver. Writes to the file
 * descriptor directly, so tests that replace {@code System.out} do not swallow events.
 */
final class StdoutSink implements EventSink {
    private final Gson gson = new GsonBuilder().disableHtmlEscaping().create();
    private final PrintWriter out = new PrintWriter(
            new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8));

    @Override
    public synchronized void send(Map<String, Object> event) {
        out.println(gson.toJson(event));
        out.flush();
    }

    @Override
    public synchronized void flush() {
        out.flush();
    }
}
