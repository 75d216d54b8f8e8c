//go:build unix

package pyhooks

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the interpreter in its own process group, so a
// timeout also stops whatever a hook started.
func setProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
