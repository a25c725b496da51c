package dev.flaky.agent.chaos;

import org.codehaus.groovy.runtime.callsite.CallSite;
import org.junit.Test;

import java.util.Date;
import java.util.HashMap;
import java.util.Map;

import static org.junit.Assert.assertEquals;

/** Groovy's dynamic clock reads go through the perceived clock; other calls reach the call site. */
public class GroovyTest {
    /** A call site that answers every call with its name. */
    private static CallSite site(String name) {
        return new CallSite() {
            @Override
            public String getName() {
                return name;
            }

            @Override
            public Object call(Object receiver) {
                return "called " + name;
            }

            @Override
            public Object callConstructor(Object receiver) {
                return "constructed " + name;
            }
        };
    }

    @Test
    public void groovyClockReadsSeeTheDateAndOtherCallsTheSite() throws Throwable {
        Map<String, String> o = new HashMap<>();
        o.put("chaos", "DATE_FIXED");
        FakeRealClock real = new FakeRealClock();
        TimeApi.configure(new PerceivedClock(null, ChaosConfig.parse(o), real));
        java.util.function.Consumer<Map<String, Object>> sink = Sites.sink;
        Sites.sink = e -> { };
        try {
            check(real, Sites.register(Strategy.DATE_FIXED, "org.codehaus.groovy.runtime.callsite.CallSite#call(Object)",
                    "GroovyTest", "check", "GroovyTest.groovy", 7));
        } finally {
            Sites.sink = sink;
        }
    }

    private static void check(FakeRealClock real, int site) throws Throwable {
        long year3000 = 32503680000000L;
        assertEquals("at 3000-01-01", year3000, TimeApi.groovyCall(site("currentTimeMillis"), System.class, site));
        real.advance(1000);
        Date d = (Date) TimeApi.groovyConstruct(site("<$constructor$>"), Date.class, site);
        assertEquals("a second later on the same clock", new Date(year3000 + 1000), d);
        assertEquals("called nanoTime", TimeApi.groovyCall(site("nanoTime"), System.class, site));
        assertEquals("called currentTimeMillis", TimeApi.groovyCall(site("currentTimeMillis"), "a string", site));
        assertEquals("called getProperty", TimeApi.groovyCall(site("getProperty"), System.class, site));
        assertEquals("constructed <$constructor$>", TimeApi.groovyConstruct(site("<$constructor$>"), String.class, site));
    }
}
