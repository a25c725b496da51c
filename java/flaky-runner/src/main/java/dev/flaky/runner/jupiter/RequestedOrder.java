package dev.flaky.runner.jupiter;

import org.junit.jupiter.api.MethodDescriptor;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.MethodOrdererContext;

import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The default method orderer of the runner's launcher executions (configuration parameter
 * {@code junit.jupiter.testmethod.order.default}): orders methods by their position in the list the runner
 * sets before each execution; methods not in the list keep their order after the listed ones.
 */
public final class RequestedOrder implements MethodOrderer {
    private static volatile List<String> methods = Collections.emptyList();

    /** Sets the method names, in order, for the next execution. */
    static void set(List<String> methodNames) {
        methods = methodNames;
    }

    @Override
    public void orderMethods(MethodOrdererContext context) {
        List<String> order = methods;
        context.getMethodDescriptors().sort(Comparator.comparingInt((MethodDescriptor d) -> {
            int position = order.indexOf(d.getMethod().getName());
            return position < 0 ? Integer.MAX_VALUE : position;
        }));
    }
}
