package openairesponses_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
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

// The refusal can come in a stream that has started (200, then
// response.failed or an error event with the code): before anything of the
// answer is shown it is handled as the 400 is, sent once more without the
// reasoning; it was returned as the turn's error and the session refused
// on every later request.
func TestReasoningRefusedInTheStream(t *testing.T) {
	for _, shape := range []string{"response.failed", "error"} {
		srv := rt.NewServer(t)
		srv.Keys = map[string]string{"key-b": "org-b"}
		srv.StreamRefusal = shape
		for range 4 {
			srv.Script(rt.Turn{rt.Reasoning(), rt.Text("Noted.")})
		}
		set, _ := toolSet(t)
		pa := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
		s := agent.New(agent.Config{Provider: pa, Model: "gpt-5.4", Tools: set, Backoff: time.Millisecond})
		run(t, s, "one")
		run(t, s, "two")
		pb := openairesponses.New(openairesponses.Options{APIKey: "key-b", BaseURL: srv.URL})
		_ = s.Override(func(turn *agent.TurnContext) { turn.Provider = pb })
		warned := 0
		for _, prompt := range []string{"three", "four"} {
			if err := s.Run(t.Context(), prompt, func(e agent.Event) {
				if e.Type == agent.EventWarning && strings.Contains(e.Text, "invalid_encrypted_content") {
					warned++
				}
			}); err != nil {
				t.Fatalf("%s: turn %q: %v", shape, prompt, err)
			}
		}
		refused := 0
		for _, r := range srv.Requests() {
			if r.Error != "" {
				refused++
			}
		}
		if refused != 1 || warned != 1 {
			t.Errorf("%s: %d requests refused, %d warnings; want 1 and 1", shape, refused, warned)
		}
	}
}

// A refusal that comes after some of the answer was shown is not sent
// again (the user would see it twice): the turn fails, and the next
// request leaves the refused reasoning out.
func TestReasoningRefusedAfterOutputIsNotResent(t *testing.T) {
	srv := rt.NewServer(t)
	srv.Keys = map[string]string{"key-b": "org-b"}
	for range 4 {
		srv.Script(rt.Turn{rt.Reasoning(), rt.Text("Noted.")})
	}
	posts := 0
	refuse := true
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts++
		if !refuse {
			proxy(t, w, r, srv.URL)
			return
		}
		refuse = false
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("openai-organization", "org-b")
		for _, ev := range []string{
			`{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`,
			`{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Noted so"}`,
			`{"type":"response.failed","sequence_number":2,"response":{"id":"resp_1","object":"response","status":"failed","output":[],"error":{"code":"invalid_encrypted_content","message":"The encrypted content for item rs_fake0001 could not be verified. Reason: Encrypted content organization_id did not match the target organization."}}}`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	}))
	t.Cleanup(front.Close)
	set, _ := toolSet(t)
	pa := openairesponses.New(openairesponses.Options{APIKey: rt.DefaultKey, BaseURL: srv.URL})
	s := agent.New(agent.Config{Provider: pa, Model: "gpt-5.4", Tools: set, Backoff: time.Millisecond})
	run(t, s, "one")
	pb := openairesponses.New(openairesponses.Options{APIKey: "key-b", BaseURL: front.URL})
	_ = s.Override(func(turn *agent.TurnContext) { turn.Provider = pb })
	if err := s.Run(t.Context(), "two", func(agent.Event) {}); err == nil {
		t.Fatal("the refused turn did not fail")
	}
	if posts != 1 {
		t.Errorf("the refused request was sent %d times after its answer streamed, want 1", posts)
	}
	before := len(srv.Requests())
	if err := s.Run(t.Context(), "three", func(agent.Event) {}); err != nil {
		t.Fatalf("the turn after the refusal: %v", err)
	}
	for _, r := range srv.Requests()[before:] {
		if r.Error != "" {
			t.Errorf("the turn after the refusal was refused again: %s", r.Error)
		}
	}
}

// proxy forwards r to base and copies the answer.
func proxy(t *testing.T, w http.ResponseWriter, r *http.Request, base string) {
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.Path, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("proxy: %v", err)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}
