package oauth

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	gokeyring "github.com/zalando/go-keyring"
)

// fakeKeyring answers as go-keyring's providers do: ErrNotFound for a
// missing entry, ErrSetDataTooBig past Windows' 2,560 bytes of secret, and
// a D-Bus error when no Secret Service is running (down).
type fakeKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	down    bool
	gets    int
}

var errNoSecretService = errors.New("org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files")

func (k *fakeKeyring) Set(service, user, secret string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return errNoSecretService
	}
	if len(secret) > 2560 {
		return gokeyring.ErrSetDataTooBig
	}
	if k.entries == nil {
		k.entries = map[string]string{}
	}
	k.entries[service+"\x00"+user] = secret
	return nil
}

func (k *fakeKeyring) Get(service, user string) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gets++
	if k.down {
		return "", errNoSecretService
	}
	s, ok := k.entries[service+"\x00"+user]
	if !ok {
		return "", gokeyring.ErrNotFound
	}
	return s, nil
}

func (k *fakeKeyring) Delete(service, user string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		return errNoSecretService
	}
	if _, ok := k.entries[service+"\x00"+user]; !ok {
		return gokeyring.ErrNotFound
	}
	delete(k.entries, service+"\x00"+user)
	return nil
}

func testStore(kind, dir string, kr keyring, env map[string]string) *Store {
	return &Store{kind: kind, dir: dir, kr: kr, getenv: func(k string) string { return env[k] }}
}

// token_store picks the keychain where one answers, and says why not.
func TestStoreSelection(t *testing.T) {
	bus := map[string]string{"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}
	// Where the keychain is a Secret Service, a machine without a session
	// bus has none (and the keychain is not even asked).
	noBusKind, noBusGets := StoreFile, 0
	if !usesSecretService() {
		noBusKind, noBusGets = StoreKeychain, 1
	}
	for _, tc := range []struct {
		name      string
		kind      string
		env       map[string]string
		down      bool
		want      string // the kind in use, "" for an error
		reason    string // in Where
		wantGets  int
		wantNoKey bool
	}{
		{name: "file asks no keychain", kind: StoreFile, env: bus, want: StoreFile, wantGets: 0},
		{name: "auto with a keychain", kind: StoreAuto, env: bus, want: StoreKeychain, wantGets: 1},
		{name: "empty is auto", kind: "", env: bus, want: StoreKeychain, wantGets: 1},
		{name: "auto without a session bus", kind: StoreAuto, env: nil, want: noBusKind, reason: "DBUS_SESSION_BUS_ADDRESS", wantGets: noBusGets},
		{name: "autolaunch is no bus", kind: StoreAuto, env: map[string]string{"DBUS_SESSION_BUS_ADDRESS": "autolaunch:"}, want: noBusKind, wantGets: noBusGets},
		{name: "auto with no Secret Service", kind: StoreAuto, env: bus, down: true, want: StoreFile, reason: "org.freedesktop.secrets", wantGets: 1},
		{name: "keychain with none is an error", kind: StoreKeychain, env: bus, down: true, want: "", reason: `token_store is "keychain"`, wantGets: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kr := &fakeKeyring{down: tc.down}
			s := testStore(tc.kind, t.TempDir(), kr, tc.env)
			if got := s.Kind(); got != tc.want {
				t.Fatalf("Kind() = %q, want %q (%s)", got, tc.want, s.Where())
			}
			if tc.want == StoreFile && tc.reason != "" && !strings.Contains(s.Where(), tc.reason) {
				t.Errorf("Where() = %q, want the reason %q", s.Where(), tc.reason)
			}
			if tc.want == "" {
				_, err := s.load("x", "https://x.example/mcp")
				if !errors.Is(err, ErrNoKeychain) || !strings.Contains(err.Error(), tc.reason) {
					t.Errorf("load: %v, want ErrNoKeychain naming %q", err, tc.reason)
				}
				if err := s.save("x", "https://x.example/mcp", record{}); !errors.Is(err, ErrNoKeychain) {
					t.Errorf("save: %v, want ErrNoKeychain", err)
				}
			}
			s.Kind() // chosen once
			if kr.gets != tc.wantGets {
				t.Errorf("the keychain was asked %d times, want %d", kr.gets, tc.wantGets)
			}
		})
	}
}

func signedIn(access string) record {
	return record{Token: &transport.Token{AccessToken: access, TokenType: "Bearer", RefreshToken: "r-" + access}}
}

func TestKeychainStore(t *testing.T) {
	const url = "https://mcp.example/mcp"
	dir := t.TempDir()
	kr := &fakeKeyring{}
	files := &fileStore{dir: dir}
	s := &keychainStore{kr: kr, files: files}
	fileOf := func() string { return files.path("linear", url) }
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	// A sign-in kept in a file before the keychain was used is read, and
	// moved to the keychain by the next save.
	if err := files.save("linear", url, signedIn("old")); err != nil {
		t.Fatal(err)
	}
	if r, err := s.load("linear", url); err != nil || r.Token == nil || r.Token.AccessToken != "old" {
		t.Fatalf("load of a file-kept sign-in: %+v %v", r, err)
	}
	if err := s.save("linear", url, signedIn("new")); err != nil {
		t.Fatal(err)
	}
	if exists(fileOf()) {
		t.Error("the file copy stayed after the keychain took the sign-in")
	}
	secret, err := kr.Get(keychainService, filepath.Base(fileOf()))
	if err != nil || !strings.Contains(secret, `"new"`) {
		t.Fatalf("keychain entry %q: %v", secret, err)
	}
	if r, err := s.load("linear", url); err != nil || r.Token.AccessToken != "new" || r.Token.RefreshToken != "r-new" {
		t.Fatalf("load: %+v %v", r, err)
	}
	// Another URL under the same name is another sign-in.
	if r, err := s.load("linear", "https://elsewhere.example/mcp"); err != nil || r.Token != nil {
		t.Fatalf("load of another URL: %+v %v", r, err)
	}

	// Too big for the keychain (Windows): kept in a 0600 file, and the
	// keychain's older entry no longer shadows it.
	big := signedIn(strings.Repeat("j", 3000))
	if err := s.save("linear", url, big); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fileOf()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("big record's file: %v %v", fi, err)
	}
	if r, err := s.load("linear", url); err != nil || r.Token.AccessToken != big.Token.AccessToken {
		t.Fatalf("load of the big record: %v", err)
	}

	removed, err := s.remove("linear", url)
	if err != nil || !removed || exists(fileOf()) {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if removed, err := s.remove("linear", url); err != nil || removed {
		t.Fatalf("second remove: %v %v", removed, err)
	}
}

func TestFileStore(t *testing.T) {
	const url = "https://mcp.example/mcp"
	dir := filepath.Join(t.TempDir(), "oauth")
	s := &fileStore{dir: dir}
	if err := s.save("a/b", url, signedIn("t")); err != nil {
		t.Fatal(err)
	}
	p := s.path("a/b", url)
	if filepath.Dir(p) != dir {
		t.Fatalf("a server name with a slash left the directory: %s", p)
	}
	for path, mode := range map[string]os.FileMode{dir: 0o700, p: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %o", path, err, mode)
		}
	}
	if r, err := s.load("a/b", "https://other.example/mcp"); err != nil || r.Token != nil {
		t.Errorf("a record of another URL was used: %+v %v", r, err)
	}
	if err := os.WriteFile(p, []byte("{damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, err := s.load("a/b", url); err != nil || r.Token != nil {
		t.Errorf("a damaged file: %+v %v, want no sign-in", r, err)
	}
}
