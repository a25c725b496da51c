package launcher

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Confinement runs a launcher's JVMs in a sandbox (see confine_linux.go):
// no network but a loopback of their own, no file written outside the
// directories given (and the JVMs' temporary directories), no process of
// the user's outside the sandbox visible, and no variable of flaky's
// environment that looks like a credential (secretEnv). For code no one
// reviewed, as a language model's patch.
type Confinement struct {
	// Writable are the directories the JVMs may write: the module's copy
	// in a repair sandbox. Their symbolic links are resolved.
	Writable []string
	// ReadOnly are directories inside Writable that the JVMs may only
	// read: the copy's class directories, which its later runs load.
	ReadOnly []string
	// Hidden are files and directories the JVMs see empty: the user's
	// credentials (Secrets), which a test has no business reading and
	// could print into the output flaky shows a model.
	Hidden []string
}

// Secrets are the usual places of the user's credentials under home: SSH
// and GnuPG keys, cloud, container and cluster credentials, and the
// password files of Git, Maven, Gradle, npm and PyPI. Those that exist are
// what a Confinement's Hidden should hold.
func Secrets(home string) []string {
	var out []string
	for _, rel := range []string{".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh",
		".netrc", ".git-credentials", ".npmrc", ".pypirc", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties"} {
		p := filepath.Join(home, rel)
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// confineSpec is what the supervisor of a confined JVM sets up before it
// starts the JVM (JSON in confineEnv).
type confineSpec struct {
	Writable []string `json:"writable"`
	ReadOnly []string `json:"readOnly,omitempty"`
	Hidden   []string `json:"hidden,omitempty"`
	// Port is the agent server's port, on which the supervisor accepts the
	// JVM's connection inside the JVM's network namespace and relays it to
	// the driver; 0 relays nothing.
	Port int `json:"port,omitempty"`
	// UID and GID are the user's, which the JVM runs as.
	UID int `json:"uid"`
	GID int `json:"gid"`
}

// jail is one confined launch: the spec its supervisor sets up, and the
// two ends of the socket pair its agent's connection is relayed through.
type jail struct {
	spec  confineSpec
	child *os.File // the supervisor's end, passed as file descriptor 4
	conn  net.Conn // the driver's end
}

// confineSpecOf resolves the directories of a confinement for the launcher's
// spec: the writable ones and the JVMs' temporary directory tmpDir.
func confineSpecOf(c *Confinement, tmpDir string, port int) (*confineSpec, error) {
	spec := &confineSpec{Port: port, UID: os.Getuid(), GID: os.Getgid()}
	resolve := func(dirs []string) ([]string, error) {
		var out []string
		for _, d := range dirs {
			abs, err := filepath.Abs(d)
			if err == nil {
				abs, err = filepath.EvalSymlinks(abs)
			}
			if err != nil {
				return nil, fmt.Errorf("confine the test JVMs to %s: %w", d, err)
			}
			if abs == "/" {
				return nil, fmt.Errorf("confine the test JVMs: %s is the root directory", d)
			}
			out = append(out, abs)
		}
		return out, nil
	}
	var err error
	if spec.Writable, err = resolve(append(append([]string(nil), c.Writable...), tmpDir)); err != nil {
		return nil, err
	}
	if spec.ReadOnly, err = resolve(c.ReadOnly); err != nil {
		return nil, err
	}
	for _, h := range c.Hidden {
		// One that is gone needs no hiding; one a link leads to is hidden
		// where the link leads.
		if abs, err := filepath.EvalSymlinks(h); err == nil && abs != "/" {
			spec.Hidden = append(spec.Hidden, abs)
		}
	}
	return spec, nil
}

// relayed is the driver's end of a confined JVM's relayed connection, with
// what was read of it to see that the JVM connected.
type relayed struct {
	net.Conn
	r *bufio.Reader
}

// Read reads what was peeked first.
func (c *relayed) Read(p []byte) (int, error) { return c.r.Read(p) }

// serveRelay hands the driver's end of a jail to the agent server once the
// JVM has sent its first byte (the server's hello timeout starts when it
// serves a connection, and a JVM takes seconds to start); it gives up when
// the end is closed first.
func (l *Launcher) serveRelay(j *jail) {
	r := bufio.NewReader(j.conn)
	if _, err := r.Peek(1); err != nil {
		j.conn.Close()
		return
	}
	_ = l.server.ServeConn(&relayed{Conn: j.conn, r: r})
}

// close closes the driver's copies of a jail's ends.
func (j *jail) close() {
	if j == nil {
		return
	}
	if j.child != nil {
		j.child.Close()
	}
	if j.conn != nil {
		j.conn.Close()
	}
}

// environ is the environment the launcher's JVMs start from: flaky's, but
// for a confined JVM without the variables that look like credentials.
func (l *Launcher) environ() []string {
	env := os.Environ()
	if l.confine == nil {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); !secretEnv(name) {
			out = append(out, kv)
		}
	}
	return out
}

// secretEnv reports whether an environment variable's name looks like a
// credential's: the LLM endpoint's key, a token, a secret, a password, a
// key for an API or cloud access, an authentication socket or file.
func secretEnv(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasPrefix(n, "FLAKY_LLM_") {
		return true
	}
	for _, part := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY", "AUTH"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}
