package peerbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agent-dev/agent/bench/internal/faket"
	"github.com/agent-dev/agent/bench/startbench"
	"github.com/agent-dev/agent/providers/openairesponses/responsestest"
)

// gptModel is what both clients ask the Responses fake for: tool_search
// and defer_loading need gpt-5.4 or later (responsestest.DefaultSupports),
// and Codex uses its search tool only with a model its bundled metadata
// knows (gpt-5.4 draws "Model metadata ... not found" and every MCP tool
// is sent).
const gptModel = "gpt-5.5"

// responsesFake is a strict Responses fake behind a proxy that scripts
// each answer from the request itself (responsesTurn).
type responsesFake struct {
	ft   *faket.T
	f    *responsestest.Server
	url  string // the proxy's, with /v1
	seen int
	stop func()
}

func newResponsesFake() (*responsesFake, error) {
	ft := &faket.T{}
	f := responsestest.NewServer(ft)
	u, err := url.Parse(f.URL)
	if err != nil {
		return nil, err
	}
	up := &url.URL{Scheme: u.Scheme, Host: u.Host}
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.FlushInterval = -1
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses") {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			f.Script(responsesTurn(b))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
		}
		rp.ServeHTTP(w, r)
	})}
	go func() { _ = hs.Serve(l) }()
	return &responsesFake{ft: ft, f: f, url: "http://" + l.Addr().String() + "/v1", stop: func() { _ = hs.Close(); ft.Close() }}, nil
}

// taken is the bodies of the Responses requests since the last call, and
// an error naming the first the fake rejected.
func (r *responsesFake) taken() ([][]byte, error) {
	rs := r.f.Requests()
	var out [][]byte
	var err error
	for _, q := range rs[r.seen:] {
		switch {
		case q.Status == 200:
			out = append(out, q.Body)
		case err == nil:
			err = fmt.Errorf("the fake answered %d: %s", q.Status, q.Error)
		}
	}
	r.seen = len(rs)
	if err == nil {
		err = r.ft.Err()
	}
	return out, err
}

// responsesTurn is the scripted Responses model's answer to one request of
// either client: the client's search, the call of the echo tool it
// loaded, then the answer.
//   - Hosted tool_search (agent's default at 282 tools): the search and
//     the call in one response, as the API does.
//   - Client tool_search (Codex; agent past the wire budget): call it;
//     once its tool_search_output loaded the echo tool, call that.
func responsesTurn(body []byte) responsestest.Turn {
	var req struct {
		Tools []struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			Execution string `json:"execution"`
		} `json:"tools"`
		Input []struct {
			Type  string            `json:"type"`
			Tools []json.RawMessage `json:"tools"`
		} `json:"input"`
	}
	_ = json.Unmarshal(body, &req)
	hosted, client, echo := false, false, ""
	for _, t := range req.Tools {
		switch {
		case t.Type == "tool_search":
			client, hosted = t.Execution == "client", t.Execution != "client"
		case t.Type == "function" && isEcho(t.Name):
			echo = t.Name
		}
	}
	call := func(name string) responsestest.Step { return responsestest.Call(name, `{"message":"hello"}`) }
	if n := len(req.Input); n > 0 {
		switch last := req.Input[n-1]; last.Type {
		case "function_call_output":
			return responsestest.Turn{responsestest.Text("hello")}
		case "tool_search_output":
			if name := loadedEcho(last.Tools); name != "" {
				return responsestest.Turn{call(name)}
			}
			return responsestest.Turn{responsestest.Text("the search found no echo tool")}
		}
	}
	switch {
	case hosted:
		return responsestest.Turn{responsestest.HostedSearch("echo"), call("server-everything__echo")}
	case client:
		return responsestest.Turn{responsestest.ClientSearch("echo")}
	case echo != "":
		return responsestest.Turn{call(echo)}
	}
	return responsestest.Turn{responsestest.Text("ok")}
}

// loadedEcho is the name to call the echo tool of server-everything by,
// from a tool_search_output's tools: a function, or one inside a namespace
// named after the server.
func loadedEcho(tools []json.RawMessage) string {
	type def struct {
		Type  string `json:"type"`
		Name  string `json:"name"`
		Tools []def  `json:"tools"`
	}
	for _, raw := range tools {
		var d def
		_ = json.Unmarshal(raw, &d)
		if d.Type == "function" && isEcho(d.Name) {
			return d.Name
		}
		for _, m := range d.Tools {
			// agent names the namespace after the server; Codex
			// mcp__server_everything.
			ns := strings.ReplaceAll(d.Name, "_", "-")
			if strings.HasSuffix(ns, "server-everything") && (m.Name == "echo" || isEcho(m.Name)) {
				return m.Name
			}
		}
	}
	return ""
}

// agentResponses is agent's turn on the Responses route (--provider
// openai), every catalog tool deferred.
func agentResponses(bin string, fake *responsesFake) side {
	return agentSide(bin, fake.taken, "OPENAI_API_KEY="+responsestest.DefaultKey,
		"--provider", "openai", "--base-url", fake.url, "--model", gptModel)
}

// codexSide is Codex CLI's turn: `codex exec` with a model provider whose
// base_url is the fake (wire_api "responses") and the catalog as
// mcp_servers, in a new CODEX_HOME.
func codexSide(bin string, fake *responsesFake) side {
	return side{name: "codex", run: func(ctx context.Context, dir string, urls map[string]string) (startbench.RunResult, [][]byte, error) {
		home := filepath.Join(dir, "codex")
		if err := os.MkdirAll(home, 0o700); err != nil {
			return startbench.RunResult{}, nil, err
		}
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(codexConfig(fake.url, urls)), 0o600); err != nil {
			return startbench.RunResult{}, nil, err
		}
		args := []string{"exec", "--skip-git-repo-check", "--json", prompt}
		env := startbench.IsolatedEnv(dir, "CODEX_HOME="+home, "PEERBENCH_KEY="+responsestest.DefaultKey)
		r, err := startbench.RunProgram(ctx, bin, args, env, true)
		bodies, ferr := fake.taken()
		return r, bodies, first(err, ferr, calledEcho(bodies))
	}}
}

// codexConfig is config.toml: the fake as the model provider, no
// approvals (exec cannot ask), the catalog's servers over HTTP with their
// tools approved (mcp_servers.<id>.default_tools_approval_mode).
func codexConfig(base string, urls map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "model = %q\nmodel_provider = \"peerbench\"\napproval_policy = \"never\"\nsandbox_mode = \"read-only\"\n\n", gptModel)
	fmt.Fprintf(&b, "[model_providers.peerbench]\nname = \"peerbench\"\nbase_url = %q\nenv_key = \"PEERBENCH_KEY\"\nwire_api = \"responses\"\n\n", base)
	names := make([]string, 0, len(urls))
	for n := range urls {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		// exec cannot ask: "approve" lets its tools run unasked.
		fmt.Fprintf(&b, "[mcp_servers.%q]\nurl = %q\ndefault_tools_approval_mode = \"approve\"\n\n", n, urls[n])
	}
	return b.String()
}
