//go:build unix

package testproc

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd in a process group of its own and makes the
// cancellation of its context kill that group: the process started and
// the helper processes it forked, nothing else.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
