package dev.flaky.agent.invariants;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One program point's variables (name and Daikon representation kind) and its bounded sample for one test. */
final class Point {
    final String name;
    /** Variables in first-seen order, with their kinds. */
    final Map<String, String> vars = new LinkedHashMap<>();
    /** One map per sampled execution: variable to value; a variable missing from it is nonsensical there. */
    final List<Map<String, Object>> samples = new ArrayList<>();
    /** Executions of the point during the test, sampled or not. */
    long calls;

    Point(String name) {
        this.name = name;
    }

    void declare(String var, String kind) {
        if (!vars.containsKey(var)) {
            vars.put(var, kind);
        }
    }

    Map<String, Object> toEvent() {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("point", name);
        e.put("calls", calls);
        List<Object> vs = new ArrayList<>();
        for (Map.Entry<String, String> v : vars.entrySet()) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", v.getKey());
            d.put("kind", v.getValue());
            vs.add(d);
        }
        e.put("vars", vs);
        e.put("samples", samples);
        return e;
    }
}
