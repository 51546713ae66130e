package oauth

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	dbus "github.com/godbus/dbus/v5"
	gokeyring "github.com/zalando/go-keyring"
)

// busConfig is a session bus that activates no service: the Secret Service
// is the gnome-keyring-daemon the test starts, unlocked, never one D-Bus
// would start locked (whose unlock prompt nobody could answer).
const busConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=DIR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// secretService starts a private session bus and GNOME Keyring's Secret
// Service on it, with a fresh login keyring, and points the process at it.
func secretService(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the Secret Service test runs on Linux")
	}
	for _, bin := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("a real keychain test needs %s on PATH (Debian: apt-get install dbus-daemon gnome-keyring; .ci/run installs them)", bin)
		}
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(strings.Replace(busConfig, "DIR", dir, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	bus := exec.Command("dbus-daemon", "--config-file="+conf, "--print-address=1", "--nofork", "--nopidfile")
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	addr = strings.TrimSpace(addr)

	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DBUS_SESSION_BUS_ADDRESS": addr, "HOME": dir, "XDG_RUNTIME_DIR": run, "XDG_DATA_HOME": filepath.Join(dir, "data")}
	kr := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	kr.Env = os.Environ()
	for k, v := range env {
		kr.Env = append(kr.Env, k+"="+v)
		t.Setenv(k, v)
	}
	kr.Stdin = strings.NewReader("test-password") // --unlock: the new login keyring's password
	if err := kr.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// go-keyring shares one connection to the session bus; closed, the
		// next test's call opens a new one.
		if c, err := dbus.SessionBus(); err == nil {
			_ = c.Close()
		}
		_ = kr.Process.Kill()
		_ = kr.Wait()
	})
	waitForName(t, "org.freedesktop.secrets")
	if _, err := (osKeyring{}).Get(keychainService, "probe"); !errors.Is(err, gokeyring.ErrNotFound) {
		t.Fatalf("GNOME Keyring's Secret Service: %v", err)
	}
}

// waitForName waits until a client owns name on the session bus, for the
// bus's NameOwnerChanged signal rather than by polling.
func waitForName(t *testing.T, name string) {
	t.Helper()
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.freedesktop.DBus"), dbus.WithMatchMember("NameOwnerChanged"), dbus.WithMatchArg(0, name)); err != nil {
		t.Fatal(err)
	}
	ch := make(chan *dbus.Signal, 8)
	conn.Signal(ch)
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil {
		t.Fatal(err)
	}
	if owned {
		return
	}
	select {
	case <-ch:
	case <-time.After(15 * time.Second):
		t.Fatalf("no process took %s on the test's session bus within 15s", name)
	}
}

// A sign-in kept, read back and removed through a real Secret Service.
func TestSecretServiceKeychain(t *testing.T) {
	secretService(t)
	const url = "https://mcp.example/mcp"
	s := NewStore(StoreAuto, t.TempDir())
	if s.Kind() != StoreKeychain {
		t.Fatalf("auto with a Secret Service chose %s", s.Where())
	}
	if err := s.save("linear", url, signedIn("secret-access")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(s.dir); len(entries) != 0 {
		t.Errorf("a file was written beside the keychain: %v", entries)
	}
	r, err := NewStore(StoreKeychain, s.dir).load("linear", url)
	if err != nil || r.Token == nil || r.Token.AccessToken != "secret-access" {
		t.Fatalf("a later run's load: %+v %v", r, err)
	}
	if removed, err := s.remove("linear", url); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if _, err := (osKeyring{}).Get(keychainService, filepath.Base((&fileStore{dir: s.dir}).path("linear", url))); !errors.Is(err, gokeyring.ErrNotFound) {
		t.Fatalf("the entry is still in the keychain: %v", err)
	}
}
