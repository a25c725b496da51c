package dev.flaky.agent.invariants;

import dev.flaky.agent.Channel;
import dev.flaky.agent.MessageTypes;
import dev.flaky.agent.OptionList;
import dev.flaky.agent.chaos.ClassSelection;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.jar.asm.Type;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.not;

/**
 * Records, per test, a bounded sample of the values at the program points of the project's methods and sends them
 * as one {@code invariants} event right after the test's {@code test-end} (see agent/PROTOCOL.md).
 */
public final class Tracer implements Channel.Boundary {
    /** Most program points in one {@code invariants} event. */
    private static final int POINTS_PER_EVENT = 50;

    private static volatile Tracer active;

    private final int maxPoints;
    private final int maxSamples;
    private final Values values;
    private final Watches watches;
    private final StaticReads reads;
    /** Set while this records (guarded by this): a traced method the recording itself calls is not recorded. */
    private boolean inside;
    /** Method descriptions by declaring class and {@code name+descriptor}. */
    private final Map<Class<?>, Map<String, Site>> sites = new HashMap<>();
    /** The running test's program points by name, in first-seen order. Guarded by this. */
    private Map<String, Point> points = new LinkedHashMap<>();
    /** Changes whenever {@link #points} is replaced, so that sites drop the points they cached. Guarded by this. */
    private int generation;
    private int dropped;

    private String running = "";

    private Tracer(int maxPoints, int maxSamples, Values values, List<String> watches) {
        this.maxPoints = maxPoints;
        this.maxSamples = maxSamples;
        this.values = values;
        this.watches = new Watches(watches, values);
        this.reads = new StaticReads(values.selection);
    }

    /** The tracer's options (see agent/PROTOCOL.md). */
    private static final class Config {
        final List<String> roots, include, exclude, watch;
        final int points, samples, depth;

        Config(Map<String, String> options) {
            roots = OptionList.list(options.get("invariants.roots"));
            include = OptionList.list(options.get("invariants.include"));
            exclude = OptionList.list(options.get("invariants.exclude"));
            watch = OptionList.list(options.get("invariants.watch"));
            points = bound(options, "invariants.points", 2000);
            samples = bound(options, "invariants.samples", 64);
            depth = bound(options, "invariants.depth", 1);
        }
    }

    /**
     * Returns what the invariants options of {@code options} parse to, keyed by option name without the
     * {@code invariants.} prefix; null without an {@code invariants} option.
     *
     * @throws IllegalArgumentException when a bound is not a number
     */
    public static Map<String, Object> describe(Map<String, String> options) {
        if (!options.containsKey("invariants")) {
            return null;
        }
        Config c = new Config(options);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("roots", c.roots);
        d.put("include", c.include);
        d.put("exclude", c.exclude);
        d.put("watch", c.watch);
        d.put("points", c.points);
        d.put("samples", c.samples);
        d.put("depth", c.depth);
        return d;
    }

    /** Installs the tracer when the options hold {@code invariants}. */
    public static void install(Map<String, String> options, Instrumentation inst) {
        if (!options.containsKey("invariants")) {
            return;
        }
        Config c = new Config(options);
        final ClassSelection selection = new ClassSelection(c.roots, c.include, c.exclude);
        Tracer t = new Tracer(c.points, c.samples, new Values(c.depth, selection), c.watch);
        active = t;
        Channel.onBoundary(t);
        // Advice only adds code to existing methods: decorating (no rebase, no class format changes) is cheaper.
        new AgentBuilder.Default()
                .disableClassFormatChanges()
                .with(AgentBuilder.TypeStrategy.Default.DECORATE)
                .ignore(nameStartsWith("dev.flaky.").or(nameStartsWith("net.bytebuddy.")))
                .type((type, loader, module, redefined, domain) -> loader != null
                        && selection.selects(type.getName(), domain) && !type.isInterface() && !type.isAnnotation())
                .transform((builder, type, loader, module, domain) -> builder.visit(Advice.to(TraceAdvice.class)
                        .on(isMethod().and(not(isAbstract())).and(not(isNative())).and(not(isSynthetic()))
                                .and(not(isBridge())))))
                .installOn(inst);
    }

