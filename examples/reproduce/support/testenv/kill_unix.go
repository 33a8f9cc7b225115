//go:build unix

package testenv

import (
	"os/exec"
	"syscall"
)

const killSupported = true

// setGroup makes cmd the leader of a new process group, so that killGroup
// reaches the processes it starts too.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup sends SIGKILL to cmd's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
