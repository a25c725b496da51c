package dev.flaky.runner.warm;

import dev.flaky.runner.Classes;

import java.util.Set;

/** The JVM's registered shutdown hooks, read through the agent; unknown (null) without it. */
final class ShutdownHooks {
    private ShutdownHooks() {
    }

    /** The hooks registered now, or null when they cannot be read. */
    static Set<Thread> registered() {
        if (!Classes.present("dev.flaky.agent.JdkAccess")) {
            return null;
        }
        return dev.flaky.agent.JdkAccess.shutdownHooks();
    }
}
