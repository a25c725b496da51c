package dev.flaky.agent.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The JDK APIs whose call sites are rewritten for the enabled strategies, looked up by method name and descriptor.
 * Wrapper descriptors put the receiver first and the call site's id last, so a call is replaced by pushing the id
 * and invoking the wrapper statically.
 */
final class Targets {
    /** What the rewriting does at a matching call site. */
    enum Kind {
        /** Invoke the wrapper instead (receiver and arguments as they are, then the site id). */
        REPLACE,
        /** Invoke the wrapper instead, without a site id (bookkeeping, not a perturbation). */
        REPLACE_UNREPORTED,
        /** Report the site, then make the original call (the callee itself is perturbed). */
        PROBE,
        /** Pass the last argument through the wrapper first, then make the original call. */
        FILTER_ARG,
        /** {@code new T()} becomes a static factory call (NEW and DUP dropped). */
        FACTORY,
        /** After {@code new Random(seed)} or {@code super(seed)}, mark the instance as seeded. */
        SEEDED_CONSTRUCTOR,
    }

    /**
     * How a call site's owner must relate to the target's owner: the same type, any subtype, or a subtype in
     * {@code java.*} (for targets whose wrapper only perturbs exact JDK classes, such as HashMap, a receiver
     * typed with a project class can never qualify).
     */
    enum Owner { EXACT, SUBTYPE, JDK_SUBTYPE }

    /** One target API. */
    static final class Target {
        final Strategy strategy;
        final Kind kind;
        final String owner;
        final Owner ownerMatch;
        final boolean isStatic;
        final String name;
        final String desc;
        final String wrapper;
        final String wrapperDesc;

        Target(Strategy strategy, Kind kind, String owner, Owner ownerMatch, boolean isStatic, String name,
                String desc, String wrapper, String wrapperDesc) {
            this.strategy = strategy;
            this.kind = kind;
            this.owner = owner;
            this.ownerMatch = ownerMatch;
            this.isStatic = isStatic;
            this.name = name;
            this.desc = desc;
            this.wrapper = wrapper;
            this.wrapperDesc = wrapperDesc;
        }
    }

    static final String API = "dev/flaky/agent/chaos/Api";

    private final Map<String, List<Target>> byNameAndDesc = new HashMap<>();

    private Targets() {
    }

    /** Returns the targets with {@code name} and {@code desc}; empty when none. */
    List<Target> lookup(String name, String desc) {
        List<Target> list = byNameAndDesc.get(name + desc);
        return list == null ? Collections.<Target>emptyList() : list;
    }

    boolean isEmpty() {
        return byNameAndDesc.isEmpty();
    }

    /** The targets of the enabled strategies. */
    static Targets of(ChaosConfig config) {
        Targets t = new Targets();
        Strategy random = config.inGroup("RANDOM");
        if (random != null) {
            t.random(random);
        }
        Strategy time = config.inGroup("TIME");
        if (time != null) {
            t.replaceStatic(time, "java/lang/System", "currentTimeMillis", "()J", "currentTimeMillis", "(I)J");
            t.replaceStatic(time, "java/lang/System", "nanoTime", "()J", "nanoTime", "(I)J");
        }
        if (config.enabled(Strategy.DATE_FIXED)) {
            t.add(new Target(Strategy.DATE_FIXED, Kind.FACTORY, "java/util/Date", Owner.EXACT, false, "<init>", "()V",
                    "newDate", "(I)Ljava/util/Date;"));
        }
        if (config.enabled(Strategy.LOCALE)) {
            t.locale();
        }
        Strategy sleep = config.inGroup("SLEEP");
        if (sleep != null) {
            t.replaceStatic(sleep, "java/lang/Thread", "sleep", "(J)V", "sleep", "(JI)V");
        }
        if (config.enabled(Strategy.CONCURRENCY_SHRINK)) {
            t.concurrency();
        }
        if (config.enabled(Strategy.NETWORK_DELAY)) {
            t.replace(Strategy.NETWORK_DELAY, "java/net/Socket", Owner.SUBTYPE, "connect",
                    "(Ljava/net/SocketAddress;I)V", "connect", "(Ljava/net/Socket;Ljava/net/SocketAddress;II)V");
        }
        if (config.enabled(Strategy.ITERATION_ORDER)) {
            t.iterationOrder();
        }
        return t;
    }

