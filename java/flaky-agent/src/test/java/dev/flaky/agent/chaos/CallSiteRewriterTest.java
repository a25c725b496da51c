package dev.flaky.agent.chaos;

import net.bytebuddy.dynamic.loading.ByteArrayClassLoader;
import net.bytebuddy.pool.TypePool;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/** Rewrites {@link Sample} with every strategy's targets and calls the rewritten copy. */
public class CallSiteRewriterTest {
    private static final List<Map<String, Object>> EVENTS = Collections.synchronizedList(new ArrayList<>());
    private static Consumer<Map<String, Object>> previousSink;
    private static Class<?> sample;
    /** System.nanoTime() just before the perceived clock was made: it has run at real time since. */
    private static long clockMade;

    @BeforeClass
    public static void rewrite() throws Exception {
        Map<String, String> options = new HashMap<>();
        options.put("chaos", "RANDOM_MAX+TIME_INCREMENT+DATE_FIXED+ITERATION_ORDER+CONCURRENCY_SHRINK+ASYNC_DELAY+NETWORK_DELAY");
        options.put("chaos.async.delay", "100");
        options.put("chaos.resolve", "200");
        ChaosConfig config = ChaosConfig.parse(options);
        Api.configure(config);
        AsyncApi.configure(config);
        NetApi.configure(config);
        clockMade = System.nanoTime();
        TimeApi.configure(new PerceivedClock(Strategy.TIME_INCREMENT, config));
        previousSink = Sites.sink;
        Sites.sink = EVENTS::add;
        String name = Sample.class.getName();
        byte[] original;
        try (InputStream in = Sample.class.getResourceAsStream("Sample.class")) {
            original = readAll(in);
        }
        byte[] rewritten = CallSiteRewriter.rewrite(original, Targets.of(config),
                () -> TypePool.Default.of(CallSiteRewriterTest.class.getClassLoader()));
        assertNull("rewritten twice", CallSiteRewriter.rewrite(rewritten, Targets.of(config), () -> null));
        sample = new ByteArrayClassLoader.ChildFirst(CallSiteRewriterTest.class.getClassLoader(),
                Collections.singletonMap(name, rewritten)).loadClass(name);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    @Test
    public void classesWithoutTargetsAreLeftAlone() throws IOException {
        try (InputStream in = Strategy.class.getResourceAsStream("ChaosConfig.class")) {
            Map<String, String> options = new HashMap<>();
            options.put("chaos", "DATE_FIXED");
            assertNull(CallSiteRewriter.rewrite(readAll(in), Targets.of(ChaosConfig.parse(options)), () -> null));
        }
    }

    @AfterClass
    public static void restore() {
        Sites.sink = previousSink;
    }

    private static Object call(String name, Object... args) throws Exception {
        for (Method m : sample.getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == args.length) {
                return m.invoke(null, args);
            }
        }
        throw new NoSuchMethodException(name);
    }

    private static Map<String, Object> event(String method) {
        synchronized (EVENTS) {
            for (Map<String, Object> e : EVENTS) {
                if (method.equals(e.get("method"))) {
                    return e;
                }
            }
        }
        throw new AssertionError("no perturbation event for " + method + " in " + EVENTS);
    }

    @Test
    public void aHostNamesFirstResolutionWaitsAtItsCallSite() throws Exception {
        try (RecordedPauses p = new RecordedPauses()) {
            InetSocketAddress a = (InetSocketAddress) call("address", "first-lookup.invalid", 80);
            assertEquals("the first resolution waits", Arrays.asList("200"), p.millis());
            assertEquals("first-lookup.invalid", a.getHostString());
            assertEquals(80, a.getPort());
            Map<String, Object> e = event("address");
            assertEquals("NETWORK_DELAY", e.get("strategy"));
            assertEquals("java.net.InetSocketAddress#<init>(String,int)", e.get("api"));
            call("address", "first-lookup.invalid", 81);
            assertEquals(InetAddress.getLoopbackAddress(), call("lookUp", "127.0.0.1"));
            assertEquals("a name resolved before and a literal do not wait", Arrays.asList("200"), p.millis());
        }
        synchronized (EVENTS) {
            assertTrue("a literal is no perturbation", EVENTS.stream().noneMatch(x -> "lookUp".equals(x.get("method"))));
        }
    }

