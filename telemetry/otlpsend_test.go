package telemetry

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// refusingTraces answers every grpc export with an error, or with a
// partial success.
type refusingTraces struct {
	coltracepb.UnimplementedTraceServiceServer
	err     error
	partial *coltracepb.ExportTracePartialSuccess
}

func (s refusingTraces) Export(context.Context, *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	if s.err != nil {
		return nil, s.err
	}
	return &coltracepb.ExportTraceServiceResponse{PartialSuccess: s.partial}, nil
}

func grpcCollector(t *testing.T, svc refusingTraces) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(s, svc)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return "http://" + l.Addr().String()
}

func httpCollector(t *testing.T, code int, st *status.Status) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := proto.Marshal(st)
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(code)
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// What a collector's refusal becomes: an error naming the endpoint and the
// collector's own reason (a real grpc-go server's status, a google.rpc.Status
// body over HTTP); a partial success goes to the SDK's error handler.
func TestCollectorAnswers(t *testing.T) {
	tests := []struct {
		name     string
		protocol string
		endpoint func(t *testing.T) string
		err      string // in the export's error; "" for success
		handled  string // in what the error handler got
	}{
		{"grpc unavailable", "grpc", func(t *testing.T) string {
			return grpcCollector(t, refusingTraces{err: grpcstatus.Error(codes.Unavailable, "collector full, 100% busy")})
		}, "grpc-status 14 (UNAVAILABLE): collector full, 100% busy", ""},
		{"grpc unauthenticated", "grpc", func(t *testing.T) string {
			return grpcCollector(t, refusingTraces{err: grpcstatus.Error(codes.Unauthenticated, "bad key")})
		}, "grpc-status 16 (UNAUTHENTICATED): bad key", ""},
		{"grpc partial success", "grpc", func(t *testing.T) string {
			return grpcCollector(t, refusingTraces{partial: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 3, ErrorMessage: "too old"}})
		}, "", "3 spans rejected: too old"},
		{"grpc ok", "grpc", func(t *testing.T) string { return grpcCollector(t, refusingTraces{}) }, "", ""},
		{"http 400", "http/protobuf", func(t *testing.T) string {
			return httpCollector(t, http.StatusBadRequest, &status.Status{Code: 3, Message: "bad span id"})
		}, "400 Bad Request: bad span id", ""},
		{"http partial success", "http/protobuf", func(t *testing.T) string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "dropped"}})
				_, _ = w.Write(b)
			}))
			t.Cleanup(srv.Close)
			return srv.URL
		}, "", "2 spans rejected: dropped"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var handled []string
			otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { handled = append(handled, err.Error()) }))
			t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {})) })
			env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": tc.endpoint(t), "OTEL_EXPORTER_OTLP_PROTOCOL": tc.protocol}
			cfg, err := readSignalConfig(func(k string) string { return env[k] }, traceSignal)
			if err != nil {
				t.Fatal(err)
			}
			cs := &clients{}
			defer cs.close()
			s := &sender{cfg: cfg, http: cs.get(cfg), what: "spans"}
			err = s.send(context.Background(), repeated(nil))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
			var ee *exportError
			if tc.err != "" && !errors.As(err, &ee) {
				t.Errorf("error %v is not an *exportError", err)
			}
			got := strings.Join(handled, "\n")
			if tc.handled == "" && got != "" || !strings.Contains(got, tc.handled) {
				t.Errorf("error handler got %q, want %q", got, tc.handled)
			}
		})
	}
}

