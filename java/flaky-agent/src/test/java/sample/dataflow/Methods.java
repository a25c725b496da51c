package sample.dataflow;

import java.util.function.IntSupplier;

/** Methods whose code runs in a lambda, in anonymous classes and in a nested class. */
public final class Methods {
    private Methods() {
    }

    /** Runs a lambda. */
    public static int viaLambda() {
        IntSupplier s = () -> 1;
        return s.getAsInt();
    }

    /** Runs an anonymous class that runs another. */
    public static int viaAnonymous() {
        final int[] n = new int[1];
        Runnable r = new Runnable() {
            @Override
            public void run() {
                new Runnable() {
                    @Override
                    public void run() {
                        n[0]++;
                    }
                }.run();
            }
        };
        r.run();
        return n[0];
    }

    /** Runs nothing else. */
    public static int plain() {
        return 2;
    }
}
