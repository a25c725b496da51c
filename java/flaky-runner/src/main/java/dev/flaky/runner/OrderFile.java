package dev.flaky.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads order files: UTF-8, one test id per line; blank lines and lines starting with {@code #} are ignored. */
final class OrderFile {
    private OrderFile() {
    }

    static List<OrderEntry> read(Path file) throws IOException {
        List<OrderEntry> entries = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String id = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
            if (id.trim().isEmpty() || id.startsWith("#")) {
                continue;
            }
            entries.add(new OrderEntry(entries.size(), id));
        }
        return entries;
    }

    /** Splits an order into maximal runs of consecutive entries of the same class. */
    static List<List<OrderEntry>> classRuns(List<OrderEntry> entries) {
        List<List<OrderEntry>> runs = new ArrayList<>();
        List<OrderEntry> current = null;
        for (OrderEntry e : entries) {
            if (current == null || !current.get(0).className.equals(e.className)) {
                current = new ArrayList<>();
                runs.add(current);
            }
            current.add(e);
        }
        return runs;
    }
}
