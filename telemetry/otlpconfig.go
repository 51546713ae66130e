package telemetry

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
)

// signalConfig is where one signal's exports go and how, read from the
// OTEL_EXPORTER_OTLP_* variables as the OpenTelemetry specification (and
// the official Go exporters) read them: the signal's own variable first,
// then the shared one.
type signalConfig struct {
	protocol string // "http/protobuf" or "grpc"
	// url is the POST target: for http/protobuf the endpoint as given per
	// signal, or the shared endpoint plus /v1/traces or /v1/metrics; for
	// grpc the endpoint's scheme and authority plus the service's method.
	url      string
	insecure bool // cleartext (http:// or OTEL_EXPORTER_OTLP_INSECURE=true)
	headers  map[string]string
	gzip     bool
	timeout  time.Duration
	// tls is nil for the system's roots and no client certificate; tlsKey
	// names its files, so signals with the same files share a connection.
	tls    *tls.Config
	tlsKey string
}

// signals of OTLP: the variable infix, the http/protobuf path and the
// grpc method.
var (
	traceSignal  = signal{env: "TRACES", path: "/v1/traces", method: "/opentelemetry.proto.collector.trace.v1.TraceService/Export"}
	metricSignal = signal{env: "METRICS", path: "/v1/metrics", method: "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"}
)

type signal struct{ env, path, method string }

// readSignalConfig reads sig's configuration from the environment.
func readSignalConfig(getenv func(string) string, sig signal) (signalConfig, error) {
	// lookup returns the signal's variable, else the shared one, with the
	// name it came from.
	lookup := func(suffix string) (string, string) {
		for _, name := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_" + suffix, "OTEL_EXPORTER_OTLP_" + suffix} {
			if v := strings.TrimSpace(getenv(name)); v != "" {
				return v, name
			}
		}
		return "", ""
	}
	c := signalConfig{timeout: exportTimeout}
	var err error
	if c.protocol, err = protocol(getenv, sig.env); err != nil {
		return c, err
	}
	if err := c.readEndpoint(getenv, sig, lookup); err != nil {
		return c, err
	}
	if v, name := lookup("HEADERS"); name != "" {
		c.headers = parseHeaders(v, name)
	}
	switch v, name := lookup("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return c, fmt.Errorf("%w: %s=%q: use gzip or none", ErrConfig, name, v)
	}
	if v, name := lookup("TIMEOUT"); name != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return c, fmt.Errorf("%w: %s=%q: a whole number of milliseconds", ErrConfig, name, v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	if err := c.readTLS(lookup); err != nil {
		return c, err
	}
	return c, nil
}

// readEndpoint sets url and insecure. The default is the specification's:
// http://localhost:4318 for http/protobuf, http://localhost:4317 for grpc.
func (c *signalConfig) readEndpoint(getenv func(string) string, sig signal, lookup func(string) (string, string)) error {
	perSignal := "OTEL_EXPORTER_OTLP_" + sig.env + "_ENDPOINT"
	raw, name := lookup("ENDPOINT")
	if raw == "" {
		raw = "http://localhost:4318"
		if c.protocol == "grpc" {
			raw = "http://localhost:4317"
		}
	}
	u, err := url.Parse(raw)
	scheme := ""
	if err == nil {
		scheme = strings.ToLower(u.Scheme)
	}
	switch {
	case err == nil && (scheme == "http" || scheme == "https") && u.Host != "":
	case c.protocol == "grpc" && !strings.Contains(raw, "/"):
		// A grpc target may be host:port without a scheme: TLS unless
		// OTEL_EXPORTER_OTLP_INSECURE says otherwise.
		u, scheme = &url.URL{Scheme: "https", Host: raw}, ""
	default:
		return fmt.Errorf("%w: %s=%q: give a URL such as http://localhost:4318", ErrConfig, name, raw)
	}
	c.insecure = scheme == "http"
	if v, _ := lookupInsecure(getenv, sig); v != "" {
		c.insecure = strings.EqualFold(v, "true")
	}
	switch {
	case c.protocol == "grpc":
		c.url = "//" + u.Host + sig.method
	case name == perSignal:
		// A signal's own endpoint is used as it is (the root path when it
		// has none).
		p := u.Path
		if p == "" {
			p = "/"
		}
		c.url = "//" + u.Host + p
		if u.RawQuery != "" {
			c.url += "?" + u.RawQuery
		}
	default:
		c.url = "//" + u.Host + path.Join("/", u.Path, sig.path)
	}
	if c.insecure {
		c.url = "http:" + c.url
	} else {
		c.url = "https:" + c.url
	}
	return nil
}

func lookupInsecure(getenv func(string) string, sig signal) (string, string) {
	for _, name := range []string{"OTEL_EXPORTER_OTLP_" + sig.env + "_INSECURE", "OTEL_EXPORTER_OTLP_INSECURE"} {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v, name
		}
	}
	return "", ""
}

// readTLS loads OTEL_EXPORTER_OTLP_CERTIFICATE (the roots to trust) and
// OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE with _CLIENT_KEY (mutual TLS).
func (c *signalConfig) readTLS(lookup func(string) (string, string)) error {
	ca, caName := lookup("CERTIFICATE")
	cert, certName := lookup("CLIENT_CERTIFICATE")
	key, keyName := lookup("CLIENT_KEY")
	if ca == "" && (cert == "" || key == "") {
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrConfig, caName, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%w: %s=%q: no PEM certificate in it", ErrConfig, caName, ca)
		}
		cfg.RootCAs = pool
	}
	if cert != "" && key != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("%w: %s and %s: %v", ErrConfig, certName, keyName, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	c.tls, c.tlsKey = cfg, ca+"\x00"+cert+"\x00"+key
	return nil
}

// parseHeaders reads key=value,… with percent-encoded values (the
// specification's W3C baggage form). A malformed entry is skipped and
// logged by its key only: a value may be a secret.
func parseHeaders(v, name string) map[string]string {
	h := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !validHeaderKey(k) {
			slog.Warn("telemetry: skipped a malformed header entry", "variable", name, "key", k)
			continue
		}
		dec, err := url.PathUnescape(val)
		if err != nil {
			slog.Warn("telemetry: skipped a header whose value is not percent-encoded", "variable", name, "key", k)
			continue
		}
		h[k] = strings.TrimSpace(dec)
	}
	return h
}

// validHeaderKey: an HTTP token (RFC 9110).
func validHeaderKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r > 0x7f || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
