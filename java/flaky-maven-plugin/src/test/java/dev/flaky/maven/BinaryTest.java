package dev.flaky.maven;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class BinaryTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static final Binary.Fetcher NO_FETCH = c -> {
        throw new AssertionError("fetched " + c);
    };

    @Test
    public void classifiers() {
        assertEquals("linux-x86_64", Binary.classifier("Linux", "amd64"));
        assertEquals("linux-aarch_64", Binary.classifier("Linux", "aarch64"));
        assertEquals("osx-x86_64", Binary.classifier("Mac OS X", "x86_64"));
        assertEquals("osx-aarch_64", Binary.classifier("Mac OS X", "aarch64"));
        assertNull(Binary.classifier("Windows 11", "amd64"));
        assertNull(Binary.classifier("Linux", "s390x"));
    }

    @Test
    public void theGivenBinaryComesFirst() throws IOException {
        File dir = tmp.newFolder("bin");
        assertTrue(new File(dir, "flaky").createNewFile());
        assertEquals("/opt/flaky", Binary.select("/opt/flaky", dir.getPath(), "Linux", "amd64", tmp.getRoot(), NO_FETCH));
    }

    @Test
    public void thenTheOneOnThePath() throws IOException {
        File empty = tmp.newFolder("empty");
        File dir = tmp.newFolder("bin");
        File flaky = new File(dir, "flaky");
        assertTrue(flaky.createNewFile());
        String path = empty.getPath() + File.pathSeparator + dir.getPath();
        assertEquals(flaky.getPath(), Binary.select("", path, "Linux", "amd64", tmp.getRoot(), NO_FETCH));
    }

    @Test
    public void elseTheFetchedArtifactMadeExecutable() throws IOException {
        File artifact = tmp.newFile("flaky-1.0-linux-x86_64.exe");
        Files.write(artifact.toPath(), "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8));
        File build = tmp.newFolder("target");
        String got = Binary.select(null, tmp.newFolder("empty").getPath(), "Linux", "amd64", build, c -> {
            assertEquals("linux-x86_64", c);
            return artifact;
        });
        File want = new File(build, Binary.FETCHED);
        assertEquals(want.getPath(), got);
        assertTrue(want.canExecute());
    }

    @Test
    public void noBinaryForThePlatformSaysWhatToDo() {
        try {
            Binary.select("", "", "Windows 11", "amd64", tmp.getRoot(), NO_FETCH);
            fail("selected a binary for Windows");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().endsWith(Binary.REMEDY));
        }
    }

    @Test
    public void aBinaryThatDoesNotStartSaysWhatToDo() {
        try {
            Binary.checkRuns("/no/such/dir/flaky");
            fail("ran a missing binary");
        } catch (IOException e) {
            assertEquals("flaky: cannot run the flaky binary /no/such/dir/flaky: " + Binary.REMEDY, e.getMessage());
        }
    }
}
