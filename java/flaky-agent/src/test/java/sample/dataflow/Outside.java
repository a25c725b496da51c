package sample.dataflow;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Calendar;
import java.util.Locale;
import java.util.TimeZone;

/** Shared state outside the heap: the JDK's default locale and time zone, and a file in the temporary directory. */
public final class Outside {
    private Outside() {
    }

    /** Sets the defaults (to their values) and writes the file {@code name} in the temporary directory. */
    public static void write(String name) throws IOException {
        Locale.setDefault(Locale.getDefault());
        TimeZone.setDefault(TimeZone.getDefault());
        Files.write(Paths.get(System.getProperty("java.io.tmpdir"), name), new byte[] {1});
    }

    /** Reads the defaults through APIs that use them, and whether the file exists. */
    public static String read(String name) {
        return String.format("%d", 1) + ":" + Calendar.getInstance().getTimeZone().getID().isEmpty() + ":"
                + new File(System.getProperty("java.io.tmpdir"), name).exists();
    }

    /** Uses no default: a locale and a time zone are passed. */
    public static String readExplicit() {
        return String.format(Locale.ROOT, "%d", 1) + Calendar.getInstance(TimeZone.getTimeZone("UTC"), Locale.ROOT)
                .getTimeZone().getID();
    }

    /** Deletes the file {@code name} in the temporary directory. */
    public static boolean delete(String name) {
        return new File(System.getProperty("java.io.tmpdir"), name).delete();
    }
}
