/**
 * Shared-state capture and restore (PolDet and ODRepair's debugger): at test boundaries the agent walks the
 * state reachable from the static fields of the project's and its dependencies' classes, the system properties, the
 * JDK defaults and the files changed in the working and temporary directories, serialises each root to a canonical
 * JSON tree with a fingerprint, and sends the roots that changed to the driver; on request it sets roots back to
 * values captured in another JVM right before a test.
 */
package dev.flaky.agent.state;
