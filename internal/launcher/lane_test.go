package launcher

import "testing"

func TestClashes(t *testing.T) {
	tests := []struct {
		name string
		r    TestResult
		want bool
	}{
		{"bind exception", TestResult{Outcome: Error, FailureType: "java.net.BindException", Message: "Address already in use"}, true},
		{"cause in the stack", TestResult{Outcome: Error, FailureType: "java.lang.IllegalStateException", Message: "cannot start",
			Stack: "java.lang.IllegalStateException: cannot start\nCaused by: java.net.BindException: Address already in use (Bind failed)"}, true},
		{"file lock", TestResult{Outcome: Error, FailureType: "java.nio.channels.OverlappingFileLockException"}, true},
		{"port in use", TestResult{Outcome: Fail, Message: "port 8080 is already in use"}, true},
		{"assertion", TestResult{Outcome: Fail, FailureType: "java.lang.AssertionError", Message: "expected:<1> but was:<2>"}, false},
		{"passed", TestResult{Outcome: Pass, Message: "Address already in use"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clashes(tt.r); got != tt.want {
				t.Errorf("Clashes = %v, want %v", got, tt.want)
			}
		})
	}
}
