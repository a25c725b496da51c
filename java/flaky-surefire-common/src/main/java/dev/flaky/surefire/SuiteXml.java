package dev.flaky.surefire;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.EntityResolver;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The test classes TestNG suite files name (Surefire's {@code suiteXmlFiles}): every {@code <class name="...">} in
 * document order, following {@code <suite-file path="...">} to nested suites. Packages, groups and method
 * selections of the suite are not read: the named classes run whole.
 */
public final class SuiteXml {
    private SuiteXml() {
    }

    /**
     * The classes named by {@code files} and the suites they include that {@code loader} finds, each once, in order;
     * a class that cannot be loaded is left out with a warning.
     */
    public static List<Class<?>> load(List<File> files, ClassLoader loader) {
        List<String> names;
        try {
            names = classes(files);
        } catch (IOException e) {
            throw new IllegalStateException("flaky: " + e.getMessage(), e);
        }
        List<Class<?>> loaded = new ArrayList<>();
        for (String name : names) {
            try {
                loaded.add(Class.forName(name, false, loader));
            } catch (ClassNotFoundException | LinkageError e) {
                System.err.println("[WARNING] flaky: the TestNG suite names " + name + ", which cannot be loaded: " + e);
            }
        }
        return loaded;
    }

    /** The classes named by {@code files} and the suites they include, each once, in order. */
    public static List<String> classes(List<File> files) throws IOException {
        Set<String> classes = new LinkedHashSet<>();
        Set<File> seen = new HashSet<>();
        for (File f : files) {
            read(f, classes, seen);
        }
        return new ArrayList<>(classes);
    }

    private static void read(File file, Set<String> classes, Set<File> seen) throws IOException {
        File canonical = file.getCanonicalFile();
        if (!seen.add(canonical)) {
            return;
        }
        Document doc;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(false);
            factory.setValidating(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            // TestNG's DOCTYPE names a DTD on the network: never fetch it.
            EntityResolver none = (publicId, systemId) -> new InputSource(new StringReader(""));
            builder.setEntityResolver(none);
            doc = builder.parse(canonical);
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("cannot read the TestNG suite " + file + ": " + e.getMessage(), e);
        }
        NodeList all = doc.getElementsByTagName("*");
        for (int i = 0; i < all.getLength(); i++) {
            Element e = (Element) all.item(i);
            if ("class".equals(e.getTagName()) && !e.getAttribute("name").trim().isEmpty()) {
                classes.add(e.getAttribute("name").trim());
            } else if ("suite-file".equals(e.getTagName()) && !e.getAttribute("path").trim().isEmpty()) {
                File nested = new File(e.getAttribute("path").trim());
                read(nested.isAbsolute() ? nested : new File(canonical.getParentFile(), nested.getPath()), classes,
                        seen);
            }
        }
    }
}
