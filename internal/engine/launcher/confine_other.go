//go:build !linux

package launcher

import "errors"

// errNoConfinement is why test JVMs cannot be confined here.
var errNoConfinement = errors.New("no sandbox: confining test JVMs needs Linux's user, mount, network and PID namespaces")

// ConfinementAvailable reports that this system cannot confine test JVMs.
func ConfinementAvailable() error { return errNoConfinement }

// newJail cannot confine a launch here.
func (l *Launcher) newJail() (*jail, error) { return nil, errNoConfinement }
