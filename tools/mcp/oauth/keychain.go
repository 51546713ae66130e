package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	gokeyring "github.com/zalando/go-keyring"
)

// Where sign-ins are kept (the token_store setting).
const (
	// StoreAuto is the OS keychain where one answers, else files.
	StoreAuto = "auto"
	// StoreKeychain is the OS keychain only: macOS Keychain, Windows
	// Credential Manager, or a Secret Service over D-Bus (GNOME Keyring,
	// KWallet, KeePassXC).
	StoreKeychain = "keychain"
	// StoreFile is files of mode 0600 in the agent's data directory.
	StoreFile = "file"
)

// keychainService is the service name of the agent's keychain entries;
// the account is the server's name and a hash of its URL.
const keychainService = "agent MCP sign-in"

// keychainWait bounds one keychain call: a locked Secret Service collection
// can show an unlock prompt that nobody answers (no display), and D-Bus
// calls have no deadline of their own.
var keychainWait = 10 * time.Second

// ErrNoKeychain is the kind of the error of token_store "keychain" when no
// OS keychain answers.
var ErrNoKeychain = errors.New("no OS keychain")

// keyring is the part of github.com/zalando/go-keyring the store uses
// (a fake in tests). Get and Delete return gokeyring.ErrNotFound for a
// missing entry; Set returns gokeyring.ErrSetDataTooBig past the
// platform's limit (2,560 bytes of secret on Windows, ~3,000 on macOS).
type keyring interface {
	Set(service, user, secret string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

// osKeyring is the system's keychain through go-keyring, each call bounded
// by keychainWait.
type osKeyring struct{}

func (osKeyring) Set(service, user, secret string) error {
	return bounded(func() error { return gokeyring.Set(service, user, secret) })
}

func (osKeyring) Get(service, user string) (string, error) {
	var secret string
	err := bounded(func() error {
		var e error
		secret, e = gokeyring.Get(service, user)
		return e
	})
	return secret, err
}

func (osKeyring) Delete(service, user string) error {
	return bounded(func() error { return gokeyring.Delete(service, user) })
}

// bounded runs f within keychainWait. A call still blocked then is left to
// finish on its own (it holds no lock of ours).
func bounded(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(keychainWait)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("the OS keychain did not answer within %s (is it locked?)", keychainWait)
	}
}

// busAddress reports whether a D-Bus session bus is there to reach a Secret
// Service on, without starting one: godbus would otherwise run dbus-launch,
// which leaves a bus daemon behind on a machine without a desktop session.
func busAddress(getenv func(string) string) bool {
	if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return true
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(filepath.Join(d, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return true
		}
	}
	return false
}

// keychainStore keeps each record as one JSON secret in the OS keychain.
// A record the keychain refuses as too big (long tokens on Windows) goes to
// the file store instead; a record found only in a file (kept before the
// keychain was in use) is read from there and moved on the next save.
type keychainStore struct {
	kr    keyring
	files *fileStore
}

func (s *keychainStore) account(server, url string) string {
	return filepath.Base(s.files.path(server, url))
}

func (s *keychainStore) load(server, url string) (record, error) {
	secret, err := s.kr.Get(keychainService, s.account(server, url))
	if errors.Is(err, gokeyring.ErrNotFound) {
		return s.files.load(server, url)
	}
	if err != nil {
		return record{}, fmt.Errorf("read the sign-in of %s from the OS keychain: %w", server, err)
	}
	var r record
	if err := json.Unmarshal([]byte(secret), &r); err != nil || r.ServerURL != url {
		return record{ServerURL: url}, nil // damaged or foreign: no sign-in
	}
	return r, nil
}

func (s *keychainStore) save(server, url string, r record) error {
	r.ServerURL = url
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	err = s.kr.Set(keychainService, s.account(server, url), string(b))
	if errors.Is(err, gokeyring.ErrSetDataTooBig) {
		if err := s.files.save(server, url, r); err != nil {
			return err
		}
		// An older, smaller record must not shadow the file.
		if err := s.kr.Delete(keychainService, s.account(server, url)); err != nil && !errors.Is(err, gokeyring.ErrNotFound) {
			return fmt.Errorf("keep the sign-in of %s: %w", server, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("keep the sign-in of %s in the OS keychain: %w", server, err)
	}
	// The keychain has it now: no copy stays in a file.
	_, err = s.files.remove(server, url)
	return err
}

func (s *keychainStore) remove(server, url string) (bool, error) {
	err := s.kr.Delete(keychainService, s.account(server, url))
	inKeychain := err == nil
	if err != nil && !errors.Is(err, gokeyring.ErrNotFound) {
		return false, fmt.Errorf("remove the sign-in of %s from the OS keychain: %w", server, err)
	}
	inFile, err := s.files.remove(server, url)
	return inKeychain || inFile, err
}

// tokenStore keeps one record per server (name and URL).
type tokenStore interface {
	load(server, url string) (record, error)
	save(server, url string, r record) error
	remove(server, url string) (bool, error)
}

// Store is where the sign-ins of a run are kept, chosen once (on first use)
// from the token_store setting and shared by the run's Authorizers.
type Store struct {
	kind, dir string
	kr        keyring
	getenv    func(string) string

	once   sync.Once
	ts     tokenStore
	where  string
	reason string // why auto fell back to files
	err    error
}

// NewStore returns the store of kind (StoreAuto, StoreKeychain or
// StoreFile; "" is StoreAuto) with its files under dir.
func NewStore(kind, dir string) *Store {
	return &Store{kind: kind, dir: dir, kr: osKeyring{}, getenv: os.Getenv}
}

func (s *Store) open() {
	s.once.Do(func() {
		files := &fileStore{dir: s.dir}
		useFiles := func(reason string) {
			s.ts, s.reason = files, reason
			s.where = fmt.Sprintf("files of mode 0600 in %s", s.dir)
		}
		if s.kind == StoreFile {
			useFiles("")
			return
		}
		if err := s.probe(); err != nil {
			if s.kind == StoreKeychain {
				s.err = fmt.Errorf(`token_store is "keychain" but %w: %v (set token_store to "auto" or "file")`, ErrNoKeychain, err)
				return
			}
			useFiles(err.Error())
			return
		}
		s.ts, s.where = &keychainStore{kr: s.kr, files: files}, "the OS keychain"
	})
}

// probe asks the keychain for an entry that is not there: not found means
// it answers.
func (s *Store) probe() error {
	if usesSecretService() && !busAddress(s.getenv) {
		return errors.New("no D-Bus session bus for a Secret Service (DBUS_SESSION_BUS_ADDRESS is not set)")
	}
	_, err := s.kr.Get(keychainService, "probe")
	if err == nil || errors.Is(err, gokeyring.ErrNotFound) {
		return nil
	}
	return fmt.Errorf("the OS keychain does not answer: %s", firstLine(err.Error()))
}

// usesSecretService is true where go-keyring speaks to a Secret Service
// over D-Bus (Linux and the BSDs).
func usesSecretService() bool {
	switch runtime.GOOS {
	case "darwin", "windows":
		return false
	}
	return true
}

// Where says where sign-ins are kept, for `agent mcp login` and `agent mcp
// list`: "the OS keychain", or the directory, with why the keychain is not
// used when it was asked for by "auto".
func (s *Store) Where() string {
	s.open()
	switch {
	case s.err != nil:
		return "nowhere: " + s.err.Error()
	case s.reason != "":
		return s.where + " (" + s.reason + ")"
	}
	return s.where
}

// Kind is StoreKeychain or StoreFile, the store in use ("" when none could
// be opened).
func (s *Store) Kind() string {
	s.open()
	switch s.ts.(type) {
	case *keychainStore:
		return StoreKeychain
	case *fileStore:
		return StoreFile
	}
	return ""
}

func (s *Store) load(server, url string) (record, error) {
	if s.open(); s.err != nil {
		return record{}, s.err
	}
	return s.ts.load(server, url)
}

func (s *Store) save(server, url string, r record) error {
	if s.open(); s.err != nil {
		return s.err
	}
	return s.ts.save(server, url, r)
}

func (s *Store) remove(server, url string) (bool, error) {
	if s.open(); s.err != nil {
		return false, s.err
	}
	return s.ts.remove(server, url)
}
