package telemetry

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// downAddr is a loopback address nothing listens on (a port just freed).
func downAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// A refused dial is confirmed down only when a second connect is refused
// too: a collector that came up in between gets the last export.
func TestConfirmDown(t *testing.T) {
	tests := []struct {
		name      string
		refused   bool // a dial was refused before
		listening bool // something listens there when the last export starts
		down      bool
	}{
		{"refused twice", true, false, true},
		{"up since", true, true, false},
		{"never refused", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			addr := downAddr(t)
			cn := &conn{}
			if tc.refused {
				if c, err := cn.dialer(&net.Dialer{})(context.Background(), "tcp", addr); err == nil {
					_ = c.Close()
					t.Skipf("something listens on %s again", addr)
				}
				if cn.refused.Load() == nil {
					t.Fatalf("the refused dial was not noted")
				}
			}
			if tc.listening {
				l, err := net.Listen("tcp", addr)
				if err != nil {
					t.Skipf("port %s taken again meanwhile: %v", addr, err)
				}
				t.Cleanup(func() { _ = l.Close() })
			}
			cn.confirmDown(context.Background())
			if got := cn.down.Load() != nil; got != tc.down {
				t.Errorf("down = %v, want %v", got, tc.down)
			}
			if tc.listening && cn.refused.Load() != nil {
				t.Errorf("the refusal is still noted after a connect went through")
			}
		})
	}
}

// With the collector down from the start, the last export is neither
// encoded nor sent: the first (metrics, at start) was refused, the connect
// just before the last is refused too, and the log says what was not sent.
func TestLastExportSkippedWhenRefusedTwice(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			var log bytes.Buffer
			old := slog.Default()
			slog.SetDefault(slog.New(slog.NewTextHandler(&log, nil)))
			t.Cleanup(func() { slog.SetDefault(old) })
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + downAddr(t), "OTEL_EXPORTER_OTLP_PROTOCOL": protocol}
			tel, err := Start(context.Background(), Options{Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			_, turn := tel.StartTurn(context.Background(), TurnInfo{Provider: "anthropic"})
			turn.End()
			<-tel.early // the first metrics export met the refusal
			err = tel.Shutdown(context.Background())
			var ee *exportError
			if !errors.As(err, &ee) || !strings.Contains(ee.Detail, "data points not sent") {
				t.Errorf("Shutdown: %v, want the metrics not sent", err)
			}
			if !strings.Contains(log.String(), "spans not sent") {
				t.Errorf("the log does not say the spans were not sent:\n%s", log.String())
			}
		})
	}
}
