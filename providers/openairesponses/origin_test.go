package openairesponses_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/openairesponses"
	rt "github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// Encrypted reasoning is sealed for the organization that made it, and
// the strict fake, like the API, refuses it under a key of another
// organization (400 invalid_encrypted_content). A session whose key
// changes keeps going: the first request of the new key that carries the
// old reasoning is refused once and sent again without it; later requests
// leave it out from the start; the new key's own reasoning is replayed.
func TestReasoningAcrossOrganizations(t *testing.T) {
	cases := []struct {
		name string
		// key is the key of the second provider; unstamped drops the
		// origin stamps (a session stored before they existed); resume
		// moves the history to a new session instead of switching.
		key       string
		unstamped bool
		resume    bool
		// refused is how many requests the fake refuses.
		refused int
	}{
		{"switch to a key of another organization", "key-b", false, false, 1},
		{"resume with a key of another organization", "key-b", false, true, 1},
		{"resume unstamped history with another organization", "key-b", true, true, 1},
		{"resume with another key of the same organization", "key-a2", false, true, 0},
		{"resume unstamped history with the same key", rt.DefaultKey, true, true, 0},
	}
	for _, c := range cases {
		for _, noStream := range []bool{false, true} {
			srv := rt.NewServer(t)
			srv.Keys = map[string]string{"key-b": "org-b", "key-a2": rt.DefaultOrg}
			for range 4 {
				srv.Script(rt.Turn{rt.Reasoning(), rt.Text("Noted.")})
			}
			set, _ := toolSet(t)
			pa := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
			s := agent.New(agent.Config{Provider: pa, Model: "gpt-5.4", Tools: set, NoStream: noStream, Backoff: time.Millisecond})
			run(t, s, "one")
			run(t, s, "two")
			pb := openairesponses.New(openairesponses.Options{APIKey: c.key, BaseURL: srv.URL})
			if c.resume {
				msgs := s.Messages()
				if c.unstamped {
					msgs = withoutStamps(msgs)
				}
				s = agent.New(agent.Config{Provider: pb, Model: "gpt-5.4", Tools: set, NoStream: noStream, Backoff: time.Millisecond})
				s.Reset(msgs)
			} else {
				_ = s.Override(func(turn *agent.TurnContext) { turn.Provider = pb })
			}
			warned := 0
			for _, prompt := range []string{"three", "four"} {
				if err := s.Run(t.Context(), prompt, func(e agent.Event) {
					if e.Type == agent.EventWarning && strings.Contains(e.Text, "invalid_encrypted_content") {
						warned++
					}
				}); err != nil {
					t.Fatalf("%s stream=%v: turn %q: %v", c.name, !noStream, prompt, err)
				}
			}
			if warned != c.refused {
				t.Errorf("%s stream=%v: %d warnings, want %d", c.name, !noStream, warned, c.refused)
			}
			reqs := srv.Requests()
			refused := 0
			for _, r := range reqs {
				if r.Status == 400 {
					refused++
					if !strings.Contains(r.Error, "organization_id did not match") {
						t.Errorf("%s: refused for %q", c.name, r.Error)
					}
				}
			}
			if refused != c.refused {
				t.Errorf("%s stream=%v: %d requests refused, want %d", c.name, !noStream, refused, c.refused)
			}
			// The last request replays the reasoning of the answer to
			// "three", made under the new key.
			last := reqs[len(reqs)-1].Body
			if n := bytes.Count(last, []byte(`"type":"reasoning"`)); n < 1 {
				t.Errorf("%s stream=%v: the new key's reasoning is not replayed: %s", c.name, !noStream, last)
			}
		}
	}
}

// withoutStamps drops the raw parts that say where an answer was made.
func withoutStamps(msgs []agent.Message) []agent.Message {
	out := make([]agent.Message, len(msgs))
	for i, m := range msgs {
		m.Parts = append([]agent.Part(nil), m.Parts...)
		kept := m.Parts[:0]
		for _, p := range m.Parts {
			if p.Raw == nil || p.Raw.API == "responses" {
				kept = append(kept, p)
			}
		}
		m.Parts = kept
		out[i] = m
	}
	return out
}

// A session resumed again under the key it moved to is not refused again:
// each process starts without an answer of its own, and it sent the old
// organization's reasoning with the new one's, to be refused and warned
// about on every resume (each agent -p --resume of a script). Until its
// first answer a process takes the newest stamp of the history for the
// current origin.
func TestReasoningAfterAMoveResumesQuietly(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := rt.NewServer(t)
		srv.Keys = map[string]string{"key-b": "org-b"}
		for range 4 {
			srv.Script(rt.Turn{rt.Reasoning(), rt.Text("Noted.")})
		}
		set, _ := toolSet(t)
		session := func(key string, msgs []agent.Message) *agent.Session {
			p := openairesponses.New(openairesponses.Options{APIKey: key, BaseURL: srv.URL})
			s := agent.New(agent.Config{Provider: p, Model: "gpt-5.4", Tools: set, NoStream: noStream, Backoff: time.Millisecond})
			s.Reset(msgs)
			return s
		}
		s := session(rt.DefaultKey, nil)
		run(t, s, "one")
		s = session("key-b", s.Messages())
		run(t, s, "two") // refused once: the reasoning of "one" is org-fake's
		before := len(srv.Requests())
		s = session("key-b", s.Messages())
		evs := run(t, s, "three")
		for _, e := range evs {
			if e.Type == agent.EventWarning {
				t.Errorf("stream=%v: resumed under the same key again, warned %q", !noStream, e.Text)
			}
		}
		reqs := srv.Requests()[before:]
		for _, r := range reqs {
			if r.Status != 200 {
				t.Errorf("stream=%v: resumed under the same key again, a request refused: %s", !noStream, r.Error)
			}
		}
		if n := bytes.Count(reqs[len(reqs)-1].Body, []byte(`"type":"reasoning"`)); n != 1 {
			t.Errorf("stream=%v: %d reasoning items replayed, want the one made under key-b", !noStream, n)
		}
	}
}