    @Test
    public void boundedRandomReturnsTheLargestValueAndNamesTheCallSite() throws Exception {
        assertEquals(5, call("roll", new Random(), 6));
        Map<String, Object> e = event("roll");
        assertEquals("perturbation", e.get("type"));
        assertEquals("RANDOM_MAX", e.get("strategy"));
        assertEquals("RANDOM", e.get("group"));
        assertEquals("java.util.Random#nextInt(int)", e.get("api"));
        assertEquals(Sample.class.getName(), e.get("class"));
        assertEquals("Sample.java", e.get("file"));
        try {
            call("roll", new Random(), 0);
            fail("nextInt(0) must still throw");
        } catch (InvocationTargetException expected) {
            int line = -1;
            for (StackTraceElement frame : expected.getCause().getStackTrace()) {
                if (frame.getClassName().equals(Sample.class.getName())) {
                    line = frame.getLineNumber();
                    break;
                }
            }
            assertEquals(line, e.get("line"));
        }
    }

    @Test
    public void extremesComeFirstThenRealValues() throws Exception {
        String[] got = ((String) call("flipsAndStream", new Random())).split(" ");
        assertTrue(got[0], got[0].startsWith("HTH") && got[0].substring(3).contains("T"));
        double first = Double.parseDouble(got[1]);
        assertEquals(Math.nextDown(6.0), first, 0.0);
        assertEquals(Math.nextDown(first), Double.parseDouble(got[2]), 0.0);
        assertEquals(Math.nextDown(Math.nextDown(first)), Double.parseDouble(got[3]), 0.0);
        long low = Long.parseLong(got[4]);
        assertTrue(low + " of 1000 below 5.5", low > 400 && low < 600);
        assertEquals("java.util.Random#nextBoolean()", event("flipsAndStream").get("api"));
    }

    @Test
    public void gaussiansAndBytesGetPlausibleExtremesFirstThenRealValues() throws Exception {
        String[] got = ((String) call("gaussiansAndBytes", new Random())).split(" ");
        double[] g = new double[5];
        for (int i = 0; i < 5; i++) {
            g[i] = Double.parseDouble(got[i]);
        }
        assertTrue(got[0], g[0] > 3.71 && g[0] <= Draws.GAUSSIAN_TAIL);
        assertTrue(got[1] + " < " + got[0], g[1] < g[0] && g[1] > 3.71);
        assertTrue(got[2] + " < " + got[1], g[2] < g[1] && g[2] > 3.71);
        assertTrue(got[3] + " " + got[4] + " real", g[3] < 3.71 && g[4] < 3.71 && g[3] != g[4]);
        assertTrue(got[5], got[5].startsWith("[-1,-1,-1,"));
        assertNotEquals(got[5], got[6]);
        assertTrue(got[6], got[6].startsWith("[-1,-1,-1,"));
        assertNotEquals(got[8], got[9]);
        assertNotEquals("[-1,-1,-1,-4]", got[8]);
        assertEquals("java.util.Random#nextGaussian()", event("gaussiansAndBytes").get("api"));
    }

    @Test
    public void seededRandomsAreNeverPerturbed() throws Exception {
        assertEquals(new Random(42).nextInt(100), call("seededRoll"));
        Random reseeded = new Random();
        reseeded.setSeed(42);
        assertEquals(reseeded.nextInt(100), call("reseededRoll"));
    }

    @Test
    public void methodReferencesAreCallSitesToo() throws Exception {
        assertEquals(5, call("rollByReference", new Random()));
        assertEquals("java.util.Random#nextInt(int)", event("rollByReference").get("api"));
        long before = System.nanoTime();
        long elapsed = (Long) call("elapsedByReference", 100L);
        long real = System.nanoTime() - before;
        // The clock and the sleep agree: at least the 100 ms slept (and any pause), never more than really passed.
        assertTrue(elapsed + " ns of " + real, elapsed >= 100L * 1_000_000L && elapsed <= real);
        assertEquals("java.lang.System#nanoTime()", event("elapsedByReference").get("api"));
        assertAtTheFixedMoment((Date) call("nowByReference"));
    }

