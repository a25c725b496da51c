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
        /** Pass the argument below the last one (both one-slot values) through the wrapper, then the original call. */
        FILTER_SECOND_LAST,
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
        /** The internal name of the class holding the wrapper. */
        final String api;

        Target(Strategy strategy, Kind kind, String owner, Owner ownerMatch, boolean isStatic, String name,
                String desc, String wrapper, String wrapperDesc) {
            this(strategy, kind, owner, ownerMatch, isStatic, name, desc, API, wrapper, wrapperDesc);
        }

        Target(Strategy strategy, Kind kind, String owner, Owner ownerMatch, boolean isStatic, String name,
                String desc, String api, String wrapper, String wrapperDesc) {
            this.api = api;
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
    static final String TIME_API = "dev/flaky/agent/chaos/TimeApi";
    /** Groovy's dynamic call sites, through which Groovy code reads the clock. */
    static final String GROOVY_CALL_SITE = "org/codehaus/groovy/runtime/callsite/CallSite";
    static final String ASYNC_API = "dev/flaky/agent/chaos/AsyncApi";
    static final String NET_API = "dev/flaky/agent/chaos/NetApi";

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
        return of(config, config.iterationAll);
    }

    /** The targets of the enabled strategies; hash iteration at project call sites unless {@code iterationAll}. */
    static Targets of(ChaosConfig config, boolean iterationAll) {
        Targets t = new Targets();
        Strategy random = config.inGroup("RANDOM");
        if (random != null) {
            t.random(random);
        }
        Strategy time = config.inGroup("TIME");
        Strategy date = config.inGroup("DATE");
        if (time != null) {
            t.replaceTime(time, "java/lang/System", "nanoTime", "()J", "nanoTime", "(I)J");
        }
        if (time != null || date != null) {
            t.clocks(time != null ? time : date, date != null ? date : time);
        }
        if (config.enabled(Strategy.LOCALE)) {
            t.locale();
        }
        if (config.enabled(Strategy.TIMEZONE)) {
            t.timezone();
        }
        Strategy sleep = config.inGroup("SLEEP");
        if (sleep != null) {
            t.sleep(sleep);
        }
        if (config.enabled(Strategy.CONCURRENCY_SHRINK)) {
            t.concurrency();
        }
        if (config.enabled(Strategy.NETWORK_DELAY)) {
            t.network();
        }
        if (config.enabled(Strategy.ITERATION_ORDER)) {
            t.iterationOrder(!iterationAll);
        }
        if (config.enabled(Strategy.ASYNC_DELAY)) {
            t.async();
            // The waits that give up on lagging work, unless another strategy already wraps them.
            if (sleep == null) {
                t.asyncSleeps();
            }
            if (!config.enabled(Strategy.CONCURRENCY_SHRINK)) {
                t.asyncWaits();
            }
        }
        if (time == Strategy.TIME_INCREMENT || time == Strategy.TIME_SLOW) {
            // Pauses before timed waits; added last, so a wait another strategy wraps keeps that strategy's wrapper.
            t.timedWaits(time);
        }
        return t;
    }

    /**
     * The wall-clock APIs (all read {@link PerceivedClock}): those that read an instant belong to {@code instant}
     * (TIME when enabled), those that read a date to {@code date} (DATE when enabled).
     */
    private void clocks(Strategy instant, Strategy date) {
        replaceTime(instant, "java/lang/System", "currentTimeMillis", "()J", "currentTimeMillis", "(I)J");
        replaceTime(instant, "java/time/Instant", "now", "()Ljava/time/Instant;", "instantNow",
                "(I)Ljava/time/Instant;");
        replaceTime(instant, "java/time/Clock", "systemUTC", "()Ljava/time/Clock;", "systemUTC",
                "(I)Ljava/time/Clock;");
        replaceTime(instant, "java/time/Clock", "systemDefaultZone", "()Ljava/time/Clock;", "systemDefaultZone",
                "(I)Ljava/time/Clock;");
        replaceTime(instant, "java/time/Clock", "system", "(Ljava/time/ZoneId;)Ljava/time/Clock;", "system",
                "(Ljava/time/ZoneId;I)Ljava/time/Clock;");
        add(new Target(date, Kind.FACTORY, "java/util/Date", Owner.EXACT, false, "<init>", "()V", TIME_API,
                "newDate", "(I)Ljava/util/Date;"));
        add(new Target(date, Kind.FACTORY, "java/util/GregorianCalendar", Owner.EXACT, false, "<init>", "()V",
                TIME_API, "newGregorianCalendar", "(I)Ljava/util/GregorianCalendar;"));
        String[][] nows = {
            {"LocalDate", "localDateNow"}, {"LocalDateTime", "localDateTimeNow"}, {"LocalTime", "localTimeNow"},
            {"ZonedDateTime", "zonedDateTimeNow"}, {"OffsetDateTime", "offsetDateTimeNow"},
        };
        for (String[] n : nows) {
            String type = "Ljava/time/" + n[0] + ";";
            replaceTime(date, "java/time/" + n[0], "now", "()" + type, n[1], "(I)" + type);
            replaceTime(date, "java/time/" + n[0], "now", "(Ljava/time/ZoneId;)" + type, n[1],
                    "(Ljava/time/ZoneId;I)" + type);
        }
        replaceTime(date, "java/time/Year", "now", "()Ljava/time/Year;", "yearNow", "(I)Ljava/time/Year;");
        replaceTime(date, "java/time/MonthDay", "now", "()Ljava/time/MonthDay;", "monthDayNow",
                "(I)Ljava/time/MonthDay;");
        replaceTime(date, "java/time/OffsetTime", "now", "()Ljava/time/OffsetTime;", "offsetTimeNow",
                "(I)Ljava/time/OffsetTime;");
        replaceTime(date, "java/time/YearMonth", "now", "()Ljava/time/YearMonth;", "yearMonthNow",
                "(I)Ljava/time/YearMonth;");
        String cal = "Ljava/util/Calendar;";
        replaceTime(date, "java/util/Calendar", "getInstance", "()" + cal, "calendar", "(I)" + cal);
        replaceTime(date, "java/util/Calendar", "getInstance", "(Ljava/util/TimeZone;)" + cal, "calendar",
                "(Ljava/util/TimeZone;I)" + cal);
        replaceTime(date, "java/util/Calendar", "getInstance", "(Ljava/util/Locale;)" + cal, "calendar",
                "(Ljava/util/Locale;I)" + cal);
        // Groovy code reads the clock through its dynamic call sites (TimeApi.groovyCall).
        String site = GROOVY_CALL_SITE;
        String o = "(Ljava/lang/Object;Ljava/lang/Object;I)Ljava/lang/Object;";
        add(new Target(instant, Kind.REPLACE, site, Owner.EXACT, false, "call", "(Ljava/lang/Object;)Ljava/lang/Object;",
                TIME_API, "groovyCall", o));
        add(new Target(date, Kind.REPLACE, site, Owner.EXACT, false, "callConstructor",
                "(Ljava/lang/Object;)Ljava/lang/Object;", TIME_API, "groovyConstruct", o));
    }

    /** Project calls that read the default time zone (which TIMEZONE changed), reported by a probe. */
    private void timezone() {
        probeTz(true, "java/util/TimeZone", "getDefault", "()Ljava/util/TimeZone;");
        probeTz(true, "java/time/ZoneId", "systemDefault", "()Ljava/time/ZoneId;");
        probeTz(true, "java/time/Clock", "systemDefaultZone", "()Ljava/time/Clock;");
        for (String type : new String[] {"LocalDate", "LocalDateTime", "LocalTime", "ZonedDateTime", "OffsetDateTime",
            "OffsetTime", "Year", "YearMonth", "MonthDay"}) {
            probeTz(true, "java/time/" + type, "now", "()Ljava/time/" + type + ";");
        }
        probeTz(true, "java/util/Calendar", "getInstance", "()Ljava/util/Calendar;");
        probeTz(true, "java/util/Calendar", "getInstance", "(Ljava/util/Locale;)Ljava/util/Calendar;");
        probeTz(false, "java/util/GregorianCalendar", "<init>", "()V");
        probeTz(false, "java/util/Date", "toString", "()Ljava/lang/String;");
        probeTz(false, "java/text/SimpleDateFormat", "<init>", "(Ljava/lang/String;)V");
        probeTz(false, "java/text/SimpleDateFormat", "<init>", "()V");
        probeTz(true, "java/text/DateFormat", "getDateTimeInstance", "()Ljava/text/DateFormat;");
        probeTz(true, "java/text/DateFormat", "getDateTimeInstance", "(II)Ljava/text/DateFormat;");
        probeTz(true, "java/text/DateFormat", "getTimeInstance", "()Ljava/text/DateFormat;");
        probeTz(true, "java/text/DateFormat", "getInstance", "()Ljava/text/DateFormat;");
    }

    private void probeTz(boolean isStatic, String owner, String name, String desc) {
        add(new Target(Strategy.TIMEZONE, Kind.PROBE, owner, isStatic ? Owner.SUBTYPE : Owner.EXACT, isStatic, name,
                desc, TIME_API, "timezone", "(I)V"));
    }

    private void sleep(Strategy s) {
        replaceStatic(s, "java/lang/Thread", "sleep", "(J)V", "sleep", "(JI)V");
        replaceStatic(s, "java/lang/Thread", "sleep", "(Ljava/time/Duration;)V", "sleepDuration",
                "(Ljava/lang/Object;I)V");
        replace(s, "java/util/concurrent/TimeUnit", Owner.SUBTYPE, "sleep", "(J)V", "sleepUnit",
                "(Ljava/util/concurrent/TimeUnit;JI)V");
    }

    /**
     * TIME_INCREMENT and TIME_SLOW: the timed waits, sleeps and parks, which pause before they start as a reading
     * of the clock does (a loaded machine can deschedule a thread there too).
     */
    private void timedWaits(Strategy s) {
        String timed = "(JLjava/util/concurrent/TimeUnit;";
        timeWait(s, "java/lang/Thread", true, "sleep", "(J)V", "sleep", "(JI)V");
        timeWait(s, "java/util/concurrent/TimeUnit", false, "sleep", "(J)V", "sleepUnit",
                "(Ljava/util/concurrent/TimeUnit;JI)V");
        timeWait(s, "java/lang/Object", false, "wait", "(J)V", "objectWait", "(Ljava/lang/Object;JI)V");
        timeWait(s, "java/lang/Thread", false, "join", "(J)V", "join", "(Ljava/lang/Thread;JI)V");
        timeWait(s, "java/util/concurrent/CountDownLatch", false, "await", timed + ")Z", "await",
                "(Ljava/util/concurrent/CountDownLatch;JLjava/util/concurrent/TimeUnit;I)Z");
        timeWait(s, "java/util/concurrent/Future", false, "get", timed + ")Ljava/lang/Object;", "get",
                "(Ljava/util/concurrent/Future;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        timeWait(s, "java/util/concurrent/Semaphore", false, "tryAcquire", timed + ")Z", "tryAcquire",
                "(Ljava/util/concurrent/Semaphore;JLjava/util/concurrent/TimeUnit;I)Z");
        timeWait(s, "java/util/concurrent/BlockingQueue", false, "poll", timed + ")Ljava/lang/Object;", "poll",
                "(Ljava/util/concurrent/BlockingQueue;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        timeWait(s, "java/util/concurrent/locks/Condition", false, "await", timed + ")Z", "conditionAwait",
                "(Ljava/util/concurrent/locks/Condition;JLjava/util/concurrent/TimeUnit;I)Z");
        timeWait(s, "java/util/concurrent/ExecutorService", false, "awaitTermination", timed + ")Z",
                "awaitTermination", "(Ljava/util/concurrent/ExecutorService;JLjava/util/concurrent/TimeUnit;I)Z");
        timeWait(s, "java/util/concurrent/locks/LockSupport", true, "parkNanos", "(J)V", "parkNanos", "(JI)V");
        timeWait(s, "java/util/concurrent/locks/LockSupport", true, "parkNanos", "(Ljava/lang/Object;J)V",
                "parkNanos", "(Ljava/lang/Object;JI)V");
    }

    private void timeWait(Strategy s, String owner, boolean isStatic, String name, String desc, String wrapper,
            String wrapperDesc) {
        add(new Target(s, Kind.REPLACE, owner, Owner.SUBTYPE, isStatic, name, desc, TIME_API, wrapper, wrapperDesc));
    }

    /** ASYNC_DELAY: work handed to other threads starts late. */
    private void async() {
        Strategy s = Strategy.ASYNC_DELAY;
        String exec = "java/util/concurrent/Executor";
        String service = "java/util/concurrent/ExecutorService";
        String scheduled = "java/util/concurrent/ScheduledExecutorService";
        String cf = "java/util/concurrent/CompletableFuture";
        String future = "Ljava/util/concurrent/Future;";
        String sf = "Ljava/util/concurrent/ScheduledFuture;";
        String unit = "Ljava/util/concurrent/TimeUnit;";
        String cfType = "L" + cf + ";";
        asyncReplace(exec, false, "execute", "(Ljava/lang/Runnable;)V", "execute",
                "(Ljava/util/concurrent/Executor;Ljava/lang/Runnable;I)V");
        asyncReplace(service, false, "submit", "(Ljava/lang/Runnable;)" + future, "submit",
                "(Ljava/util/concurrent/ExecutorService;Ljava/lang/Runnable;I)" + future);
        asyncReplace(service, false, "submit", "(Ljava/util/concurrent/Callable;)" + future, "submit",
                "(Ljava/util/concurrent/ExecutorService;Ljava/util/concurrent/Callable;I)" + future);
        asyncReplace(service, false, "submit", "(Ljava/lang/Runnable;Ljava/lang/Object;)" + future, "submit",
                "(Ljava/util/concurrent/ExecutorService;Ljava/lang/Runnable;Ljava/lang/Object;I)" + future);
        asyncReplace(service, false, "invokeAll", "(Ljava/util/Collection;)Ljava/util/List;", "invokeAll",
                "(Ljava/util/concurrent/ExecutorService;Ljava/util/Collection;I)Ljava/util/List;");
        asyncReplace(service, false, "invokeAll", "(Ljava/util/Collection;J" + unit + ")Ljava/util/List;",
                "invokeAll", "(Ljava/util/concurrent/ExecutorService;Ljava/util/Collection;J" + unit
                        + "I)Ljava/util/List;");
        asyncReplace(scheduled, false, "schedule", "(Ljava/lang/Runnable;J" + unit + ")" + sf, "schedule",
                "(Ljava/util/concurrent/ScheduledExecutorService;Ljava/lang/Runnable;J" + unit + "I)" + sf);
        asyncReplace(scheduled, false, "schedule", "(Ljava/util/concurrent/Callable;J" + unit + ")" + sf,
                "schedule", "(Ljava/util/concurrent/ScheduledExecutorService;Ljava/util/concurrent/Callable;J" + unit
                        + "I)" + sf);
        for (String periodic : new String[] {"scheduleAtFixedRate", "scheduleWithFixedDelay"}) {
            asyncReplace(scheduled, false, periodic, "(Ljava/lang/Runnable;JJ" + unit + ")" + sf, periodic,
                    "(Ljava/util/concurrent/ScheduledExecutorService;Ljava/lang/Runnable;JJ" + unit + "I)" + sf);
        }
        asyncReplace(cf, true, "runAsync", "(Ljava/lang/Runnable;)" + cfType, "runAsync",
                "(Ljava/lang/Runnable;I)" + cfType);
        asyncReplace(cf, true, "runAsync", "(Ljava/lang/Runnable;Ljava/util/concurrent/Executor;)" + cfType,
                "runAsync", "(Ljava/lang/Runnable;Ljava/util/concurrent/Executor;I)" + cfType);
        asyncReplace(cf, true, "supplyAsync", "(Ljava/util/function/Supplier;)" + cfType, "supplyAsync",
                "(Ljava/util/function/Supplier;I)" + cfType);
        asyncReplace(cf, true, "supplyAsync", "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;)"
                + cfType, "supplyAsync", "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;I)" + cfType);
        String stage = "Ljava/util/concurrent/CompletionStage;";
        asyncReplace(cf, false, "thenRunAsync", "(Ljava/lang/Runnable;)" + cfType, "thenRunAsync",
                "(" + cfType + "Ljava/lang/Runnable;I)" + cfType);
        asyncReplace(cf, false, "thenApplyAsync", "(Ljava/util/function/Function;)" + cfType, "thenApplyAsync",
                "(" + cfType + "Ljava/util/function/Function;I)" + cfType);
        asyncReplace(cf, false, "thenAcceptAsync", "(Ljava/util/function/Consumer;)" + cfType, "thenAcceptAsync",
                "(" + cfType + "Ljava/util/function/Consumer;I)" + cfType);
        String fjp = "java/util/concurrent/ForkJoinPool";
        String task = "Ljava/util/concurrent/ForkJoinTask;";
        asyncReplace(fjp, false, "execute", "(" + task + ")V", "forkJoinExecute",
                "(Ljava/util/concurrent/ForkJoinPool;" + task + "I)V");
        asyncReplace(fjp, false, "submit", "(" + task + ")" + task, "forkJoinSubmit",
                "(Ljava/util/concurrent/ForkJoinPool;" + task + "I)" + task);
        String thread = "java/lang/Thread";
        String delayRunnable = "(Ljava/lang/Runnable;I)Ljava/lang/Runnable;";
        add(new Target(s, Kind.FILTER_ARG, thread, Owner.EXACT, false, "<init>", "(Ljava/lang/Runnable;)V",
                ASYNC_API, "delayed", delayRunnable));
        add(new Target(s, Kind.FILTER_ARG, thread, Owner.EXACT, false, "<init>",
                "(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;)V", ASYNC_API, "delayed", delayRunnable));
        add(new Target(s, Kind.FILTER_SECOND_LAST, thread, Owner.EXACT, false, "<init>",
                "(Ljava/lang/Runnable;Ljava/lang/String;)V", ASYNC_API, "delayed", delayRunnable));
        add(new Target(s, Kind.FILTER_SECOND_LAST, thread, Owner.EXACT, false, "<init>",
                "(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;Ljava/lang/String;)V", ASYNC_API, "delayed",
                delayRunnable));
        String timer = "java/util/Timer";
        asyncReplace(timer, false, "schedule", "(Ljava/util/TimerTask;J)V", "timerSchedule",
                "(Ljava/util/Timer;Ljava/util/TimerTask;JI)V");
        asyncReplace(timer, false, "schedule", "(Ljava/util/TimerTask;JJ)V", "timerSchedule",
                "(Ljava/util/Timer;Ljava/util/TimerTask;JJI)V");
        asyncReplace(timer, false, "scheduleAtFixedRate", "(Ljava/util/TimerTask;JJ)V", "timerScheduleAtFixedRate",
                "(Ljava/util/Timer;Ljava/util/TimerTask;JJI)V");
        asyncReplace(timer, false, "schedule", "(Ljava/util/TimerTask;Ljava/util/Date;)V", "timerSchedule",
                "(Ljava/util/Timer;Ljava/util/TimerTask;Ljava/util/Date;I)V");
    }

    /** ASYNC_DELAY's sleeps: reported when they return while delayed work is still pending. */
    private void asyncSleeps() {
        asyncReplace("java/lang/Thread", true, "sleep", "(J)V", "sleep", "(JI)V");
        asyncReplace("java/util/concurrent/TimeUnit", false, "sleep", "(J)V", "sleepUnit",
                "(Ljava/util/concurrent/TimeUnit;JI)V");
    }

    /** ASYNC_DELAY's timed waits: reported when they give up while delayed work is still pending. */
    private void asyncWaits() {
        String timed = "(JLjava/util/concurrent/TimeUnit;";
        asyncReplace("java/util/concurrent/CountDownLatch", false, "await", timed + ")Z", "await",
                "(Ljava/util/concurrent/CountDownLatch;JLjava/util/concurrent/TimeUnit;I)Z");
        asyncReplace("java/util/concurrent/Future", false, "get", timed + ")Ljava/lang/Object;", "get",
                "(Ljava/util/concurrent/Future;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        asyncReplace("java/lang/Thread", false, "join", "(J)V", "join", "(Ljava/lang/Thread;JI)V");
        asyncReplace("java/util/concurrent/Semaphore", false, "tryAcquire", timed + ")Z", "tryAcquire",
                "(Ljava/util/concurrent/Semaphore;JLjava/util/concurrent/TimeUnit;I)Z");
        asyncReplace("java/util/concurrent/BlockingQueue", false, "poll", timed + ")Ljava/lang/Object;", "poll",
                "(Ljava/util/concurrent/BlockingQueue;JLjava/util/concurrent/TimeUnit;I)Ljava/lang/Object;");
        asyncReplace("java/util/concurrent/locks/Condition", false, "await", timed + ")Z", "conditionAwait",
                "(Ljava/util/concurrent/locks/Condition;JLjava/util/concurrent/TimeUnit;I)Z");
        asyncReplace("java/util/concurrent/ExecutorService", false, "awaitTermination", timed + ")Z",
                "awaitTermination", "(Ljava/util/concurrent/ExecutorService;JLjava/util/concurrent/TimeUnit;I)Z");
    }

    private void asyncReplace(String owner, boolean isStatic, String name, String desc, String wrapper,
            String wrapperDesc) {
        add(new Target(Strategy.ASYNC_DELAY, Kind.REPLACE, owner, Owner.SUBTYPE, isStatic, name, desc, ASYNC_API,
                wrapper, wrapperDesc));
    }

    /**
     * What NETWORK_DELAY perturbs ({@link NetApi}): {@code Socket.connect} with a timeout, host-name resolution,
     * the java.net.http timeouts, the blocking network timeouts, and their getters.
     */
    private void network() {
        String host = "(Ljava/lang/String;I)Ljava/lang/String;";
        add(new Target(Strategy.NETWORK_DELAY, Kind.FILTER_ARG, "java/net/InetAddress", Owner.EXACT, true, "getByName",
                "(Ljava/lang/String;)Ljava/net/InetAddress;", NET_API, "resolving", host));
        add(new Target(Strategy.NETWORK_DELAY, Kind.FILTER_ARG, "java/net/InetAddress", Owner.EXACT, true,
                "getAllByName", "(Ljava/lang/String;)[Ljava/net/InetAddress;", NET_API, "resolving", host));
        for (String resolves : new String[] {"java/net/InetSocketAddress", "java/net/Socket"}) {
            add(new Target(Strategy.NETWORK_DELAY, Kind.FILTER_SECOND_LAST, resolves, Owner.EXACT, false, "<init>",
                    "(Ljava/lang/String;I)V", NET_API, "resolving", host));
        }
        add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE, "java/net/Socket", Owner.SUBTYPE, false, "connect",
                "(Ljava/net/SocketAddress;I)V", NET_API, "connect", "(Ljava/net/Socket;Ljava/net/SocketAddress;II)V"));
        String any = "(Ljava/lang/Object;Ljava/lang/Object;I)Ljava/lang/Object;";
        add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE, "java/net/http/HttpClient$Builder", Owner.SUBTYPE, false,
                "connectTimeout", "(Ljava/time/Duration;)Ljava/net/http/HttpClient$Builder;", NET_API,
                "httpConnectTimeout", any));
        add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE, "java/net/http/HttpRequest$Builder", Owner.SUBTYPE, false,
                "timeout", "(Ljava/time/Duration;)Ljava/net/http/HttpRequest$Builder;", NET_API, "httpRequestTimeout",
                any));
        String[][] setters = {
            {"java/net/URLConnection", "setConnectTimeout"}, {"java/net/URLConnection", "setReadTimeout"},
            {"java/net/Socket", "setSoTimeout"},
        };
        for (String[] s : setters) {
            add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE, s[0], Owner.SUBTYPE, false, s[1], "(I)V", NET_API,
                    s[1], "(L" + s[0] + ";II)V"));
        }
        // Their getters read back what the project set: a slow network changes no setting.
        String[][] getters = {
            {"java/net/URLConnection", "getConnectTimeout"}, {"java/net/URLConnection", "getReadTimeout"},
            {"java/net/Socket", "getSoTimeout"},
        };
        for (String[] g : getters) {
            add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE_UNREPORTED, g[0], Owner.SUBTYPE, false, g[1], "()I",
                    NET_API, g[1], "(L" + g[0] + ";)I"));
        }
        String optional = "(Ljava/lang/Object;)Ljava/util/Optional;";
        add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE_UNREPORTED, "java/net/http/HttpClient", Owner.SUBTYPE, false,
                "connectTimeout", "()Ljava/util/Optional;", NET_API, "givenConnectTimeout", optional));
        add(new Target(Strategy.NETWORK_DELAY, Kind.REPLACE_UNREPORTED, "java/net/http/HttpRequest", Owner.SUBTYPE, false,
                "timeout", "()Ljava/util/Optional;", NET_API, "givenTimeout", optional));
    }

    private void replaceTime(Strategy s, String owner, String name, String desc, String wrapper, String wrapperDesc) {
        add(new Target(s, Kind.REPLACE, owner, Owner.SUBTYPE, true, name, desc, TIME_API, wrapper, wrapperDesc));
    }

    private void random(Strategy s) {
        String[] owners = {"java/util/Random", "java/util/concurrent/ThreadLocalRandom"};
        for (String owner : owners) {
            replace(s, owner, Owner.EXACT, "nextInt", "()I", "nextInt", "(Ljava/util/Random;I)I");
            replace(s, owner, Owner.EXACT, "nextInt", "(I)I", "nextInt", "(Ljava/util/Random;II)I");
            replace(s, owner, Owner.EXACT, "nextLong", "()J", "nextLong", "(Ljava/util/Random;I)J");
            replace(s, owner, Owner.EXACT, "nextDouble", "()D", "nextDouble", "(Ljava/util/Random;I)D");
        }
        for (String owner : new String[] {"java/util/Random", "java/security/SecureRandom",
            "java/util/concurrent/ThreadLocalRandom"}) {
            replace(s, owner, Owner.EXACT, "nextBoolean", "()Z", "nextBoolean", "(Ljava/util/Random;I)Z");
            replace(s, owner, Owner.EXACT, "nextFloat", "()F", "nextFloat", "(Ljava/util/Random;I)F");
        }
        replace(s, "java/util/concurrent/ThreadLocalRandom", Owner.EXACT, "nextInt", "(II)I", "nextInt",
                "(Ljava/util/concurrent/ThreadLocalRandom;III)I");
        // Random and SecureRandom's JDK 17 RandomGenerator methods, ThreadLocalRandom's, and the streams.
        for (String owner : new String[] {"java/util/Random", "java/security/SecureRandom",
            "java/util/concurrent/ThreadLocalRandom"}) {
            if (owner.endsWith("SecureRandom")) {
                replace(s, owner, Owner.EXACT, "nextInt", "()I", "nextInt", "(Ljava/util/Random;I)I");
                replace(s, owner, Owner.EXACT, "nextInt", "(I)I", "nextInt", "(Ljava/util/Random;II)I");
                replace(s, owner, Owner.EXACT, "nextLong", "()J", "nextLong", "(Ljava/util/Random;I)J");
                replace(s, owner, Owner.EXACT, "nextDouble", "()D", "nextDouble", "(Ljava/util/Random;I)D");
            }
            if (!owner.endsWith("ThreadLocalRandom")) {
                replace(s, owner, Owner.EXACT, "nextInt", "(II)I", "nextIntRange", "(Ljava/util/Random;III)I");
            }
            replace(s, owner, Owner.EXACT, "nextLong", "(J)J", "nextLongBound", "(Ljava/util/Random;JI)J");
            replace(s, owner, Owner.EXACT, "nextLong", "(JJ)J", "nextLongRange", "(Ljava/util/Random;JJI)J");
            replace(s, owner, Owner.EXACT, "nextDouble", "(D)D", "nextDoubleBound", "(Ljava/util/Random;DI)D");
            replace(s, owner, Owner.EXACT, "nextDouble", "(DD)D", "nextDoubleRange", "(Ljava/util/Random;DDI)D");
            String r = "(Ljava/util/Random;";
            replace(s, owner, Owner.EXACT, "ints", "()Ljava/util/stream/IntStream;", "ints",
                    r + "I)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(J)Ljava/util/stream/IntStream;", "ints",
                    r + "JI)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(II)Ljava/util/stream/IntStream;", "ints",
                    r + "III)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(JII)Ljava/util/stream/IntStream;", "ints",
                    r + "JIII)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "longs", "(J)Ljava/util/stream/LongStream;", "longs",
                    r + "JI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "longs", "(JJJ)Ljava/util/stream/LongStream;", "longs",
                    r + "JJJI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(J)Ljava/util/stream/DoubleStream;", "doubles",
                    r + "JI)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "longs", "()Ljava/util/stream/LongStream;", "longs",
                    r + "I)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "longs", "(JJ)Ljava/util/stream/LongStream;", "longs",
                    r + "JJI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "doubles", "()Ljava/util/stream/DoubleStream;", "doubles",
                    r + "I)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(DD)Ljava/util/stream/DoubleStream;", "doubles",
                    r + "DDI)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(JDD)Ljava/util/stream/DoubleStream;", "doubles",
                    r + "JDDI)Ljava/util/stream/DoubleStream;");
        }
        String split = "java/util/SplittableRandom";
        String sr = "(Ljava/util/SplittableRandom;";
        replace(s, split, Owner.EXACT, "nextInt", "()I", "splitNextInt", sr + "I)I");
        replace(s, split, Owner.EXACT, "nextInt", "(I)I", "splitNextInt", sr + "II)I");
        replace(s, split, Owner.EXACT, "nextInt", "(II)I", "splitNextInt", sr + "III)I");
        replace(s, split, Owner.EXACT, "nextLong", "()J", "splitNextLong", sr + "I)J");
        replace(s, split, Owner.EXACT, "nextLong", "(J)J", "splitNextLong", sr + "JI)J");
        replace(s, split, Owner.EXACT, "nextLong", "(JJ)J", "splitNextLong", sr + "JJI)J");
        replace(s, split, Owner.EXACT, "nextDouble", "()D", "splitNextDouble", sr + "I)D");
        replace(s, split, Owner.EXACT, "nextDouble", "(D)D", "splitNextDouble", sr + "DI)D");
        replace(s, split, Owner.EXACT, "nextDouble", "(DD)D", "splitNextDouble", sr + "DDI)D");
        replace(s, split, Owner.EXACT, "nextBoolean", "()Z", "splitNextBoolean", sr + "I)Z");
        add(new Target(s, Kind.SEEDED_CONSTRUCTOR, split, Owner.EXACT, false, "<init>", "(J)V", "seeded",
                "(Ljava/lang/Object;)V"));
        replaceStatic(s, "java/lang/Math", "random", "()D", "random", "(I)D");
        // JDK 17's RandomGenerator interface (a Random reached through it is the same instance, seeded or not).
        String gen = "java/util/random/RandomGenerator";
        String g = "(Ljava/lang/Object;";
        replace(s, gen, Owner.EXACT, "nextInt", "()I", "generatorNextInt", g + "I)I");
        replace(s, gen, Owner.EXACT, "nextInt", "(I)I", "generatorNextInt", g + "II)I");
        replace(s, gen, Owner.EXACT, "nextInt", "(II)I", "generatorNextInt", g + "III)I");
        replace(s, gen, Owner.EXACT, "nextLong", "()J", "generatorNextLong", g + "I)J");
        replace(s, gen, Owner.EXACT, "nextLong", "(J)J", "generatorNextLong", g + "JI)J");
        replace(s, gen, Owner.EXACT, "nextLong", "(JJ)J", "generatorNextLong", g + "JJI)J");
        replace(s, gen, Owner.EXACT, "nextDouble", "()D", "generatorNextDouble", g + "I)D");
        replace(s, gen, Owner.EXACT, "nextDouble", "(D)D", "generatorNextDouble", g + "DI)D");
        replace(s, gen, Owner.EXACT, "nextDouble", "(DD)D", "generatorNextDouble", g + "DDI)D");
        replace(s, gen, Owner.EXACT, "nextBoolean", "()Z", "generatorNextBoolean", g + "I)Z");
        replace(s, gen, Owner.EXACT, "nextFloat", "()F", "generatorNextFloat", g + "I)F");
        otherDraws(s);
        add(new Target(s, Kind.REPLACE_UNREPORTED, "java/util/random/RandomGeneratorFactory", Owner.EXACT, false,
                "create", "(J)Ljava/util/random/RandomGenerator;", "seededGenerator",
                "(Ljava/lang/Object;J)Ljava/lang/Object;"));
        add(new Target(s, Kind.REPLACE_UNREPORTED, "java/util/Random", Owner.SUBTYPE, false, "setSeed", "(J)V",
                "setSeed", "(Ljava/util/Random;J)V"));
        add(new Target(s, Kind.SEEDED_CONSTRUCTOR, "java/util/Random", Owner.EXACT, false, "<init>", "(J)V",
                "seeded", "(Ljava/lang/Object;)V"));
    }

    /**
     * The draws of every generator that the ones above leave: Gaussian, exponential and bounded-float values, byte
     * arrays, and SplittableRandom's and RandomGenerator's streams (JDK 17's methods are wrapped with an Object
     * receiver and called by reflection when not perturbed).
     */
    private void otherDraws(Strategy s) {
        String rnd = "java/util/Random";
        String split = "java/util/SplittableRandom";
        String gen = "java/util/random/RandomGenerator";
        String o = "(Ljava/lang/Object;";
        for (String owner : new String[] {rnd, "java/security/SecureRandom", "java/util/concurrent/ThreadLocalRandom"}) {
            replace(s, owner, Owner.EXACT, "nextGaussian", "()D", "nextGaussian", "(Ljava/util/Random;I)D");
            replace(s, owner, Owner.EXACT, "nextBytes", "([B)V", "nextBytes", "(Ljava/util/Random;[BI)V");
        }
        for (String owner : new String[] {split, gen}) {
            replace(s, owner, Owner.EXACT, "nextGaussian", "()D", "generatorNextGaussian", o + "I)D");
            replace(s, owner, Owner.EXACT, "nextBytes", "([B)V", "generatorNextBytes", o + "[BI)V");
            replace(s, owner, Owner.EXACT, "ints", "()Ljava/util/stream/IntStream;", "generatorInts",
                    o + "I)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(J)Ljava/util/stream/IntStream;", "generatorInts",
                    o + "JI)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(II)Ljava/util/stream/IntStream;", "generatorInts",
                    o + "III)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "ints", "(JII)Ljava/util/stream/IntStream;", "generatorInts",
                    o + "JIII)Ljava/util/stream/IntStream;");
            replace(s, owner, Owner.EXACT, "longs", "()Ljava/util/stream/LongStream;", "generatorLongs",
                    o + "I)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "longs", "(J)Ljava/util/stream/LongStream;", "generatorLongs",
                    o + "JI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "longs", "(JJ)Ljava/util/stream/LongStream;", "generatorLongs",
                    o + "JJI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "longs", "(JJJ)Ljava/util/stream/LongStream;", "generatorLongs",
                    o + "JJJI)Ljava/util/stream/LongStream;");
            replace(s, owner, Owner.EXACT, "doubles", "()Ljava/util/stream/DoubleStream;", "generatorDoubles",
                    o + "I)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(J)Ljava/util/stream/DoubleStream;", "generatorDoubles",
                    o + "JI)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(DD)Ljava/util/stream/DoubleStream;", "generatorDoubles",
                    o + "DDI)Ljava/util/stream/DoubleStream;");
            replace(s, owner, Owner.EXACT, "doubles", "(JDD)Ljava/util/stream/DoubleStream;", "generatorDoubles",
                    o + "JDDI)Ljava/util/stream/DoubleStream;");
        }
        replace(s, split, Owner.EXACT, "nextFloat", "()F", "generatorNextFloat", o + "I)F");
        for (String owner : new String[] {rnd, "java/security/SecureRandom", "java/util/concurrent/ThreadLocalRandom",
            split, gen}) {
            replace(s, owner, Owner.EXACT, "nextGaussian", "(DD)D", "generatorNextGaussian", o + "DDI)D");
            replace(s, owner, Owner.EXACT, "nextExponential", "()D", "generatorNextExponential", o + "I)D");
            replace(s, owner, Owner.EXACT, "nextFloat", "(F)F", "generatorNextFloat", o + "FI)F");
            replace(s, owner, Owner.EXACT, "nextFloat", "(FF)F", "generatorNextFloat", o + "FFI)F");
        }
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
        probe("java/lang/String", Owner.EXACT, "formatted", "([Ljava/lang/Object;)Ljava/lang/String;");
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
        replace(s, "java/util/concurrent/locks/Condition", Owner.SUBTYPE, "await", timed + ")Z", "conditionAwait",
                "(Ljava/util/concurrent/locks/Condition;JLjava/util/concurrent/TimeUnit;I)Z");
        replace(s, "java/util/concurrent/ExecutorService", Owner.SUBTYPE, "awaitTermination", timed + ")Z",
                "awaitTermination", "(Ljava/util/concurrent/ExecutorService;JLjava/util/concurrent/TimeUnit;I)Z");
        replace(s, "java/util/concurrent/CompletableFuture", Owner.EXACT, "orTimeout",
                timed + ")Ljava/util/concurrent/CompletableFuture;", "orTimeout",
                "(Ljava/util/concurrent/CompletableFuture;JLjava/util/concurrent/TimeUnit;I)"
                        + "Ljava/util/concurrent/CompletableFuture;");
        replaceStatic(s, "java/util/concurrent/locks/LockSupport", "parkNanos", "(J)V", "parkNanos", "(JI)V");
        replaceStatic(s, "java/util/concurrent/locks/LockSupport", "parkNanos", "(Ljava/lang/Object;J)V",
                "parkNanos", "(Ljava/lang/Object;JI)V");
    }

    /**
     * ITERATION_ORDER: the hash collections' iteration at project call sites (unless the JDK's own iteration is
     * rewritten instead, {@code chaos.iteration.scope=all}), and the reflection arrays.
     */
    private void iterationOrder(boolean collections) {
        Strategy s = Strategy.ITERATION_ORDER;
        replace(s, "java/lang/Class", Owner.EXACT, "getDeclaredMethods", "()[Ljava/lang/reflect/Method;",
                "getDeclaredMethods", "(Ljava/lang/Class;I)[Ljava/lang/reflect/Method;");
        replace(s, "java/lang/Class", Owner.EXACT, "getMethods", "()[Ljava/lang/reflect/Method;", "getMethods",
                "(Ljava/lang/Class;I)[Ljava/lang/reflect/Method;");
        replace(s, "java/lang/Class", Owner.EXACT, "getDeclaredFields", "()[Ljava/lang/reflect/Field;",
                "getDeclaredFields", "(Ljava/lang/Class;I)[Ljava/lang/reflect/Field;");
        replace(s, "java/lang/Class", Owner.EXACT, "getFields", "()[Ljava/lang/reflect/Field;", "getFields",
                "(Ljava/lang/Class;I)[Ljava/lang/reflect/Field;");
        if (!collections) {
            return;
        }
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
        // javac compiles toString() on a receiver typed Map or Set (an interface that does not declare it) as
        // Object.toString(): the most common way a test compares maps as text.
        replace(s, "java/lang/Object", Owner.EXACT, "toString", "()Ljava/lang/String;", "toString",
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
