package gemini

import "testing"

func TestWireName(t *testing.T) {
	for _, n := range []string{"3d_render", "a/b", "-x", "very_long_" + string(make([]byte, 0)) + "name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_xx"} {
		w := wireName(n)
		if !validName().MatchString(w) {
			t.Errorf("%q -> %q is not a valid Gemini name", n, w)
		}
		if wireName(n) != w {
			t.Errorf("%q: not deterministic", n)
		}
	}
	if wireName("github__create_issue") != "github__create_issue" {
		t.Error("valid names pass unchanged")
	}
}
