package dev.flaky.runner;

import dev.flaky.agent.Channel;

import java.util.Map;
import java.util.function.IntUnaryOperator;

/** Sends events through the agent's connection to the driver. Loaded only when the agent's classes are present. */
final class ChannelSink implements EventSink {
    private ChannelSink() {
    }

    /** Returns a sink on the agent's channel, or null when the agent is not connected to a driver. */
    static EventSink openIfConnected() {
        return Channel.connected() ? new ChannelSink() : null;
    }

    @Override
    public void send(Map<String, Object> event) {
        Channel.send(event);
    }

    @Override
    public void flush() {
        Channel.flush();
    }

    @Override
    public void upcoming(Class<?> testClass, String test, int index) {
        Channel.upcoming(testClass, test, index);
    }

    @Override
    public void onHandoff(IntUnaryOperator handler) {
        Channel.onHandoff(handler);
    }
}
