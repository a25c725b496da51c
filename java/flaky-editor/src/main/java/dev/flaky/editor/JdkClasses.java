package dev.flaky.editor;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/** The public java.* and javax.* classes of the running JDK, by simple name: where stitching looks up a missing import. */
final class JdkClasses {
    private JdkClasses() {
    }

    private static Map<String, List<String>> index;

    /**
     * Returns the qualified names of the JDK's java.* and javax.* top-level classes with a simple name.
     *
     * @param simple the simple name
     * @return the qualified names, java.* first
     */
    static synchronized List<String> named(String simple) {
        if (index == null) {
            index = new HashMap<>();
            try {
                load();
            } catch (IOException | RuntimeException e) {
                // No index: stitching then finds no JDK import.
            }
        }
        List<String> out = index.get(simple);
        return out == null ? new ArrayList<String>() : out;
    }

    private static void load() throws IOException {
        File rt = new File(System.getProperty("java.home"), "lib/rt.jar");
        if (rt.isFile()) {
            try (ZipFile z = new ZipFile(rt)) {
                Enumeration<? extends ZipEntry> es = z.entries();
                while (es.hasMoreElements()) {
                    add(es.nextElement().getName());
                }
            }
            return;
        }
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        try (Stream<Path> mods = Files.list(jrt.getPath("/modules"))) {
            for (Path mod : (Iterable<Path>) mods::iterator) {
                for (String top : new String[] {"java", "javax"}) {
                    Path root = mod.resolve(top);
                    if (!Files.isDirectory(root)) {
                        continue;
                    }
                    try (Stream<Path> files = Files.walk(root)) {
                        files.forEach(p -> add(mod.relativize(p).toString()));
                    }
                }
            }
        }
    }

    private static void add(String entry) {
        if (!entry.endsWith(".class") || entry.contains("$") || !(entry.startsWith("java/") || entry.startsWith("javax/"))) {
            return;
        }
        String name = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
        String simple = name.substring(name.lastIndexOf('.') + 1);
        List<String> list = index.computeIfAbsent(simple, k -> new ArrayList<>());
        if (name.startsWith("java.")) {
            list.add(0, name);
        } else {
            list.add(name);
        }
    }
}
