package dev.flaky.surefire;

import dev.flaky.runner.Failure;

import java.io.PrintWriter;
import java.io.StringWriter;

/** The texts of a failure that Surefire's stack trace writers give: full, trimmed and one-line traces. */
public final class Traces {
    private Traces() {
    }

    /** The full stack trace, or {@code type: message} for a failure without a throwable. */
    public static String full(Failure failure) {
        Throwable t = failure.throwable();
        if (t == null) {
            return headline(failure);
        }
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }

    /** The stack trace cut below the test's frames (Surefire's {@code trimStackTrace}). */
    public static String trimmed(Failure failure) {
        return failure.stack() != null ? failure.stack() : headline(failure);
    }

    /**
     * The one-line summary Surefire lists under "Failures:"/"Errors:", in its style: {@code ATest.m:12 message}
     * for a failed assertion, {@code ATest.m:12 » IllegalState message} for another throwable.
     */
    public static String summary(Failure failure, String className, String method) {
        Throwable t = failure.throwable();
        StringBuilder b = new StringBuilder(location(t, className, method));
        String message = failure.message();
        if (!(t instanceof AssertionError)) {
            String type = failure.type() != null ? failure.type() : t != null ? t.getClass().getName() : "Error";
            String simple = type.substring(type.lastIndexOf('.') + 1);
            if (simple.endsWith("Exception") && simple.length() > "Exception".length()) {
                simple = simple.substring(0, simple.length() - "Exception".length());
            }
            b.append(" \u00bb ").append(simple);
        }
        if (message != null && !message.isEmpty()) {
            b.append(' ').append(message);
        }
        return b.toString();
    }

    /** The failure's throwable, or a stand-in carrying its type and message when it has none. */
    public static Throwable throwable(Failure failure) {
        Throwable t = failure.throwable();
        return t != null ? t : new ReportedFailure(failure.type(), failure.message());
    }

    private static String headline(Failure failure) {
        String type = failure.type() != null ? failure.type() : ReportedFailure.class.getName();
        return failure.message() == null ? type : type + ": " + failure.message();
    }

    /** {@code Simple.method:line} of the top frame in the test class (or a class nested in it), else the test. */
    private static String location(Throwable t, String className, String method) {
        String topLevel = topLevel(className);
        if (t != null) {
            for (StackTraceElement frame : t.getStackTrace()) {
                if (topLevel(frame.getClassName()).equals(topLevel)) {
                    String where = simpleName(frame.getClassName()) + "." + frame.getMethodName();
                    return frame.getLineNumber() > 0 ? where + ":" + frame.getLineNumber() : where;
                }
            }
        }
        return method == null || method.isEmpty() ? simpleName(className) : simpleName(className) + "." + method;
    }

    private static String topLevel(String className) {
        int dollar = className.indexOf('$');
        return dollar > 0 ? className.substring(0, dollar) : className;
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    /** Stands in for a failure without a throwable, such as a test the runner cannot find. */
    static final class ReportedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String type;

        ReportedFailure(String type, String message) {
            super(message, null, false, false);
            this.type = type;
        }

        @Override
        public String toString() {
            String name = type != null ? type : getClass().getName();
            return getMessage() == null ? name : name + ": " + getMessage();
        }
    }
}
