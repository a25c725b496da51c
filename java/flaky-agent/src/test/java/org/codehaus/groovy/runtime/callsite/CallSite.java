package org.codehaus.groovy.runtime.callsite;

/** A stand-in for Groovy's call-site interface (the methods the chaos agent calls), for the agent's tests. */
public interface CallSite {
    String getName();

    Object call(Object receiver) throws Throwable;

    Object callConstructor(Object receiver) throws Throwable;
}
