package dev.flaky.surefire.api2;

/** A piece of captured test output, as Surefire 2.x's ConsoleOutputReceiver receives it. */
final class Chunk {
    final byte[] bytes;
    final boolean stdout;

    Chunk(byte[] bytes, boolean stdout) {
        this.bytes = bytes;
        this.stdout = stdout;
    }
}
