package dev.flaky.runner.testng;

import java.util.Arrays;

/**
 * The member of a test id (the part after {@code #}) as the TestNG engine reads it: a method, or one invocation of a
 * data-provider method named as Surefire's TestNG reporter names it, {@code m[params](n)}: the method, its
 * parameters as {@link Arrays#toString(Object[])} prints them, and the invocation's number, from 1 in the data
 * provider's order. Only the method and the number select the invocation; the parameters are for people.
 */
final class Invocation {
    /** The method's name. */
    final String method;
    /** The invocation's number from 1, or 0 when the member names the method itself. */
    final int number;

    private Invocation(String method, int number) {
        this.method = method;
        this.number = number;
    }

    /** Reads a member: {@code m[params](n)} names invocation n of m; anything else names a method. */
    static Invocation parse(String member) {
        int open = member.indexOf('[');
        int paren = member.lastIndexOf('(');
        if (open > 0 && paren > open && member.endsWith(")") && member.charAt(paren - 1) == ']') {
            String digits = member.substring(paren + 1, member.length() - 1);
            if (!digits.isEmpty() && digits.length() <= 9 && digits.chars().allMatch(Character::isDigit)) {
                int n = Integer.parseInt(digits);
                if (n > 0) {
                    return new Invocation(member.substring(0, open), n);
                }
            }
        }
        return new Invocation(member, 0);
    }

    /** Whether the member names one invocation (not the whole method). */
    boolean isInvocation() {
        return number > 0;
    }

    /** The 0-based row of the data provider the invocation runs: TestNG's invocation number. */
    int row() {
        return number - 1;
    }

    /**
     * The member that names invocation {@code number} (from 1) of {@code method} with {@code parameters}:
     * {@code method[p1, p2](number)}, with control characters escaped as Java escapes them (a newline as backslash
     * and {@code n}) so that the id stays on one line of an order file.
     */
    static String member(String method, Object[] parameters, int number) {
        return method + escape(Arrays.toString(parameters)) + "(" + number + ")";
    }

    private static String escape(String s) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!Character.isISOControl(c)) {
                if (b != null) {
                    b.append(c);
                }
                continue;
            }
            if (b == null) {
                b = new StringBuilder(s.length() + 8).append(s, 0, i);
            }
            switch (c) {
                case '\n':
                    b.append("\\n");
                    break;
                case '\r':
                    b.append("\\r");
                    break;
                case '\t':
                    b.append("\\t");
                    break;
                default:
                    b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b == null ? s : b.toString();
    }
}
