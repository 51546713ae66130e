//go:build !unix

package hooks

import "os/exec"

// ownGroup does nothing where there are no process groups: a timeout kills
// the hook's direct child only.
func ownGroup(cmd *exec.Cmd) {}
