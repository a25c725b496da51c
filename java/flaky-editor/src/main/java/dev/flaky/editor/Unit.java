package dev.flaky.editor;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.Position;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.ImportDeclaration;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.BodyDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.printer.lexicalpreservation.LexicalPreservingPrinter;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A parsed source file and the edits made to it. Edits are splices at the offsets the parser gives (never patterns
 * over the text), rendered with the file's own line separator and indentation, so every character outside them
 * stays as it was.
 */
final class Unit {
    final String src;
    final CompilationUnit cu;
    /** The file's line separator: that of its first line end. */
    final String sep;
    private final int[] lineStarts;
    private final List<Splice> splices = new ArrayList<>();

    private Unit(String src, CompilationUnit cu) {
        this.src = src;
        this.cu = cu;
        int nl = src.indexOf('\n');
        this.sep = nl > 0 && src.charAt(nl - 1) == '\r' ? "\r\n" : "\n";
        List<Integer> starts = new ArrayList<>();
        starts.add(0);
        for (int i = 0; i < src.length(); i++) {
            char c = src.charAt(i);
            if (c == '\n' || (c == '\r' && (i + 1 >= src.length() || src.charAt(i + 1) != '\n'))) {
                starts.add(i + 1);
            }
        }
        lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
    }

    /** The parser settings: the newest language level, tabs one column wide. */
    static ParserConfiguration config() {
        return new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_21);
    }

    /** A fresh parser (parsers are not reentrant). */
    static JavaParser parser() {
        return new JavaParser(config());
    }

    static Unit parse(String source) {
        ParseResult<CompilationUnit> r = parser().parse(source);
        if (!r.isSuccessful() || !r.getResult().isPresent()) {
            throw new IllegalArgumentException("the file does not parse: " + r.getProblems());
        }
        CompilationUnit cu = r.getResult().get();
        LexicalPreservingPrinter.setup(cu);
        return new Unit(source, cu);
    }

    /** Finds a type by its name below the package: Outer, Outer.Inner or Outer$Inner. */
    TypeDeclaration<?> type(String name) {
        String[] parts = name.split("[.$]");
        Optional<TypeDeclaration<?>> t = Optional.empty();
        for (TypeDeclaration<?> x : cu.getTypes()) {
            if (x.getNameAsString().equals(parts[0])) {
                t = Optional.<TypeDeclaration<?>>of(x);
                break;
            }
        }
        for (int i = 1; i < parts.length && t.isPresent(); i++) {
            TypeDeclaration<?> outer = t.get();
            t = Optional.empty();
            for (BodyDeclaration<?> m : outer.getMembers()) {
                if (m instanceof TypeDeclaration && ((TypeDeclaration<?>) m).getNameAsString().equals(parts[i])) {
                    t = Optional.<TypeDeclaration<?>>of((TypeDeclaration<?>) m);
                    break;
                }
            }
        }
        return t.orElseThrow(() -> new IllegalArgumentException("no class " + name + " in the file"));
    }

    /** Whether a single-type import brings in this simple name. */
    boolean imports(String simpleName) {
        for (ImportDeclaration i : cu.getImports()) {
            if (!i.isAsterisk() && Editor.simple(i.getNameAsString()).equals(simpleName)) {
                return true;
            }
        }
        return false;
    }

    /** A node's text as written, comments and formatting included. */
    String text(Node n) {
        return LexicalPreservingPrinter.print(n);
    }

    /** The offset of a parser position (1-based line and column). */
    int offset(Position p) {
        return lineStarts[p.line - 1] + p.column - 1;
    }

    int begin(Node n) {
        return offset(n.getBegin().orElseThrow(() -> new IllegalStateException("node without position")));
    }

    /** The offset just after a node. */
    int end(Node n) {
        return offset(n.getEnd().orElseThrow(() -> new IllegalStateException("node without position"))) + 1;
    }

    /** The offset where a node's line starts. */
    int lineStart(Node n) {
        return lineStarts[n.getBegin().get().line - 1];
    }

    /** The offset where the line holding offset starts. */
    int lineStartOf(int offset) {
        int i = 0;
        while (i + 1 < lineStarts.length && lineStarts[i + 1] <= offset) {
            i++;
        }
        return lineStarts[i];
    }

    /** The whitespace that starts a node's first line. */
    String indentOf(Node n) {
        return indentAt(lineStart(n));
    }

    String indentAt(int lineStart) {
        int i = lineStart;
        while (i < src.length() && (src.charAt(i) == ' ' || src.charAt(i) == '\t')) {
            i++;
        }
        return src.substring(lineStart, i);
    }

    /** Whether only blanks precede offset on its line. */
    boolean blankBefore(int offset) {
        int start = lineStartOf(offset);
        return src.substring(start, offset).trim().isEmpty();
    }

    void insert(int offset, String text) {
        splices.add(new Splice(offset, offset, text, splices.size()));
    }

    void replace(int begin, int end, String text) {
        splices.add(new Splice(begin, end, text, splices.size()));
    }

    /** Whether an edit was made. */
    boolean changed() {
        return !splices.isEmpty();
    }

    /** The source with the edits applied. */
    String print() {
        List<Splice> sorted = new ArrayList<>(splices);
        sorted.sort((a, b) -> a.begin != b.begin ? Integer.compare(b.begin, a.begin) : Integer.compare(b.seq, a.seq));
        StringBuilder b = new StringBuilder(src);
        for (Splice s : sorted) {
            b.replace(s.begin, s.end, s.text);
        }
        return b.toString();
    }

    /** Text with its line breaks turned into the file's separator. */
    String lines(String text) {
        return text.replace("\r\n", "\n").replace("\n", sep);
    }

    /**
     * Re-indents code: its first line starts at indent; the lines after it keep their indentation relative to
     * the least indented of them, placed at indent (or one level deeper when the first line opens a block whose
     * closing line is the least indented).
     */
    String reindent(String code, String indent) {
        String[] ls = code.replace("\r\n", "\n").split("\n", -1);
        int common = Integer.MAX_VALUE;
        for (int i = 1; i < ls.length; i++) {
            if (!ls[i].trim().isEmpty()) {
                common = Math.min(common, leading(ls[i]));
            }
        }
        StringBuilder b = new StringBuilder(indent).append(ls[0].trim());
        for (int i = 1; i < ls.length; i++) {
            b.append(sep);
            if (!ls[i].trim().isEmpty()) {
                b.append(indent).append(ls[i].substring(Math.min(common, leading(ls[i]))));
            }
        }
        return b.toString();
    }

    private static int leading(String s) {
        int i = 0;
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    /** One edit: the text that replaces [begin, end). */
    private static final class Splice {
        final int begin;
        final int end;
        final String text;
        final int seq;

        Splice(int begin, int end, String text, int seq) {
            this.begin = begin;
            this.end = end;
            this.text = text;
            this.seq = seq;
        }
    }
}
