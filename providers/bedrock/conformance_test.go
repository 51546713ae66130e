package bedrock_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/agent-dev/agent/agent"
	"github.com/agent-dev/agent/providers/anthropic"
	"github.com/agent-dev/agent/providers/bedrock"
)

const fixtures = "../../../shared/fixtures/vercel-ai/anthropic/"

// recordedStreams reads a recorded Messages API stream (one JSON event a
// line) and splits it into responses.
func recordedStreams(t *testing.T, name string) [][]string {
	b, err := os.ReadFile(fixtures + name)
	if err != nil {
		t.Skipf("the Anthropic recordings are not beside the repository (%v): put shared/ at ../shared to run this", err)
	}
	var out [][]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, `{"type":"message_start"`) || len(out) == 0 {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], line)
	}
	return out
}

// Conformance with the recorded Anthropic streams, as Bedrock would carry
// them: each event, base64 in an event-stream chunk, decoded by the SDK's
// eventstream package, parses into exactly the message the Anthropic
// adapter makes of the SSE form (searches, split searches, calls, usage).
func TestConformanceRecordedStreamsThroughEventStream(t *testing.T) {
	for _, file := range []string{"anthropic-tool-search-bm25.1.chunks.txt", "anthropic-tool-search-regex.1.chunks.txt",
		"anthropic-tool-search-deferred-bm25.chunks.txt", "anthropic-tool-search-deferred-regex.chunks.txt"} {
		for i, events := range recordedStreams(t, file) {
			sseSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for _, e := range events {
					_, _ = io.WriteString(w, "data: "+e+"\n\n")
				}
			}))
			esSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
				enc := eventstream.NewEncoder()
				for _, e := range events {
					var m eventstream.Message
					m.Headers.Set(":message-type", eventstream.StringValue("event"))
					m.Headers.Set(":event-type", eventstream.StringValue("chunk"))
					m.Headers.Set(":content-type", eventstream.StringValue("application/json"))
					m.Payload, _ = json.Marshal(map[string]any{"bytes": []byte(e)})
					if err := enc.Encode(w, m); err != nil {
						return
					}
				}
			}))
			req := func() *agent.Request {
				return &agent.Request{Model: "claude-sonnet-4-5-20250929", Messages: []agent.Message{{Role: agent.RoleUser, Parts: []agent.Part{agent.TextPart("weather?")}}}}
			}
			want, err := anthropic.New(anthropic.Options{APIKey: "k", BaseURL: sseSrv.URL}).Send(t.Context(), req(), nil)
			if err != nil {
				t.Fatalf("%s #%d over SSE: %v", file, i, err)
			}
			bp, _ := bedrock.New(bedrock.Options{Region: "us-east-1", BaseURL: esSrv.URL, BearerToken: "k"})
			got, err := bp.Send(t.Context(), req(), nil)
			sseSrv.Close()
			esSrv.Close()
			if err != nil {
				t.Fatalf("%s #%d over event-stream: %v", file, i, err)
			}
			for j := range got.Message.Parts {
				if r := got.Message.Parts[j].Raw; r != nil && r.Provider == "bedrock" {
					cp := *r
					cp.Provider = "anthropic"
					got.Message.Parts[j].Raw = &cp
				}
			}
			gj, _ := json.Marshal(got.Message)
			wj, _ := json.Marshal(want.Message)
			if !bytes.Equal(gj, wj) || got.StopReason != want.StopReason || got.Usage.InputTokens != want.Usage.InputTokens || got.Usage.OutputTokens != want.Usage.OutputTokens {
				t.Errorf("%s #%d: event-stream parse differs\n got %s (%s %+v)\nwant %s (%s %+v)", file, i, gj, got.StopReason, got.Usage, wj, want.StopReason, want.Usage)
			}
			if len(want.Message.Parts) < 2 {
				t.Errorf("%s #%d: nothing parsed: %s", file, i, wj)
			}
		}
	}
}