    private void random(Strategy s) {
        String[] owners = {"java/util/Random", "java/util/concurrent/ThreadLocalRandom"};
        for (String owner : owners) {
            replace(s, owner, Owner.EXACT, "nextInt", "()I", "nextInt", "(Ljava/util/Random;I)I");
            replace(s, owner, Owner.EXACT, "nextInt", "(I)I", "nextInt", "(Ljava/util/Random;II)I");
            replace(s, owner, Owner.EXACT, "nextLong", "()J", "nextLong", "(Ljava/util/Random;I)J");
            replace(s, owner, Owner.EXACT, "nextDouble", "()D", "nextDouble", "(Ljava/util/Random;I)D");
        }
        replace(s, "java/util/concurrent/ThreadLocalRandom", Owner.EXACT, "nextInt", "(II)I", "nextInt",
                "(Ljava/util/concurrent/ThreadLocalRandom;III)I");
        replaceStatic(s, "java/lang/Math", "random", "()D", "random", "(I)D");
        add(new Target(s, Kind.REPLACE_UNREPORTED, "java/util/Random", Owner.SUBTYPE, false, "setSeed", "(J)V",
                "setSeed", "(Ljava/util/Random;J)V"));
        add(new Target(s, Kind.SEEDED_CONSTRUCTOR, "java/util/Random", Owner.EXACT, false, "<init>", "(J)V",
                "seeded", "(Ljava/lang/Object;)V"));
    }

    /** Project calls that read the default locale (which the agent changed in the JDK), reported by a probe. */
    private void locale() {
        probeStatic("java/util/Locale", "getDefault", "()Ljava/util/Locale;");
        probeStatic("java/util/Locale", "getDefault", "(Ljava/util/Locale$Category;)Ljava/util/Locale;");
        probe("java/lang/String", Owner.EXACT, "toUpperCase", "()Ljava/lang/String;");
        probe("java/lang/String", Owner.EXACT, "toLowerCase", "()Ljava/lang/String;");
        probeStatic("java/lang/String", "format", "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;");
        for (String factory : new String[] {"getInstance", "getNumberInstance", "getIntegerInstance",
            "getCurrencyInstance", "getPercentInstance"}) {
            probeStatic("java/text/NumberFormat", factory, "()Ljava/text/NumberFormat;");
        }
        probeStatic("java/text/DateFormat", "getInstance", "()Ljava/text/DateFormat;");
        for (String factory : new String[] {"getDateInstance", "getTimeInstance"}) {
            probeStatic("java/text/DateFormat", factory, "()Ljava/text/DateFormat;");
            probeStatic("java/text/DateFormat", factory, "(I)Ljava/text/DateFormat;");
        }
        probeStatic("java/text/DateFormat", "getDateTimeInstance", "()Ljava/text/DateFormat;");
        probeStatic("java/text/DateFormat", "getDateTimeInstance", "(II)Ljava/text/DateFormat;");
        probeConstructor("java/text/SimpleDateFormat", "()V");
        probeConstructor("java/text/SimpleDateFormat", "(Ljava/lang/String;)V");
        probeConstructor("java/text/DecimalFormat", "()V");
        probeConstructor("java/text/DecimalFormat", "(Ljava/lang/String;)V");
        probeConstructor("java/text/DecimalFormatSymbols", "()V");
        probeConstructor("java/text/MessageFormat", "(Ljava/lang/String;)V");
        probeStatic("java/text/MessageFormat", "format", "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/lang/String;");
        probeStatic("java/time/format/DateTimeFormatter", "ofPattern",
                "(Ljava/lang/String;)Ljava/time/format/DateTimeFormatter;");
        probeStatic("java/util/Calendar", "getInstance", "()Ljava/util/Calendar;");
        probeStatic("java/util/Calendar", "getInstance", "(Ljava/util/TimeZone;)Ljava/util/Calendar;");
        probeStatic("java/text/Collator", "getInstance", "()Ljava/text/Collator;");
        probeStatic("java/util/ResourceBundle", "getBundle", "(Ljava/lang/String;)Ljava/util/ResourceBundle;");
        probe("java/io/PrintStream", Owner.SUBTYPE, "printf",
                "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/io/PrintStream;");
        probe("java/io/PrintStream", Owner.SUBTYPE, "format",
                "(Ljava/lang/String;[Ljava/lang/Object;)Ljava/io/PrintStream;");
    }

