/** Classes the agent loads through the bootstrap class loader, for the JDK classes it rewrites to call. */
package dev.flaky.boot;
