package dev.flaky.agent.chaos;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Calendar;
import java.util.Date;
import java.util.GregorianCalendar;
import java.util.Locale;
import java.util.TimeZone;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

/**
 * The wrappers of the clock APIs (TIME and DATE strategies) and the TIMEZONE probe: every one reads the one
 * {@link PerceivedClock}, so {@code System.currentTimeMillis()}, {@code Instant.now()}, {@code LocalDate.now()},
 * {@code Calendar.getInstance()} and {@code new Date()} agree; and, under TIME_INCREMENT and TIME_SLOW, the timed
 * waits that pause before they start. Public because project classes call it.
 */
public final class TimeApi {
    private static PerceivedClock clock;

    private TimeApi() {
    }

    static void configure(PerceivedClock c) {
        clock = c;
    }

    /** The clock {@link #configure} set (a unit test puts it back). */
    static PerceivedClock configured() {
        return clock;
    }

    /** A {@link Clock} on the perceived wall clock. */
    static final class Perceived extends Clock {
        private final ZoneId zone;

        Perceived(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId z) {
            return z.equals(zone) ? this : new Perceived(z);
        }

        @Override
        public Instant instant() {
            return clock.instant();
        }

        @Override
        public long millis() {
            return clock.currentTimeMillis();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Perceived && ((Perceived) o).zone.equals(zone);
        }

        @Override
        public int hashCode() {
            return zone.hashCode() + 1;
        }

        @Override
        public String toString() {
            return "PerceivedClock[" + zone + "]";
        }
    }

    private static Clock at(ZoneId zone, int site) {
        Sites.hit(site);
        return new Perceived(zone);
    }

    private static Clock local(int site) {
        return at(ZoneId.systemDefault(), site);
    }

    /** {@code System.currentTimeMillis()}. */
    public static long currentTimeMillis(int site) {
        Sites.hit(site);
        long v = clock.currentTimeMillis();
        if (Explain.on) {
            Explain.log(site, System.currentTimeMillis(), v);
        }
        return v;
    }

    /** {@code System.nanoTime()}. */
    public static long nanoTime(int site) {
        Sites.hit(site);
        long v = clock.nanoTime();
        if (Explain.on) {
            Explain.log(site, System.nanoTime(), v);
        }
        return v;
    }

    /** {@code new Date()}. */
    public static Date newDate(int site) {
        Sites.hit(site);
        Date d = new Date(clock.currentTimeMillis());
        if (Explain.on) {
            Explain.log(site, new Date(), d);
        }
        return d;
    }

    /**
     * Groovy's {@code CallSite.call(Object)}: Groovy code's {@code System.currentTimeMillis()} and
     * {@code System.nanoTime()} read the perceived clock like Java code's (any other call goes to the site), so a
     * Groovy test and the Java code it tests agree on the time, as they do on a real machine.
     */
    public static Object groovyCall(Object callSite, Object receiver, int site) throws Throwable {
        if (receiver == System.class) {
            String name = Groovy.name(callSite);
            if ("currentTimeMillis".equals(name)) {
                return currentTimeMillis(site);
            }
            if ("nanoTime".equals(name) && clock.pacesElapsedTime()) {
                return nanoTime(site);
            }
        }
        return Groovy.call(callSite, receiver);
    }

    /** Groovy's {@code CallSite.callConstructor(Object)}: Groovy code's {@code new Date()} reads the perceived clock. */
    public static Object groovyConstruct(Object callSite, Object receiver, int site) throws Throwable {
        return receiver == Date.class ? newDate(site) : Groovy.callConstructor(callSite, receiver);
    }

    /** {@code Instant.now()}. */
    public static Instant instantNow(int site) {
        Sites.hit(site);
        Instant i = clock.instant();
        if (Explain.on) {
            Explain.log(site, Instant.now(), i);
        }
        return i;
    }

    /** {@code Clock.systemUTC()}. */
    public static Clock systemUTC(int site) {
        return at(ZoneOffset.UTC, site);
    }

    /** {@code Clock.systemDefaultZone()}. */
    public static Clock systemDefaultZone(int site) {
        return local(site);
    }

    /** {@code Clock.system(ZoneId)}. */
    public static Clock system(ZoneId zone, int site) {
        return at(zone, site);
    }

    /** {@code LocalDate.now()}. */
    public static LocalDate localDateNow(int site) {
        LocalDate v = LocalDate.now(local(site));
        if (Explain.on) {
            Explain.log(site, LocalDate.now(), v);
        }
        return v;
    }

    /** {@code LocalDate.now(ZoneId)}. */
    public static LocalDate localDateNow(ZoneId zone, int site) {
        return LocalDate.now(at(zone, site));
    }

    /** {@code LocalDateTime.now()}. */
    public static LocalDateTime localDateTimeNow(int site) {
        LocalDateTime v = LocalDateTime.now(local(site));
        if (Explain.on) {
            Explain.log(site, LocalDateTime.now(), v);
        }
        return v;
    }

    /** {@code LocalDateTime.now(ZoneId)}. */
    public static LocalDateTime localDateTimeNow(ZoneId zone, int site) {
        return LocalDateTime.now(at(zone, site));
    }

    /** {@code LocalTime.now()}. */
    public static LocalTime localTimeNow(int site) {
        return LocalTime.now(local(site));
    }

    /** {@code LocalTime.now(ZoneId)}. */
    public static LocalTime localTimeNow(ZoneId zone, int site) {
        return LocalTime.now(at(zone, site));
    }

    /** {@code ZonedDateTime.now()}. */
    public static ZonedDateTime zonedDateTimeNow(int site) {
        ZonedDateTime v = ZonedDateTime.now(local(site));
        if (Explain.on) {
            Explain.log(site, ZonedDateTime.now(), v);
        }
        return v;
    }

