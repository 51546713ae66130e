//go:build linux

package proc

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// TestOwnPeakHelper is the child of TestSamplePeakIsTheProcessOwn: as
// "parent" it runs itself as "big" to the end and then holds until its
// stdin closes; as "big" it touches 64 MB and exits.
func TestOwnPeakHelper(t *testing.T) {
	switch os.Getenv("STARTBENCH_OWN_HELPER") {
	case "parent":
		big := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOwnPeakHelper$")
		big.Env = append(os.Environ(), "STARTBENCH_OWN_HELPER=big")
		if err := big.Run(); err != nil {
			t.Fatal(err)
		}
		_, _ = os.Stdout.WriteString("ready\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "big":
		b := make([]byte, 64<<20)
		for i := range b {
			if i%4096 == 0 {
				b[i] = 1
			}
		}
		runtime.KeepAlive(b)
	default:
		t.Skip("the child of TestSamplePeakIsTheProcessOwn")
	}
}

// The sampled HWM is the process's own peak, where rusage's ru_maxrss
// from wait4 folds in the children it reaped: a process that ran a 64 MB
// child has a ru_maxrss of 64 MB or more, and an HWM of its own few MB
// (what made the npm tree's "agent peak RSS" the Node server's).
func TestSamplePeakIsTheProcessOwn(t *testing.T) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestOwnPeakHelper$")
	cmd.Env = append(os.Environ(), "STARTBENCH_OWN_HELPER=parent")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make([]byte, len("ready\n"))
	if _, err := io.ReadFull(stdout, ready); err != nil || string(ready) != "ready\n" {
		t.Fatalf("the child did not run its own child: %q %v", ready, err)
	}
	p := SamplePeak(cmd.Process.Pid, "")() // samples once at least, while the child holds
	_ = stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no rusage")
	}
	const big = 64 << 10 // KB
	if ru.Maxrss < big {
		t.Fatalf("ru_maxrss %d KB, want the reaped child's %d KB or more", ru.Maxrss, big)
	}
	t.Logf("ru_maxrss %d KB, own peak %d KB", ru.Maxrss, p.HWM)
	if p.HWM <= 0 || p.HWM >= big/2 {
		t.Fatalf("own peak %d KB (ru_maxrss %d KB), want the child's own few MB", p.HWM, ru.Maxrss)
	}
}
