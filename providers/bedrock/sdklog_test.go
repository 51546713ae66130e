package bedrock_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-dev/agent/providers/bedrock"
)

// With no credentials anywhere the SDK's chain ends at the instance metadata
// service, and its fallback warning ("falling back to IMDSv1") would go to
// stderr, under the TUI or beside -p's one-line error. It must not: the
// failure reaches the user as the error that names what to set, at start.
func TestFromEnvSDKWritesNothingToStderr(t *testing.T) {
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer imds.Close()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_EC2_METADATA_SERVICE_ENDPOINT":      imds.URL,
		"AWS_EC2_METADATA_DISABLED":              "",
		"AWS_CONFIG_FILE":                        filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE":            filepath.Join(dir, "credentials"),
		"AWS_PROFILE":                            "",
		"AWS_ACCESS_KEY_ID":                      "",
		"AWS_SECRET_ACCESS_KEY":                  "",
		"AWS_SESSION_TOKEN":                      "",
		"AWS_WEB_IDENTITY_TOKEN_FILE":            "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI":     "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
	} {
		t.Setenv(k, v)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	restored := false
	restore := func() {
		if !restored {
			os.Stderr = stderr
			w.Close()
			restored = true
		}
	}
	defer restore()
	// #27: no credentials is an error at start, naming what to set.
	_, err = bedrock.FromEnv(t.Context(), func(k string) string {
		if k == "AWS_REGION" {
			return "us-east-1"
		}
		return os.Getenv(k)
	})
	if err == nil || !strings.Contains(err.Error(), "no AWS credentials: set AWS_ACCESS_KEY_ID") || strings.Contains(err.Error(), "\n") {
		restore()
		t.Fatalf("FromEnv without credentials: %v", err)
	}
	restore()
	out, _ := io.ReadAll(r)
	if len(out) != 0 {
		t.Errorf("the AWS SDK wrote to stderr: %q", out)
	}
}