    @Test
    public void timeRunsAtTheRateOfSleepsByDefault() throws Exception {
        long before = System.nanoTime();
        long elapsed = (Long) call("elapsedMillis", 100L);
        long real = System.nanoTime() - before;
        // As above, in whole milliseconds (each reading rounds down).
        assertTrue(elapsed + " ms of " + real + " ns", elapsed >= 99L && elapsed <= real / 1_000_000L + 1);
    }

    /**
     * DATE_FIXED starts the wall clock at the moment; under TIME_INCREMENT it runs at real time from there, so it is
     * at most the real time since the clock was made past the moment.
     */
    private static void assertAtTheFixedMoment(Date d) {
        long since = d.getTime() - 32503680000000L;
        long bound = (System.nanoTime() - clockMade) / 1_000_000L + 1;
        assertTrue(d + " is " + since + " ms after the moment, not within " + bound, since >= 0 && since <= bound);
    }

    @Test
    public void javaTimeReadsTheSameClockAsNewDate() throws Exception {
        assertEquals(3000, ((java.time.LocalDate) call("today")).getYear());
        assertEquals("java.time.LocalDate#now()", event("today").get("api"));
    }

    @Test
    public void aNewThreadRunsItsTaskLateAndKeepsItsName() throws Exception {
        long[] ran = new long[1];
        Thread t = (Thread) call("worker", (Runnable) () -> ran[0] = System.nanoTime());
        long started = System.nanoTime();
        t.start();
        t.join();
        assertEquals("worker", t.getName());
        assertTrue((ran[0] - started) / 1_000_000L + " ms", ran[0] - started >= 100_000_000L);
        assertEquals("java.lang.Thread#<init>(Runnable,String)", event("worker").get("api"));
    }

    @Test
    public void newDateIsTheFixedMomentButDateOfMillisIsUntouched() throws Exception {
        assertAtTheFixedMoment((Date) call("now"));
        assertEquals("java.util.Date#<init>()", event("now").get("api"));
        assertEquals(new Date(7), call("now", 7L));
    }

    @Test
    public void hashMapKeysAreShuffledLinkedHashMapKeysAreNot() throws Exception {
        String[] keys = {"red", "green", "blue", "cyan", "magenta"};
        Map<String, Integer> hash = new HashMap<>();
        for (String k : keys) {
            hash.put(k, 1);
        }
        String real = String.join(",", hash.keySet());
        Object shuffled = call("joinedKeys", hash);
        assertNotEquals(real, shuffled);
        assertEquals(shuffled, call("joinedKeys", hash));
        @SuppressWarnings("unchecked")
        List<String> copied = (List<String>) call("copiedKeys", hash);
        assertEquals(shuffled, String.join(",", copied));
        assertEquals("java.util.Map#keySet()", event("joinedKeys").get("api"));
        assertEquals(shuffled, call("lambdaJoin", hash));
        assertEquals("lambdaJoin", event("lambdaJoin").get("method"));
        Map<?, ?> linked = (Map<?, ?>) call("linkedHashMap", (Object) keys);
        assertEquals(String.join(",", keys), call("joinedKeys", linked));
        assertTrue(Arrays.asList(keys).containsAll((List<?>) call("copiedKeys", hash)));
        Set<String> set = new HashSet<>(Arrays.asList(keys));
        assertNotEquals(String.join("", set), call("iterated", set));
        assertEquals("java.util.Set#iterator()", event("iterated").get("api"));
        Set<String> linkedSet = new LinkedHashSet<>(Arrays.asList(keys));
        assertEquals(String.join("", keys), call("iterated", linkedSet));
    }

    @Test
    public void twoMapsWithTheSameKeysGiveDifferentTextOneMapTheSame() throws Exception {
        Map<String, Integer> a = new HashMap<>();
        Map<String, Integer> b = new HashMap<>(64);
        for (String k : new String[] {"a", "b", "c", "d", "e", "f"}) {
            a.put(k, 1);
            b.put(k, 1);
        }
        assertEquals(a.toString(), b.toString());
        Object textA = call("mapText", a);
        assertEquals("java.lang.Object#toString()", event("mapText").get("api"));
        assertNotEquals(a.toString(), textA);
        assertNotEquals(textA, call("mapText", b));
        assertEquals(textA, call("mapText", a));
        Map<String, Integer> linked = new LinkedHashMap<>(a);
        assertEquals(linked.toString(), call("mapText", linked));
    }

