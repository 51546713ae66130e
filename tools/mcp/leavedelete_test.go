package mcp

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agent-dev/agent/config"
)

// Close sends a streamable HTTP server its session's DELETE and returns once
// it is sent, not when the server answers: a server slow to answer held the
// agent's exit (mcp-go waits up to 5 s). The server still gets the DELETE,
// with the session id, and its answer is read when it comes.
func TestCloseDoesNotWaitForDeleteAnswers(t *testing.T) {
	t.Parallel()
	next := legacyHTTP(newInProcessServer())
	got := make(chan string, 1)     // the DELETE's session id
	answer := make(chan struct{})   // lets the DELETE be answered
	answered := make(chan error, 1) // the DELETE's request context when answered
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodDelete {
			got <- r.Header.Get("Mcp-Session-Id")
			<-answer
			// mcp-go gives up on its DELETE after 5 s, which closes the
			// connection: a Close that waited for the answer returns only
			// then, and this request is cancelled by the time it is let go.
			answered <- r.Context().Err()
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	}))
	defer srv.Close()
	m, _, errs := startManager(t, Options{}, config.MCPServer{Name: "slow", Type: config.MCPHTTP, URL: srv.URL + "/mcp"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	closed := make(chan error, 1)
	go func() { closed <- m.Close() }()
	var id string
	select {
	case id = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the server got no DELETE")
	}
	if id == "" {
		t.Error("the DELETE carried no session id")
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(answer)
		t.Fatal("Close waited for the server to answer the DELETE")
	}
	// Close returned with the DELETE still open, waiting for its answer.
	close(answer)
	select {
	case err := <-answered:
		if err != nil {
			t.Errorf("Close returned after the client gave up on its DELETE (%v)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the DELETE was never answered")
	}
}