    /** {@code ZonedDateTime.now(ZoneId)}. */
    public static ZonedDateTime zonedDateTimeNow(ZoneId zone, int site) {
        return ZonedDateTime.now(at(zone, site));
    }

    /** {@code OffsetDateTime.now()}. */
    public static OffsetDateTime offsetDateTimeNow(int site) {
        return OffsetDateTime.now(local(site));
    }

    /** {@code OffsetDateTime.now(ZoneId)}. */
    public static OffsetDateTime offsetDateTimeNow(ZoneId zone, int site) {
        return OffsetDateTime.now(at(zone, site));
    }

    /** {@code Year.now()}. */
    public static Year yearNow(int site) {
        return Year.now(local(site));
    }

    /** {@code YearMonth.now()}. */
    public static YearMonth yearMonthNow(int site) {
        return YearMonth.now(local(site));
    }

    /** {@code MonthDay.now()}. */
    public static MonthDay monthDayNow(int site) {
        return MonthDay.now(local(site));
    }

    /** {@code OffsetTime.now()}. */
    public static OffsetTime offsetTimeNow(int site) {
        return OffsetTime.now(local(site));
    }

    /** {@code Calendar.getInstance()}. */
    public static Calendar calendar(int site) {
        return set(Calendar.getInstance(), site);
    }

    /** {@code Calendar.getInstance(TimeZone)}. */
    public static Calendar calendar(TimeZone zone, int site) {
        return set(Calendar.getInstance(zone), site);
    }

    /** {@code Calendar.getInstance(Locale)}. */
    public static Calendar calendar(Locale locale, int site) {
        return set(Calendar.getInstance(locale), site);
    }

    /** {@code new GregorianCalendar()}. */
    public static GregorianCalendar newGregorianCalendar(int site) {
        GregorianCalendar c = new GregorianCalendar();
        set(c, site);
        return c;
    }

    private static Calendar set(Calendar c, int site) {
        Sites.hit(site);
        long real = c.getTimeInMillis();
        c.setTimeInMillis(clock.currentTimeMillis());
        if (Explain.on) {
            Explain.log(site, real, c.getTimeInMillis());
        }
        return c;
    }

    // ---- TIME_INCREMENT, TIME_SLOW: a pause before a timed wait starts ----
    // The wait itself is the JDK's, in real time, as the clock is; only a wait no other strategy wraps comes here.

    /** Pauses before a timed wait at {@code site}, as before a reading, and reports the site when it paused. */
    private static void beforeWait(int site) {
        long paused = clock.stall();
        if (paused > 0) {
            Sites.hit(site);
            if (Explain.on) {
                Explain.log(site, "a timed wait", "a timed wait after a pause of " + paused / 1_000_000L + " ms");
            }
        }
    }

    /** {@code Thread.sleep(long)}. */
    public static void sleep(long millis, int site) throws InterruptedException {
        beforeWait(site);
        Thread.sleep(millis);
    }

    /** {@code TimeUnit.sleep(long)}. */
    public static void sleepUnit(TimeUnit unit, long timeout, int site) throws InterruptedException {
        beforeWait(site);
        unit.sleep(timeout);
    }

    /** {@code Object.wait(long)}. */
    public static void objectWait(Object o, long millis, int site) throws InterruptedException {
        beforeWait(site);
        o.wait(millis);
    }

    /** {@code Thread.join(long)}. */
    public static void join(Thread t, long millis, int site) throws InterruptedException {
        beforeWait(site);
        t.join(millis);
    }

    /** {@code CountDownLatch.await(long, TimeUnit)}. */
    public static boolean await(CountDownLatch latch, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        beforeWait(site);
        return latch.await(timeout, unit);
    }

    /** {@code Future.get(long, TimeUnit)}. */
    public static Object get(Future<?> future, long timeout, TimeUnit unit, int site)
            throws InterruptedException, ExecutionException, TimeoutException {
        beforeWait(site);
        return future.get(timeout, unit);
    }

    /** {@code Semaphore.tryAcquire(long, TimeUnit)}. */
    public static boolean tryAcquire(Semaphore semaphore, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        beforeWait(site);
        return semaphore.tryAcquire(timeout, unit);
    }

    /** {@code BlockingQueue.poll(long, TimeUnit)}. */
    public static Object poll(BlockingQueue<?> queue, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        beforeWait(site);
        return queue.poll(timeout, unit);
    }

    /** {@code Condition.await(long, TimeUnit)}. */
    public static boolean conditionAwait(Condition condition, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        beforeWait(site);
        return condition.await(timeout, unit);
    }

    /** {@code ExecutorService.awaitTermination(long, TimeUnit)}. */
    public static boolean awaitTermination(ExecutorService executor, long timeout, TimeUnit unit, int site)
            throws InterruptedException {
        beforeWait(site);
        return executor.awaitTermination(timeout, unit);
    }

    /** {@code LockSupport.parkNanos(long)}. */
    public static void parkNanos(long nanos, int site) {
        beforeWait(site);
        LockSupport.parkNanos(nanos);
    }

    /** {@code LockSupport.parkNanos(Object, long)}. */
    public static void parkNanos(Object blocker, long nanos, int site) {
        beforeWait(site);
        LockSupport.parkNanos(blocker, nanos);
    }

    /** TIMEZONE: placed before a project call that reads the default time zone, which the agent changed. */
    public static void timezone(int site) {
        Sites.hit(site);
        if (Explain.on) {
            Explain.log(site, "the machine's default time zone", TimeZone.getDefault().getID());
        }
    }
}
