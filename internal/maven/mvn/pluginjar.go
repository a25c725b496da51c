package mvn

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// pluginDescriptors are the entries of a Maven plugin's jar that name the
// plugin's version: Maven refuses a plugin whose descriptor's version is
// not the one it resolved.
var pluginDescriptors = map[string]bool{
	"META-INF/maven/plugin.xml": true,
	"META-INF/maven/" + ArtifactGroupID + "/" + PluginArtifactID + "/plugin-help.xml": true,
}

// PluginJar is the Maven plugin jar with its descriptors (plugin.xml and
// plugin-help.xml) naming version instead of the Java build's version, so
// that Maven takes it as dev.flaky:flaky-maven-plugin:version. Every other
// entry is copied as it is, in the same order.
func PluginJar(jar []byte, version string) ([]byte, error) {
	r, err := zip.NewReader(bytes.NewReader(jar), int64(len(jar)))
	if err != nil {
		return nil, fmt.Errorf("read the Maven plugin jar: %w", err)
	}
	var out bytes.Buffer
	w := zip.NewWriter(&out)
	found := false
	for _, f := range r.File {
		if !pluginDescriptors[f.Name] {
			if err := w.Copy(f); err != nil {
				return nil, fmt.Errorf("copy %s of the Maven plugin jar: %w", f.Name, err)
			}
			continue
		}
		found = found || f.Name == "META-INF/maven/plugin.xml"
		if err := rewriteEntry(w, f, version); err != nil {
			return nil, err
		}
	}
	if !found {
		return nil, errors.New("the Maven plugin jar has no META-INF/maven/plugin.xml")
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("write the Maven plugin jar: %w", err)
	}
	return out.Bytes(), nil
}

// rewriteEntry writes f to w with its plugin version replaced.
func rewriteEntry(w *zip.Writer, f *zip.File, version string) error {
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("read %s of the Maven plugin jar: %w", f.Name, err)
	}
	data, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return fmt.Errorf("read %s of the Maven plugin jar: %w", f.Name, err)
	}
	patched, err := withPluginVersion(data, version)
	if err != nil {
		return fmt.Errorf("%s of the Maven plugin jar: %w", f.Name, err)
	}
	hdr := f.FileHeader
	ew, err := w.CreateHeader(&hdr)
	if err != nil {
		return fmt.Errorf("write %s of the Maven plugin jar: %w", f.Name, err)
	}
	if _, err := ew.Write(patched); err != nil {
		return fmt.Errorf("write %s of the Maven plugin jar: %w", f.Name, err)
	}
	return nil
}

// withPluginVersion is the plugin descriptor doc with the text of its
// root's <version> child replaced by version; the descriptor is decoded and
// encoded again token by token.
func withPluginVersion(doc []byte, version string) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var out bytes.Buffer
	e := xml.NewEncoder(&out)
	depth, inVersion, replaced := 0, false, false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			inVersion = depth == 2 && t.Name.Local == "version"
		case xml.EndElement:
			if inVersion && !replaced {
				if err := e.EncodeToken(xml.CharData(version)); err != nil {
					return nil, err
				}
			}
			replaced = replaced || inVersion
			depth--
			inVersion = false
		case xml.CharData:
			if inVersion {
				continue
			}
		}
		if err := e.EncodeToken(xml.CopyToken(tok)); err != nil {
			return nil, fmt.Errorf("encode: %w", err)
		}
	}
	if err := e.Flush(); err != nil {
		return nil, err
	}
	if !replaced {
		return nil, errors.New("no <version> in the plugin descriptor")
	}
	return out.Bytes(), nil
}