    private void concurrency() {
        Strategy s = Strategy.CONCURRENCY_SHRINK;
        String timed = "(JLjava/util/concurrent/TimeUnit;";
        replace(s, "java/lang/Object", Owner.SUBTYPE, "wait", "(J)V", "objectWait", "(Ljava/lang/Object;JI)V");
        replace(s, "java/lang/Thread", Owner.SUBTYPE, "join", "(J)V", "join", "(Ljava/lang/Thread;JI)V");
        replace(s, "java/util/concurrent/CountDownLatch", Owner.SUBTYPE, "await", timed + ")Z", "await",
                "(Ljava/util/concurrent/CountDownLatch;JLjava/util/concurrent/TimeUnit;I)Z");
        replace(s, "java/util/concurrent/Future", Owner.SUBTYPE, "get", timed + ")Ljava/lang/Object;", "get",
                "(Ljava/util/concurrent/Future;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        replace(s, "java/util/concurrent/Semaphore", Owner.SUBTYPE, "tryAcquire", timed + ")Z", "tryAcquire",
                "(Ljava/util/concurrent/Semaphore;JLjava/util/concurrent/TimeUnit;I)Z");
        replace(s, "java/util/concurrent/BlockingQueue", Owner.SUBTYPE, "poll", timed + ")Ljava/lang/Object;",
                "poll", "(Ljava/util/concurrent/BlockingQueue;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        replace(s, "java/lang/Process", Owner.SUBTYPE, "waitFor", timed + ")Z", "waitFor",
                "(Ljava/lang/Process;JLjava/util/concurrent/TimeUnit;I)Z");
    }

    private void iterationOrder() {
        Strategy s = Strategy.ITERATION_ORDER;
        String map = "java/util/Map";
        String collection = "java/util/Collection";
        String iterable = "java/lang/Iterable";
        replace(s, map, Owner.JDK_SUBTYPE, "keySet", "()Ljava/util/Set;", "keySet",
                "(Ljava/util/Map;I)Ljava/util/Set;");
        replace(s, map, Owner.JDK_SUBTYPE, "values", "()Ljava/util/Collection;", "values",
                "(Ljava/util/Map;I)Ljava/util/Collection;");
        replace(s, map, Owner.JDK_SUBTYPE, "entrySet", "()Ljava/util/Set;", "entrySet",
                "(Ljava/util/Map;I)Ljava/util/Set;");
        replace(s, map, Owner.JDK_SUBTYPE, "forEach", "(Ljava/util/function/BiConsumer;)V", "forEachEntry",
                "(Ljava/util/Map;Ljava/util/function/BiConsumer;I)V");
        replace(s, iterable, Owner.JDK_SUBTYPE, "iterator", "()Ljava/util/Iterator;", "iterator",
                "(Ljava/lang/Iterable;I)Ljava/util/Iterator;");
        replace(s, iterable, Owner.JDK_SUBTYPE, "forEach", "(Ljava/util/function/Consumer;)V", "forEach",
                "(Ljava/lang/Iterable;Ljava/util/function/Consumer;I)V");
        replace(s, iterable, Owner.JDK_SUBTYPE, "spliterator", "()Ljava/util/Spliterator;", "spliterator",
                "(Ljava/lang/Iterable;I)Ljava/util/Spliterator;");
        replace(s, collection, Owner.JDK_SUBTYPE, "stream", "()Ljava/util/stream/Stream;", "stream",
                "(Ljava/util/Collection;I)Ljava/util/stream/Stream;");
        replace(s, collection, Owner.JDK_SUBTYPE, "parallelStream", "()Ljava/util/stream/Stream;", "parallelStream",
                "(Ljava/util/Collection;I)Ljava/util/stream/Stream;");
        replace(s, collection, Owner.JDK_SUBTYPE, "toArray", "()[Ljava/lang/Object;", "toArray",
                "(Ljava/util/Collection;I)[Ljava/lang/Object;");
        replace(s, collection, Owner.JDK_SUBTYPE, "toArray", "([Ljava/lang/Object;)[Ljava/lang/Object;", "toArray",
                "(Ljava/util/Collection;[Ljava/lang/Object;I)[Ljava/lang/Object;");
        replace(s, map, Owner.JDK_SUBTYPE, "toString", "()Ljava/lang/String;", "toString",
                "(Ljava/lang/Object;I)Ljava/lang/String;");
        replace(s, collection, Owner.JDK_SUBTYPE, "toString", "()Ljava/lang/String;", "toString",
                "(Ljava/lang/Object;I)Ljava/lang/String;");
        String orderedDesc = "(Ljava/util/Collection;I)Ljava/util/Collection;";
        for (String copier : new String[] {"java/util/ArrayList", "java/util/LinkedList", "java/util/ArrayDeque",
            "java/util/LinkedHashSet", "java/util/Vector", "java/util/concurrent/CopyOnWriteArrayList"}) {
            add(new Target(s, Kind.FILTER_ARG, copier, Owner.EXACT, false, "<init>", "(Ljava/util/Collection;)V",
                    "ordered", orderedDesc));
        }
        add(new Target(s, Kind.FILTER_ARG, collection, Owner.JDK_SUBTYPE, false, "addAll", "(Ljava/util/Collection;)Z",
                "ordered", orderedDesc));
        add(new Target(s, Kind.FILTER_ARG, "java/util/LinkedHashMap", Owner.EXACT, false, "<init>",
                "(Ljava/util/Map;)V", "orderedMap", "(Ljava/util/Map;I)Ljava/util/Map;"));
        add(new Target(s, Kind.FILTER_ARG, map, Owner.JDK_SUBTYPE, false, "putAll", "(Ljava/util/Map;)V", "orderedMap",
                "(Ljava/util/Map;I)Ljava/util/Map;"));
        add(new Target(s, Kind.FILTER_ARG, "java/lang/String", Owner.EXACT, true, "join",
                "(Ljava/lang/CharSequence;Ljava/lang/Iterable;)Ljava/lang/String;", "orderedIterable",
                "(Ljava/lang/Iterable;I)Ljava/lang/Iterable;"));
        replace(s, "java/lang/Class", Owner.EXACT, "getDeclaredMethods", "()[Ljava/lang/reflect/Method;",
                "getDeclaredMethods", "(Ljava/lang/Class;I)[Ljava/lang/reflect/Method;");
        replace(s, "java/lang/Class", Owner.EXACT, "getMethods", "()[Ljava/lang/reflect/Method;", "getMethods",
                "(Ljava/lang/Class;I)[Ljava/lang/reflect/Method;");
        replace(s, "java/lang/Class", Owner.EXACT, "getDeclaredFields", "()[Ljava/lang/reflect/Field;",
                "getDeclaredFields", "(Ljava/lang/Class;I)[Ljava/lang/reflect/Field;");
        replace(s, "java/lang/Class", Owner.EXACT, "getFields", "()[Ljava/lang/reflect/Field;", "getFields",
                "(Ljava/lang/Class;I)[Ljava/lang/reflect/Field;");
    }

    private void replace(Strategy s, String owner, Owner match, String name, String desc, String wrapper,
            String wrapperDesc) {
        add(new Target(s, Kind.REPLACE, owner, match, false, name, desc, wrapper, wrapperDesc));
    }

    private void replaceStatic(Strategy s, String owner, String name, String desc, String wrapper,
            String wrapperDesc) {
        add(new Target(s, Kind.REPLACE, owner, Owner.SUBTYPE, true, name, desc, wrapper, wrapperDesc));
    }

    private void probe(String owner, Owner match, String name, String desc) {
        add(new Target(Strategy.LOCALE, Kind.PROBE, owner, match, false, name, desc, "locale", "(I)V"));
    }

    private void probeStatic(String owner, String name, String desc) {
        add(new Target(Strategy.LOCALE, Kind.PROBE, owner, Owner.SUBTYPE, true, name, desc, "locale", "(I)V"));
    }

    private void probeConstructor(String owner, String desc) {
        add(new Target(Strategy.LOCALE, Kind.PROBE, owner, Owner.EXACT, false, "<init>", desc, "locale", "(I)V"));
    }

    private void add(Target target) {
        List<Target> list = byNameAndDesc.get(target.name + target.desc);
        if (list == null) {
            list = new ArrayList<>(2);
            byNameAndDesc.put(target.name + target.desc, list);
        }
        list.add(target);
    }
}