    private static int bound(Map<String, String> options, String key, int fallback) {
        String v = options.get(key);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < 0) {
                throw new IllegalArgumentException(key + "=" + v + ": want a number ≥ 0");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + v + ": want a number ≥ 0");
        }
    }

    /**
     * Called at the entry of a traced method; returns the watched values read there (handed back to
     * {@link #exit}), or null.
     */
    public static Object enter(Class<?> type, String method, Object self, Object[] args) {
        Tracer t = active;
        return t == null ? null : t.record(type, method, self, args, null, false, null);
    }

    /** Called at the normal exit of a traced method with what {@link #enter} returned. */
    public static void exit(Class<?> type, String method, Object self, Object[] args, Object result, Object watched) {
        Tracer t = active;
        if (t != null) {
            t.record(type, method, self, args, result, true, watched);
        }
    }

    private Object record(Class<?> type, String method, Object self, Object[] args, Object result, boolean exit,
            Object watched) {
        synchronized (this) {
            // The monitor is reentrant: only this thread can be inside already.
            if (inside) {
                return null;
            }
            inside = true;
            try {
                Site site = site(type, method);
                Object read = null;
                if (watches.any()) {
                    if (exit) {
                        watches.compare(watched, type, method, site.name, self == null, args, running);
                    } else {
                        read = watches.read(type, method);
                    }
                }
                sample(site, type, self, args, result, exit);
                return read;
            } catch (Throwable e) {
                // Tracing must never break the method it observes.
                return null;
            } finally {
                inside = false;
            }
        }
    }

    /** Adds one execution of the point to its sample, within the bounds. Guarded by this. */
    private void sample(Site site, Class<?> type, Object self, Object[] args, Object result, boolean exit) {
        if (site.generation != generation) {
            site.generation = generation;
            site.enter = null;
            site.exit = null;
        }
        Point p = exit ? site.exit : site.enter;
        if (p == null) {
            String name = exit ? site.exitName : site.enterName;
            p = points.get(name);
            if (p == null) {
                if (points.size() >= maxPoints) {
                    dropped++;
                    return;
                }
                p = new Point(name);
                points.put(name, p);
            }
            if (exit) {
                site.exit = p;
            } else {
                site.enter = p;
            }
        }
        p.calls++;
        if (p.samples.size() >= maxSamples) {
            return;
        }
        Map<String, Object> sample = new LinkedHashMap<>();
        if (self != null) {
            values.flatten(p, sample, "this", "hashcode", self, values.depth);
        }
        for (int i = 0; i < site.argKinds.length && args != null && i < args.length; i++) {
            values.flatten(p, sample, "arg" + i, site.argKinds[i], args[i], values.depth);
        }
        values.statics(p, sample, type);
        for (Field f : site.reads) {
            values.staticField(p, sample, f);
        }
        if (exit && site.returnKind != null) {
            values.flatten(p, sample, "return", site.returnKind, result, values.depth);
        }
        p.samples.add(sample);
    }

    private Site site(Class<?> type, String method) {
        Map<String, Site> byMethod = sites.get(type);
        if (byMethod == null) {
            byMethod = new HashMap<>();
            sites.put(type, byMethod);
        }
        Site s = byMethod.get(method);
        if (s == null) {
            s = new Site(type, method, reads.of(type, method));
            byMethod.put(method, s);
        }
        return s;
    }

    @Override
    public void testStarting(String test, int index) {
        synchronized (this) {
            points = new LinkedHashMap<>();
            generation++;
            dropped = 0;
            running = test;
            watches.drain();
        }
    }

    @Override
    public void testEnded(String test, int index) {
        List<Object> list = new ArrayList<>();
        List<Object> changes;
        int droppedPoints;
        synchronized (this) {
            for (Point p : points.values()) {
                list.add(p.toEvent());
            }
            droppedPoints = dropped;
            changes = watches.any() ? watches.drain() : null;
            running = "";
            points = new LinkedHashMap<>();
            generation++;
            dropped = 0;
        }
        // Several events of at most POINTS_PER_EVENT points each, so that every one fits in a frame.
        int from = 0;
        do {
            int to = Math.min(list.size(), from + POINTS_PER_EVENT);
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("type", MessageTypes.INVARIANTS);
            event.put("test", test);
            event.put("index", index);
            event.put("points", list.subList(from, to));
            event.put("dropped", droppedPoints);
            if (changes != null && from == 0) {
                event.put("changes", changes);
            }
            try {
                Channel.send(event);
            } catch (IllegalArgumentException tooLarge) {
                // Larger than a frame despite the bounds: these points are lost, the run goes on.
            }
            from = to;
        } while (from < list.size());
    }

    /** A traced method: its Daikon program-point name (without the ENTER/EXIT suffix) and its value kinds. */
    private static final class Site {
        final String name;
        final String enterName;
        final String exitName;
        /** The running test's points of this site, valid while {@link #generation} is the tracer's. */
        Point enter;
        Point exit;
        int generation = -1;
        final String[] argKinds;
        /** Null for a void method. */
        final String returnKind;
        /** The static fields of other traced classes the method reads directly. */
        final List<Field> reads;

        Site(Class<?> type, String method, List<Field> reads) {
            this.reads = reads;
            int paren = method.indexOf('(');
            String desc = method.substring(paren);
            Type[] args = Type.getArgumentTypes(desc);
            argKinds = new String[args.length];
            StringBuilder b = new StringBuilder(type.getName()).append('.').append(method, 0, paren).append('(');
            for (int i = 0; i < args.length; i++) {
                argKinds[i] = Values.kind(args[i]);
                b.append(i > 0 ? ", " : "").append(args[i].getClassName());
            }
            name = b.append(')').toString();
            enterName = name + ":::ENTER";
            exitName = name + ":::EXIT";
            Type r = Type.getReturnType(desc);
            returnKind = r.getSort() == Type.VOID ? null : Values.kind(r);
        }
    }
}