func TestReadSignalConfig(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		sig      signal
		url      string
		insecure bool
		headers  map[string]string
		gzip     bool
		timeout  time.Duration
		err      string
	}{
		{name: "defaults", sig: traceSignal, url: "http://localhost:4318/v1/traces", insecure: true, timeout: exportTimeout},
		{name: "grpc default", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, sig: metricSignal,
			url: "http://localhost:4317/opentelemetry.proto.collector.metrics.v1.MetricsService/Export", insecure: true, timeout: exportTimeout},
		{name: "base endpoint with a path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example.com/otlp/"},
			sig: metricSignal, url: "https://otel.example.com/otlp/v1/metrics", timeout: exportTimeout},
		{name: "signal endpoint as it is", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:9999/custom/traces"},
			sig: traceSignal, url: "http://b:9999/custom/traces", insecure: true, timeout: exportTimeout},
		{name: "signal endpoint without a path", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:9999"},
			sig: traceSignal, url: "http://b:9999/", insecure: true, timeout: exportTimeout},
		{name: "grpc host:port is TLS", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"},
			sig: traceSignal, url: "https://collector:4317/opentelemetry.proto.collector.trace.v1.TraceService/Export", timeout: exportTimeout},
		{name: "grpc host:port insecure", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317",
			"OTEL_EXPORTER_OTLP_INSECURE": "true"},
			sig: traceSignal, url: "http://collector:4317/opentelemetry.proto.collector.trace.v1.TraceService/Export", insecure: true, timeout: exportTimeout},
		{name: "headers, compression, timeout; the signal's win", env: map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b, x-team = tools ,broken,bad key=1", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "only=this",
			"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TIMEOUT": "1500", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "250"},
			sig: traceSignal, url: "http://localhost:4318/v1/traces", insecure: true,
			headers: map[string]string{"api-key": "a b", "x-team": "tools"}, gzip: true, timeout: 250 * time.Millisecond},
		{name: "signal headers replace", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_METRICS_HEADERS": "only=this"},
			sig: metricSignal, url: "http://localhost:4318/v1/metrics", insecure: true, headers: map[string]string{"only": "this"}, timeout: exportTimeout},
		{name: "bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "5s"}, sig: traceSignal,
			err: `telemetry setting: OTEL_EXPORTER_OTLP_TIMEOUT="5s": a whole number of milliseconds`},
		{name: "http endpoint without a scheme", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, sig: traceSignal,
			err: `telemetry setting: OTEL_EXPORTER_OTLP_ENDPOINT="collector:4318": give a URL such as http://localhost:4318`},
		{name: "unknown compression", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "zstd"}, sig: traceSignal,
			err: `telemetry setting: OTEL_EXPORTER_OTLP_TRACES_COMPRESSION="zstd": use gzip or none`},
		{name: "missing certificate", env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"}, sig: traceSignal,
			err: `telemetry setting: OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent/ca.pem: no such file or directory`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := readSignalConfig(func(k string) string { return tc.env[k] }, tc.sig)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || !errors.Is(err, ErrConfig) {
					t.Fatalf("error %v, want %q of kind ErrConfig", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.url != tc.url || c.insecure != tc.insecure || c.gzip != tc.gzip || c.timeout != tc.timeout {
				t.Errorf("got url %q insecure %v gzip %v timeout %s, want %q %v %v %s", c.url, c.insecure, c.gzip, c.timeout, tc.url, tc.insecure, tc.gzip, tc.timeout)
			}
			if len(c.headers) != len(tc.headers) {
				t.Errorf("headers %v, want %v", c.headers, tc.headers)
			}
			for k, v := range tc.headers {
				if c.headers[k] != v {
					t.Errorf("header %s = %q, want %q", k, c.headers[k], v)
				}
			}
		})
	}
}

// Over TLS, with OTEL_EXPORTER_OTLP_CERTIFICATE naming the collector's CA:
// grpc negotiates h2 by ALPN with a real grpc-go server, http/protobuf
// posts over HTTPS. Without the CA the certificate is refused.
func TestTLSWithCertificateFile(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		_, _ = w.Write(b)
	}))
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer(grpc.Creds(credentials.NewServerTLSFromCert(&srv.TLS.Certificates[0])))
	coltracepb.RegisterTraceServiceServer(gs, refusingTraces{})
	go func() { _ = gs.Serve(l) }()
	t.Cleanup(gs.Stop)
	// The test certificate is for 127.0.0.1 and example.com.
	for _, tc := range []struct{ protocol, endpoint string }{
		{"grpc", "https://" + l.Addr().String()},
		{"grpc", l.Addr().String()}, // host:port without a scheme is TLS
		{"http/protobuf", srv.URL},
	} {
		for _, withCA := range []bool{true, false} {
			t.Run(tc.protocol+" "+tc.endpoint+map[bool]string{true: " with CA", false: " without CA"}[withCA], func(t *testing.T) {
				env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": tc.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": tc.protocol}
				if withCA {
					env["OTEL_EXPORTER_OTLP_CERTIFICATE"] = ca
				}
				cfg, err := readSignalConfig(func(k string) string { return env[k] }, traceSignal)
				if err != nil {
					t.Fatal(err)
				}
				cs := &clients{}
				defer cs.close()
				err = (&sender{cfg: cfg, http: cs.get(cfg), what: "spans"}).send(context.Background(), repeated(nil))
				var unknownCA x509.UnknownAuthorityError
				if withCA && err != nil || !withCA && !errors.As(err, &unknownCA) {
					t.Fatalf("error %v (with CA: %v)", err, withCA)
				}
			})
		}
	}
}

// The instruments' names and options are constants: build only logs an
// error from them, so this is where one would show.
func TestInstrumentsValid(t *testing.T) {
	mp := sdkmetric.NewMeterProvider()
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	if _, err := newInstruments(mp.Meter("test")); err != nil {
		t.Fatal(err)
	}
}
