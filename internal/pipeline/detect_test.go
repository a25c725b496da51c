package pipeline

import (
	"errors"
	"testing"
	"time"

	"github.com/flakyhq/flaky/internal/od"
)

// An analysis that completed no order fails with the reason instead of
// claiming "0 flaky".
func TestRanOrders(t *testing.T) {
	tests := []struct {
		name    string
		tests   int
		cov     od.Coverage
		wantErr string
	}{
		{name: "orders ran", tests: 3, cov: od.Coverage{Orders: 2}},
		{name: "no tests", tests: 0, cov: od.Coverage{}},
		{name: "budget spent", tests: 3, cov: od.Coverage{Budget: time.Minute, BudgetExhausted: true}, wantErr: "no order completed within the budget of 1m0s (raise --budget, or check for tests that hang); no result for the 3 tests"},
		{name: "nothing ran", tests: 3, cov: od.Coverage{}, wantErr: "no order completed; no result for the 3 tests"},
	}
	for _, tt := range tests {
		err := ranOrders(tt.tests, tt.cov)
		var none *NoOrdersError
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr != "" && (!errors.As(err, &none) || err.Error() != tt.wantErr):
			t.Errorf("%s: %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}