    /** Fields a, b, c, d: declared in this order, which getDeclaredFields happens to keep. */
    static final class Fields {
        int a;
        int b;
        int c;
        int d;
    }

    @Test
    public void reflectionArraysAreShuffledCopies() throws Exception {
        StringBuilder real = new StringBuilder();
        for (java.lang.reflect.Field f : Fields.class.getDeclaredFields()) {
            real.append(f.getName());
        }
        Object shuffled = call("declaredFieldNames", Fields.class);
        assertNotEquals(real.toString(), shuffled);
        assertEquals(real.length(), ((String) shuffled).length());
    }

    @Test
    public void timeoutsShrinkToAFifth() throws Exception {
        // JDK classes that record the timeout the wrapper hands them instead of waiting it.
        List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
        Object[][] calls = {
            {"poll", new LinkedBlockingQueue<Object>() {
                @Override
                public Object poll(long timeout, TimeUnit unit) {
                    nanos.add(unit.toNanos(timeout));
                    return null;
                }
            }},
            {"get", new CompletableFuture<Object>() {
                @Override
                public Object get(long timeout, TimeUnit unit) {
                    nanos.add(unit.toNanos(timeout));
                    return null;
                }
            }},
            {"tryAcquire", new Semaphore(0) {
                @Override
                public boolean tryAcquire(long timeout, TimeUnit unit) {
                    nanos.add(unit.toNanos(timeout));
                    return false;
                }
            }},
        };
        for (Object[] c : calls) {
            call((String) c[0], c[1], 1000L);
            assertEquals((String) c[0], "CONCURRENCY_SHRINK", event((String) c[0]).get("strategy"));
        }
        assertEquals(Collections.nCopies(3, 200_000_000L), nanos);
        // Object.wait and Thread.join are final, so their waits are real ones: 2500 ms shrink to 500.
        CountDownLatch end = new CountDownLatch(1);
        Thread alive = new Thread(() -> {
            try {
                end.await();
            } catch (InterruptedException e) {
                // Ends the thread.
            }
        });
        alive.setDaemon(true);
        alive.start();
        try {
            // Object.wait may also wake up spuriously, earlier.
            assertTrue("waitOn ended after a control wait", shrunkWait("waitOn", new Object()) >= 0);
            long joined = shrunkWait("join", alive);
            assertTrue("join ended after a control wait", joined >= 0);
            assertTrue("join waited " + joined + " ms, less than about 500", joined >= 400);
        } finally {
            end.countDown();
        }
        assertEquals("CONCURRENCY_SHRINK", event("waitOn").get("strategy"));
        assertEquals("CONCURRENCY_SHRINK", event("join").get("strategy"));
    }

    /**
     * Calls {@code method(target, 2500L)} on a thread of its own and, once it waits, starts an unperturbed control
     * wait of 1500 ms on another; returns how long the call took (ms) when it ended first, else -1. Both threads wait
     * on this machine at the same time and a slow machine delays both: a call whose timeout shrank to 500 ms ends
     * first unless it wakes up a second later than the control, one that kept its 2500 ms ends a second after it.
     */
    private static long shrunkWait(String method, Object target) throws Exception {
        AtomicBoolean controlEnded = new AtomicBoolean();
        long[] took = {-1};
        Exception[] failed = new Exception[1];
        Thread perturbed = new Thread(() -> {
            long start = System.nanoTime();
            try {
                call(method, target, 2500L);
            } catch (Exception e) {
                failed[0] = e;
            }
            if (!controlEnded.get()) {
                took[0] = (System.nanoTime() - start) / 1_000_000L;
            }
        });
        perturbed.start();
        while (perturbed.isAlive() && perturbed.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        Thread control = new Thread(() -> {
            try {
                new CountDownLatch(1).await(1500, TimeUnit.MILLISECONDS);
                controlEnded.set(true);
            } catch (InterruptedException e) {
                // The call ended first.
            }
        });
        control.start();
        perturbed.join();
        control.interrupt();
        control.join();
        if (failed[0] != null) {
            throw failed[0];
        }
        return took[0];
    }
}
