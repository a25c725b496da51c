package dev.flaky.agent.chaos;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decides which classes are the project's, whose call sites get substituted: the classes found under
 * {@code chaos.roots} plus those matching {@code chaos.include}, minus those matching {@code chaos.exclude}. With
 * neither roots nor includes, a class is the project's when it was loaded from a class directory (not a jar).
 */
public final class ClassSelection {
    /** Name markers of classes that mocking and proxy libraries generate at run time: nobody's source. */
    private static final String[] GENERATED = {"$MockitoMock$", "$ByteBuddy$", "$$EnhancerBy", "$$FastClassBy",
        "$$Lambda"};

    private final Set<String> rootClasses = new HashSet<>();
    private final List<Pattern> include = new ArrayList<>();
    private final List<Pattern> exclude = new ArrayList<>();
    private final boolean directoryDefault;

    /** Selects the classes under {@code roots} and matching {@code includes}, minus {@code excludes}. */
    public ClassSelection(List<String> roots, List<String> includes, List<String> excludes) {
        for (String root : roots) {
            File dir = new File(root);
            scan(dir, dir.getAbsoluteFile().toPath().normalize().toString().length() + 1);
        }
        for (String p : includes) {
            include.add(pattern(p));
        }
        for (String p : excludes) {
            exclude.add(pattern(p));
        }
        directoryDefault = roots.isEmpty() && includes.isEmpty();
    }

    /** Reports whether call sites in class {@code name} (binary name, dots) are substituted. */
    public boolean selects(String name, ProtectionDomain domain) {
        if (name.startsWith("dev.flaky.") || generated(name)) {
            return false;
        }
        for (Pattern p : exclude) {
            if (p.matcher(name).matches()) {
                return false;
            }
        }
        if (directoryDefault) {
            return fromDirectory(name, domain);
        }
        if (rootClasses.contains(name)) {
            return true;
        }
        for (Pattern p : include) {
            if (p.matcher(name).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Classes that mocking and proxy libraries generate at run time are nobody's source. */
    private static boolean generated(String name) {
        for (String marker : GENERATED) {
            if (name.contains(marker)) {
                return true;
            }
        }
        return false;
    }

    private void scan(File file, int prefix) {
        File[] children = file.listFiles();
        if (children == null) {
            return;
        }
        for (File child : children) {
            if (child.isDirectory()) {
                scan(child, prefix);
            } else if (child.getName().endsWith(".class")) {
                String path = child.getAbsoluteFile().toPath().normalize().toString();
                if (path.length() > prefix) {
                    String rel = path.substring(prefix, path.length() - ".class".length());
                    rootClasses.add(rel.replace(File.separatorChar, '.'));
                }
            }
        }
    }

    /** Reports whether class {@code name} was loaded from a class directory (not a jar) of its code source. */
    public static boolean fromDirectory(String name, ProtectionDomain domain) {
        if (domain == null) {
            return false;
        }
        CodeSource source = domain.getCodeSource();
        URL location = source == null ? null : source.getLocation();
        if (location == null || !"file".equals(location.getProtocol())) {
            return false;
        }
        try {
            File dir = new File(location.toURI());
            return dir.isDirectory() && new File(dir, name.replace('.', File.separatorChar) + ".class").isFile();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Turns a class-name pattern into a regular expression: {@code **} matches any characters, {@code *} any within
     * one package segment, everything else itself ({@code fixture.chaos.*}, {@code com.acme.**}, a class name).
     */
    public static Pattern pattern(String glob) {
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*') {
                if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                    re.append(".*");
                    i++;
                } else {
                    re.append("[^.]*");
                }
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
