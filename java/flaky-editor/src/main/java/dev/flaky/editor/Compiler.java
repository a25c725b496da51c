package dev.flaky.editor;

import com.google.gson.JsonObject;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Runs the JDK's compiler in the editor's JVM, which is already warm: faster than a javac process per candidate. */
final class Compiler {
    private Compiler() {
    }

    /**
     * Compiles with javac's command-line arguments.
     *
     * @param args the arguments
     * @return {@code {"exit": n, "output": "..."}}, or {@code {"unavailable": true}} on a JRE without a compiler
     */
    static JsonObject compile(List<String> args) {
        JsonObject out = new JsonObject();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            out.addProperty("unavailable", true);
            return out;
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream ps;
        try {
            ps = new PrintStream(buf, true, "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
        int exit = javac.run(null, ps, ps, args.toArray(new String[0]));
        ps.flush();
        out.addProperty("exit", exit);
        try {
            out.addProperty("output", buf.toString("UTF-8"));
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
