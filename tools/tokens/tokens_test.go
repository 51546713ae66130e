package tokens

import "testing"

func TestCountUsesO200k(t *testing.T) {
	// Known o200k_base counts.
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"hello world", 2},
		{"", 0},
	} {
		if got := Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if _, err := encoding(); err != nil {
		t.Fatalf("offline o200k_base did not load: %v", err)
	}
}

func TestToolCountsTheDefinition(t *testing.T) {
	small := Tool("a", "b", []byte(`{}`))
	big := Tool("create_issue", "Create a new issue in a GitHub repository with a title and a body.", []byte(`{"type":"object","properties":{"title":{"type":"string"}}}`))
	if small <= 0 || big <= small {
		t.Errorf("small=%d big=%d", small, big)
	}
}
