package dev.flaky.agent.state;

import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files of the working directory and of {@code java.io.tmpdir} that changed since the JVM started: a listing of
 * both (name, size, modification time) taken at start, compared at each capture. A changed file's tree has its size,
 * content hash and, when small, its content; a deleted file's is null. Build outputs ({@code target/classes},
 * {@code target/test-classes}, {@code target/flaky}) and {@code .git} are not listed; each listing is bounded.
 */
final class FileState {
    /** Root name prefix of files in the temporary directory. */
    static final String TMP = "${java.io.tmpdir}/";
    private static final int MAX_ENTRIES = 20_000;
    private static final int MAX_DEPTH = 8;
    private static final int MAX_CONTENT = 64 << 10;

    private final File cwd;
    private final File tmp;
    private final Map<String, String> start;

    FileState() {
        cwd = new File(System.getProperty("user.dir", ".")).getAbsoluteFile();
        tmp = new File(System.getProperty("java.io.tmpdir", "/tmp")).getAbsoluteFile();
        start = listing();
    }

    /** Returns the trees of the files that differ from the start listing, by root name. */
    Map<String, JsonElement> changed() {
        Map<String, String> now = listing();
        Map<String, JsonElement> out = new TreeMap<>();
        for (Map.Entry<String, String> e : now.entrySet()) {
            if (!e.getValue().equals(start.get(e.getKey()))) {
                out.put(e.getKey(), tree(file(e.getKey())));
            }
        }
        for (String name : start.keySet()) {
            if (!now.containsKey(name)) {
                out.put(name, JsonNull.INSTANCE);
            }
        }
        return out;
    }

    /** Reports whether the file existed when the JVM started. */
    boolean existedAtStart(String root) {
        return start.containsKey(root);
    }

    /** The file a root names. */
    File file(String root) {
        return root.startsWith(TMP) ? new File(tmp, root.substring(TMP.length())) : new File(cwd, root);
    }

    private static JsonElement tree(File f) {
        JsonObject o = new JsonObject();
        try {
            byte[] content = Files.readAllBytes(f.toPath());
            o.addProperty("size", content.length);
            o.addProperty("sha256", sha256(content));
            if (content.length <= MAX_CONTENT) {
                o.addProperty("base64", Base64.getEncoder().encodeToString(content));
            }
        } catch (IOException | OutOfMemoryError e) {
            o.addProperty("size", f.length());
        }
        return o;
    }

    static String sha256(byte[] content) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(content);
            StringBuilder s = new StringBuilder();
            for (byte b : d) {
                s.append(String.format("%02x", b));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Map<String, String> listing() {
        Map<String, String> out = new TreeMap<>();
        int[] budget = {MAX_ENTRIES};
        list(cwd, "", 0, out, budget);
        if (!tmp.equals(cwd)) {
            list(tmp, TMP, 0, out, budget);
        }
        return out;
    }

    private void list(File dir, String prefix, int depth, Map<String, String> out, int[] budget) {
        File[] children = dir.listFiles();
        if (children == null || depth > MAX_DEPTH) {
            return;
        }
        for (File c : children) {
            if (budget[0]-- <= 0) {
                return;
            }
            String name = prefix + c.getName();
            if (c.isDirectory()) {
                if (skipped(name) || (c.getAbsoluteFile().equals(tmp) && !prefix.startsWith(TMP))) {
                    continue;
                }
                list(c, name + "/", depth + 1, out, budget);
            } else {
                out.put(name, c.length() + "/" + c.lastModified());
            }
        }
    }

    private static boolean skipped(String name) {
        return name.equals(".git") || name.equals("target/classes") || name.equals("target/test-classes")
                || name.equals("target/flaky");
    }
}
