package report

import "testing"

func TestPortable(t *testing.T) {
	const root, core = "/ci/work/proj", "/ci/work/proj/core"
	tests := []struct {
		name, command, moduleDir, want string
	}{
		{"maven in a module", "mvn -Pflaky test -pl core -am -Dtest=p.A -Dflaky.order=/ci/work/proj/core/target/flaky/orders/order-ab.txt", core,
			"mvn -Pflaky test -pl core -am -Dtest=p.A -Dflaky.order=target/flaky/orders/order-ab.txt"},
		{"flaky run-order", "flaky run-order --module /ci/work/proj/core --order /ci/work/proj/core/target/flaky/orders/order-ab.txt", core,
			"flaky run-order --module core --order core/target/flaky/orders/order-ab.txt"},
		{"the root module", "flaky run-order --module /ci/work/proj --order /ci/work/proj/target/flaky/orders/order-ab.txt", root,
			"flaky run-order --module . --order target/flaky/orders/order-ab.txt"},
		{"the step to the root goes", "cd /ci/work/proj && flaky init && mvn -Pflaky test -Dflaky.order=/ci/work/proj/target/o.txt", root,
			"flaky init && mvn -Pflaky test -Dflaky.order=target/o.txt"},
		{"a path outside the project stays", "flaky run-order --module /ci/work/proj --order /tmp/o.txt", root,
			"flaky run-order --module . --order /tmp/o.txt"},
		{"a project path that only starts like the root stays", "flaky run-order --module /ci/work/proj --order /ci/work/project2/o.txt", root,
			"flaky run-order --module . --order /ci/work/project2/o.txt"},
		{"quoting kept", "flaky -P 'a b' run-order --module '/ci/work/proj/my mod' --order '/ci/work/proj/my mod/o.txt'", "/ci/work/proj/my mod",
			"flaky -P 'a b' run-order --module 'my mod' --order 'my mod/o.txt'"},
		{"not shell words", "mvn 'unclosed", core, "mvn 'unclosed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Portable(tt.command, root, tt.moduleDir); got != tt.want {
				t.Errorf("Portable = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProjectRoot(t *testing.T) {
	tests := []struct{ module, dir, want string }{
		{"core", "/w/p/core", "/w/p"},
		{"a/b", "/w/p/a/b", "/w/p"},
		{".", "/w/p", "/w/p"},
		{"", "/w/p/", "/w/p"},
		{"core", "/w/p/web", ""},
	}
	for _, tt := range tests {
		if got := (&Report{Module: tt.module}).ProjectRoot(tt.dir); got != tt.want {
			t.Errorf("module %q in %s: root %q, want %q", tt.module, tt.dir, got, tt.want)
		}
	}
}

func TestOrderFile(t *testing.T) {
	tests := []struct{ command, want string }{
		{"mvn -Pflaky test -Dflaky.order=/a/o.txt", "/a/o.txt"},
		{"cd /r && flaky init && mvn -Pflaky test -Dflaky.order='/a b/o.txt'", "/a b/o.txt"},
		{"flaky run-order --module m --order /a/o.txt --chaos X", "/a/o.txt"},
		{"mvn test", ""},
	}
	for _, tt := range tests {
		if got := OrderFile(tt.command); got != tt.want {
			t.Errorf("OrderFile(%q) = %q, want %q", tt.command, got, tt.want)
		}
	}
}
